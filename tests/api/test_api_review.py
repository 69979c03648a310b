"""The record of a finished game carries what a review needs: each hand's dealt cards."""

from __future__ import annotations

from pathlib import Path

from api_helpers import play_until_over, running_server

from hidden_cards import deals_of


async def test_finished_game_record_lists_every_deal(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create("/api/solo", mode="individual", target=60)
        client = await server.client(created["code"], created["token"])
        game_id = client.state["room"]["game_id"]
        # While the game runs, the record (and so every deal) stays secret.
        assert (await server.get(f"/api/games/{game_id}/record")).status_code == 409
        final = await play_until_over(client)
        record = (await server.get(f"/api/games/{game_id}/record")).json()
        # A solo room is not listed: its code is its only key, and the record, which anyone
        # may read by the game's number, does not give it away.
        assert record["room"] is None and len(record["players"]) == 4
        history = final["view"]["history"]
        assert record["history"] == history
        assert [d["hand"] for d in record["dealt"]] == [e["hand"] for e in history]
        assert [d["dealer"] for d in record["dealt"]] == [e["dealer"] for e in history]
        deals = deals_of(record)
        for d in record["dealt"]:
            assert all(len(cards) == 13 for cards in d["hands"])
            assert len(set().union(*map(set, d["hands"]))) == 52
            assert [set(cards) for cards in d["hands"]] == deals[d["hand"]]
        await client.close()
