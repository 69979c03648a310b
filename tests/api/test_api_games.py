"""Whole games over real WebSockets: four humans, solo against bots, hidden information."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from api_helpers import Client, choose_well, play_until_over, running_server

from hidden_cards import card_strings, current_hand_only, deals_of, event_leaks, played
from spades.api.models import SERVER_MESSAGE
from spades.engine import card_text, deal_commitment, deal_from_seed
from spades.engine.cards import cards_of


def check_hidden(client: Client, deals: dict[int, list[set[str]]]) -> int:
    """No message to this client holds a card of another seat before it is played."""
    checked = 0
    hand_number = 1
    on_table: set[str] = set()
    for sent in client.wire:  # as sent; the merged states below hold nothing more
        SERVER_MESSAGE.validate_python(sent)
    for message in client.messages:
        SERVER_MESSAGE.validate_python(message)
        message = current_hand_only(message)
        if message["type"] == "state" and message["view"] is not None:
            view = message["view"]
            hand_number, on_table = view["hand_number"], played(view)
            seat = message["room"]["you"]
            if seat is None:
                assert view["hand"] is None
            if view["phase"] == "over":
                continue
        seat = client.seat
        deal = deals.get(hand_number)
        if deal is None:
            continue
        others = set().union(*(deal[s] for s in range(4) if s != seat))
        leaked = (card_strings(message) & others) - on_table
        assert not leaked, f"seat {seat} was sent {leaked} in {message['type']}"
        checked += 1
    # The events as sent: no card of another seat that the table does not show after it.
    assert client.applied, "no events were sent"
    for event, after in client.applied:
        view = after["view"]
        deal = deals[view["hand_number"]]
        others = set().union(*(deal[s] for s in range(4) if s != client.seat))
        leaked = event_leaks(event, view, others)
        assert not leaked, f"seat {client.seat} was sent {leaked} in an event"
        if client.seat is None:
            assert "you" not in event
        checked += 1
    return checked


@pytest.mark.parametrize("mode", ["individual", "partnership"])
async def test_four_humans_play_a_whole_game(tmp_path: Path, mode: str) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create(mode=mode, target=100, public=True)
        code = created["code"]
        tokens = {0: created["token"]}
        for seat, name in ((1, "West"), (2, "North"), (3, "East")):
            joined = await server.join(code, name)
            assert joined["seat"] == seat
            tokens[seat] = joined["token"]
        listed = (await server.get("/api/rooms")).json()["rooms"]
        assert all(r["code"] != code for r in listed)  # full rooms are not listed
        clients = [await server.client(code, tokens[s]) for s in range(4)]
        watcher = await server.client(code, None)
        assert [c.state["room"]["you"] for c in clients] == [0, 1, 2, 3]
        assert watcher.state["room"]["you"] is None
        await clients[0].send(type="start", id="go")
        # The spectator reads while the game is played, as a browser does: a client that
        # stops reading stops answering the server's keepalive pings, and is closed.
        *finals, _ = await asyncio.gather(
            *(play_until_over(c, choose_well) for c in clients),
            watcher.until(lambda m: m["type"] == "state" and m["view"]["phase"] == "over"),
        )
        view = finals[0]["view"]
        assert all(f["room"]["started_by"] == 0 for f in finals)  # the host's `start`
        assert view["winner"] is not None
        assert max(view["scores"]) >= 100
        assert all(f["view"]["scores"] == view["scores"] for f in finals)
        game_id = finals[0]["room"]["game_id"]
        record = (await server.get(f"/api/games/{game_id}/record")).json()
        # The review's names: the room's seats as they are now (no token, nothing secret).
        assert record["room"] == code
        assert [(p["seat"], p["kind"]) for p in record["players"]] == [
            (i, "human") for i in range(4)
        ]
        assert all(p["name"] for p in record["players"]) and "token" not in str(record["players"])
        deals = deals_of(record)
        for client in [*clients, watcher]:
            assert check_hidden(client, deals) > 0
        # Fair deals: each finished hand reveals a seed matching its commitment and deal.
        for entry in view["history"]:
            assert deal_commitment(entry["seed"]) == entry["commitment"]
            dealt = deal_from_seed(entry["seed"])
            assert [{card_text(c) for c in cards_of(m)} for m in dealt] == deals[entry["hand"]]
        history = (await server.get(f"/api/rooms/{code}/history")).json()["games"]
        assert history[0]["game_id"] == game_id and history[0]["hands"] == view["history"]
        # Play again with the same seats: it starts once every player here has asked,
        # and until then everyone sees who has.
        await clients[2].send(type="play_again")
        asked = await clients[0].until(lambda m: m["type"] == "state" and m["room"]["again"])
        assert asked["room"]["again"] == [2] and asked["room"]["status"] == "finished"
        for n in (0, 3, 1):
            await clients[n].send(type="play_again")
        again = await clients[0].until(
            lambda m: m["type"] == "state" and m["room"]["game_id"] not in (None, game_id)
        )
        assert again["room"]["status"] == "playing" and again["room"]["again"] == []
        assert again["room"]["started_by"] == 1  # the last to ask, named to the others
        assert [s["name"] for s in again["room"]["seats"]] == ["Host", "West", "North", "East"]
        for client in [*clients, watcher]:
            await client.close()


async def test_solo_game_against_three_bots(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create("/api/solo", mode="partnership", target=100)
        client = await server.client(created["code"], created["token"])
        room = client.state["room"]
        assert room["status"] == "playing" and room["settings"]["public"] is False
        assert [s["kind"] for s in room["seats"]] == ["human", "bot", "bot", "bot"]
        await client.send(type="hint", id="h")
        hint = await client.until(lambda m: m["type"] in ("hint", "error"))
        if hint["type"] == "hint":
            assert hint["ref"] == "h"
        final = await play_until_over(client)
        assert final["view"]["winner"] is not None
        record = (await server.get(f"/api/games/{room['game_id']}/record")).json()
        assert check_hidden(client, deals_of(record)) > 0
        await client.close()


async def test_blind_nil_seat_sees_no_card_before_it_looks(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        # A deficit of 0 makes every seat eligible for blind nil in the first hand.
        created = await server.create(
            "/api/solo", mode="individual", target=100, rules={"blind_nil_deficit": 0}
        )
        client = await server.client(created["code"], created["token"])
        state = client.state
        assert state["view"]["blind_nil_open"] is True
        assert state["view"]["hand"] is None
        game_id = state["room"]["game_id"]
        # Wait until it is our turn: the bots bid; we still see no cards.
        while state["view"]["to_act"] != 0:
            state = await client.until(lambda m: m["type"] == "state")
        assert state["view"]["hand"] is None
        assert {"type": "bid", "bid": "blind nil"} in state["view"]["legal"]
        before = len(client.messages)
        await client.send(type="hint", id="hint")
        await client.until(lambda m: m["type"] in ("hint", "error"))
        await client.send(type="look", id="look")
        looked = await client.until(lambda m: m["type"] == "state" and m["ref"] == "look")
        assert len(looked["view"]["hand"]) == 13
        # Nothing before the look carried a card at all (first hand: no earlier trick).
        for message in client.messages[: before + 1]:
            assert not card_strings(message), message
        await client.close()
        assert game_id is not None
