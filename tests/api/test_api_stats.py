"""Players' statistics over a real uvicorn, on SQLite and PostgreSQL: `GET /api/me/stats`
and `GET /api/players/{id}/stats` equal a recomputation of the player's games from their
records (the event log), per mode; a private player's only to themself."""

from __future__ import annotations

from typing import Any

from api_helpers import Server, play_until_over
from test_api_players import auth, new_player, server, show_games, solo

from spades.engine.stats import Counts, rates, record_stats

__all__ = ["server"]  # the fixture: SQLite and PostgreSQL


async def recomputed(server: Server, games: dict[int, str]) -> list[dict[str, Any]]:
    """Seat 0's statistics of each game (its record replayed), summed per mode."""
    sums = {"partnership": Counts(), "individual": Counts()}
    for game_id in games:
        record = (await server.http.get(f"/api/games/{game_id}/record")).json()
        seat = record_stats(record)[0]
        sums[seat.mode] = sums[seat.mode] + seat.counts
    return [{"mode": mode, **counts.to_dict(), **rates(counts)} for mode, counts in sums.items()]


async def solo_in(server: Server, player: dict[str, Any], mode: str) -> int:
    headers = auth(player)
    response = await server.http.post(
        "/api/solo", json={"name": "Ann", "mode": mode, "target": 60}, headers=headers
    )
    created = response.json()
    client = await server.client(created["code"], created["token"])
    final = await play_until_over(client)
    await client.close()
    game_id: int = final["room"]["game_id"]
    return game_id


async def test_statistics_per_mode_and_who_may_see_them(server: Server) -> None:
    ann, bob = await new_player(server, "Ann"), await new_player(server, "Bob")
    zero = await server.http.get("/api/me/stats", headers=auth(ann))
    assert zero.status_code == 200
    assert [m["games"] for m in zero.json()["modes"]] == [0, 0]
    assert zero.json()["modes"][0]["won_pct"] is None
    games = {await solo(server, ann): "individual"}  # (solo: an individual game to 50)
    games[await solo_in(server, ann, "partnership")] = "partnership"
    await solo(server, None)  # a game of no player counts for nobody
    mine = (await server.http.get("/api/me/stats", headers=auth(ann))).json()
    assert mine["player"] == {"id": ann["id"], "name": "Ann", "public": False}
    assert mine["modes"] == await recomputed(server, games)
    assert [m["games"] for m in mine["modes"]] == [1, 1]
    path = f"/api/players/{ann['id']}/stats"
    # Private: to anyone else, as unknown as a player who does not exist.
    assert (await server.http.get(path)).status_code == 404
    assert (await server.http.get(path, headers=auth(bob))).status_code == 404
    assert (await server.http.get(path, headers=auth(ann))).json() == mine
    await show_games(server, ann)
    shown = (await server.http.get(path, headers=auth(bob))).json()
    assert shown["modes"] == mine["modes"] and shown["player"]["public"] is True
    assert (await server.http.get("/api/players/nobody-at-all/stats")).status_code == 404
    assert (await server.http.get("/api/players/../stats")).status_code == 404
    assert (await server.http.get("/api/me/stats")).status_code == 401
    wrong = {"X-Spades-Player": f"{ann['id']}:not-the-secret"}
    assert (await server.http.get("/api/me/stats", headers=wrong)).status_code == 401
