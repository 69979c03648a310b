"""Hidden information across many games: every message every connection got, checked."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from room_helpers import Conn, first_legal, manager_for, seat_four, settle

from hidden_cards import card_strings, current_hand_only, deals_of, event_leaks, played
from spades.rooms import ManualClock, Room
from spades.store import open_store


def check(conn: Conn, seat: int | None, deals: dict[int, list[set[str]]]) -> None:
    hand, seen = 1, set[str]()
    for message in map(current_hand_only, conn.messages):
        if message["type"] == "state" and message["view"] is not None:
            view = message["view"]
            if view["phase"] == "over":
                continue
            hand, seen = view["hand_number"], played(view)
            if seat is None:
                assert view["hand"] is None and view["legal"] == []
            elif view["blind_nil_open"]:
                assert view["hand"] is None
                assert not card_strings(message), "a blind-nil seat saw cards before looking"
        others = set().union(*(deals[hand][s] for s in range(4) if s != seat))
        assert not (card_strings(message) & others) - seen, (seat, message["type"])
    # Each event as sent (not only the state it makes) shows no other seat's unplayed card,
    # and a seat that may still bid blind nil is sent no card of its own either.
    assert conn.applied, "no events were sent"
    for event, after in conn.applied:
        view = after["view"]
        others = set().union(*(deals[view["hand_number"]][s] for s in range(4) if s != seat))
        assert not event_leaks(event, view, others), (seat, event)
        if seat is None:
            assert "you" not in event
        elif view["blind_nil_open"]:
            assert not card_strings(event) - played(view), (seat, event)


@pytest.mark.parametrize("game_number", range(6))
async def test_no_seat_ever_sees_another_seats_cards(tmp_path: Path, game_number: int) -> None:
    clock = ManualClock()
    # In-memory SQLite: a real store without the disk's fsync, so many games stay quick.
    store = await open_store(
        "sqlite+aiosqlite:///:memory:", clock=lambda: datetime.fromtimestamp(clock.now(), UTC)
    )
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    rng = random.Random(game_number)
    mode = ("individual", "partnership")[game_number % 2]
    rules = {"blind_nil_deficit": 0} if game_number % 3 == 0 else {}
    room, _, token = await manager.create("P0", {"mode": mode, "target": 60, "rules": rules})
    conns = await seat_four(room, token)
    spectator = Conn()
    await room.call(room.attach, spectator, None)
    await room.call(room.handle, conns[0], {"type": "start"})
    await drive(room, conns, rng)
    assert room.game is not None and room.game.phase == "over"
    deals = deals_of(await store.export_game(room.game_id))
    for seat, conn in enumerate(conns):
        check(conn, seat, deals)
    check(spectator, None, deals)
    await manager.stop()
    await store.close()


async def drive(room: Room, conns: list[Conn], rng: random.Random) -> None:
    """Each seat acts on its latest state: sometimes blind nil, mostly a quick bid and play."""
    while True:
        await settle(lambda: any(_can_act(c) for c in conns) or _over(conns[0]))
        if _over(conns[0]):
            return
        conn = rng.choice([c for c in conns if _can_act(c)])
        legal = conn.last_state()["view"]["legal"]
        blind = {"type": "bid", "bid": "blind nil"}
        action = (
            blind if blind in legal and rng.random() < 0.3 else first_legal("x", {"legal": legal})
        )
        await room.call(room.handle, conn, {**action})


def _can_act(conn: Conn) -> bool:
    state = conn.last_state()
    return state["view"] is not None and bool(state["view"]["legal"])


def _over(conn: Conn) -> bool:
    view = conn.last_state()["view"]
    return view is not None and view["phase"] == "over"


@pytest.mark.parametrize("deuces", [False, True])
async def test_house_rules_hide_the_jokers_and_blind_bids(tmp_path: Path, deuces: bool) -> None:
    """Jokers (with Deuce-Deuce or not) and blind 6+ through a room: every message checked
    as above, and the blind numbers go over the wire as the room's protocol allows."""
    clock = ManualClock()
    store = await open_store(
        "sqlite+aiosqlite:///:memory:", clock=lambda: datetime.fromtimestamp(clock.now(), UTC)
    )
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    rng = random.Random(100)
    rules = {"jokers": True, "deuces": deuces, "blind_bid_deficit": 1, "blind_nil_deficit": 1}
    room, _, token = await manager.create("P0", {"target": 60, "rules": rules})
    conns = await seat_four(room, token)
    await room.call(room.handle, conns[0], {"type": "start"})
    while True:
        await settle(lambda: any(_can_act(c) for c in conns) or _over(conns[0]))
        if _over(conns[0]):
            break
        conn = rng.choice([c for c in conns if _can_act(c)])
        legal = conn.last_state()["view"]["legal"]
        numbers = [a for a in legal if str(a.get("bid", "")).startswith("blind ")]
        numbers = [a for a in numbers if a["bid"] != "blind nil"]
        if numbers and rng.random() < 0.5:
            action = rng.choice(numbers)
        else:
            action = first_legal("x", {"legal": legal})
        await room.call(room.handle, conn, {**action})
    deals = deals_of(await store.export_game(room.game_id))
    assert any("BJ" in hand for game_deals in deals.values() for hand in game_deals)
    assert any("DD" in hand for d in deals.values() for hand in d) == deuces
    for seat, conn in enumerate(conns):
        check(conn, seat, deals)
    await manager.stop()
    await store.close()


def test_the_wire_takes_the_blind_bids_of_a_number() -> None:
    from spades.rooms.protocol import NAMED_BIDS, Bid

    assert {f"blind {n}" for n in range(6, 14)} <= NAMED_BIDS
    assert Bid.model_validate({"type": "bid", "bid": "blind 7"}).bid == "blind 7"
