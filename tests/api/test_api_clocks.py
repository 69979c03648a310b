"""The turn timer and the game clock through the server, on an injected clock."""

from __future__ import annotations

from pathlib import Path

from api_helpers import play_until_over, running_server

from spades.rooms import ManualClock


async def test_turn_timer_makes_the_bot_move(tmp_path: Path, clock: ManualClock) -> None:
    async with running_server(tmp_path, clock=clock) as server:
        created = await server.create("/api/solo", mode="individual", target=100, turn_seconds=20)
        client = await server.client(created["code"], created["token"])
        state = client.state
        while state["view"]["to_act"] != 0:
            state = await client.until(lambda m: m["type"] == "state")
        deadline = state["clock"]["turn_deadline"]
        assert deadline == state["clock"]["now"] + 20_000
        seq = state["seq"]
        clock.advance(21)
        state = await client.until(lambda m: m["type"] == "state" and m["seq"] > seq)
        seat = state["room"]["seats"][0]
        assert seat["timed_out"] is True and seat["away"] is False
        # Acting again clears the flag.
        while not (state["view"]["legal"] and state["view"]["to_act"] == 0):
            state = await client.until(lambda m: m["type"] == "state")
        await client.send(**state["view"]["legal"][0], id="me")
        state = await client.until(lambda m: m["type"] == "state" and m["ref"] == "me")
        assert state["room"]["seats"][0]["timed_out"] is False
        await client.close()


async def test_game_clock_ends_the_game(tmp_path: Path, clock: ManualClock) -> None:
    async with running_server(tmp_path, clock=clock) as server:
        created = await server.create(
            "/api/solo", mode="partnership", target=10_000, game_minutes=10
        )
        client = await server.client(created["code"], created["token"])
        assert client.state["clock"]["game_deadline"] == client.state["clock"]["now"] + 600_000
        clock.advance(601)
        await client.until(lambda m: m["type"] == "state" and m["view"]["time_up"])
        final = await play_until_over(client)
        view = final["view"]
        assert view["winner"] is not None and view["time_up"] is True
        assert max(view["scores"]) < 10_000
        assert final["room"]["status"] == "finished"
        await client.close()
