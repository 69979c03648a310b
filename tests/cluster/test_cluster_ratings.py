"""A rated game whose owner dies mid-game (issue 57): the game goes on on another process,
and at its end each player's rating changes once, as a recomputation from the record says
(the new owner replays the log; the finish and the rating are written once)."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import httpx
from cluster_support import Cluster, Player, post, start_game
from test_cluster_failover import record_matches, wait_for

from spades.engine.stats import record_stats
from spades.rooms.rating import RatedSeat, rate_game, shown_rating

HEADER = "X-Spades-Player"


async def call(base: str, method: str, path: str, player: dict[str, Any], **kw: Any) -> Any:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        return await http.request(method, path, headers={HEADER: player["credential"]}, **kw)


async def test_a_rated_game_moved_by_a_kill_9_is_rated_once(cluster: Cluster) -> None:
    owner = cluster.nodes[0]
    players = [await post(cluster.url, "/api/players", {"name": f"R{i}"}) for i in range(4)]
    body = {"name": "R0", "rated": True, "target": 60, "bot_level": "easy"}
    made = (await call(owner.url, "POST", "/api/rooms", players[0], json=body)).json()
    code, tokens = made["code"], [made["token"]]
    for seat, player in enumerate(players[1:], start=1):
        joined = await call(
            owner.url,
            "POST",
            f"/api/rooms/{code}/join",
            player,
            json={"name": f"R{seat}", "seat": seat},
        )
        assert joined.status_code == 200, joined.text
        tokens.append(joined.json()["token"])
    assert cluster.owner_of(code) is owner
    await start_game(owner.url, code, tokens[0])
    seats = []
    for token in tokens:  # first straight to the owner, then through HAProxy
        urls = iter([owner.url])
        seats.append(Player(lambda urls=urls: next(urls, cluster.url), code, token, think=0.02))
    games = [asyncio.create_task(seat.play()) for seat in seats]
    await wait_for(lambda: any(s.states and s.states[-1]["seq"] >= 20 for s in seats))
    assert all(not s.states or s.states[-1]["view"]["phase"] != "over" for s in seats)
    owner.signal(signal.SIGKILL)
    owner.wait_exit()
    finals = await asyncio.gather(*games)
    final = finals[0]
    assert final["view"]["phase"] == "over"
    assert cluster.owner_of(code) not in (None, owner)
    await record_matches(cluster, code, final)
    game_id = final["room"]["game_id"]
    async with httpx.AsyncClient(base_url=cluster.url, timeout=30) as http:
        record = (await http.get(f"/api/games/{game_id}/record")).json()
    won = {s.seat for s in record_stats(record) if s.counts.won}
    winner = 0 if won == {0, 2} else 1
    expected = rate_game(
        "partnership", [RatedSeat(s, p["id"]) for s, p in enumerate(players)], [0, 0], winner, {}
    )
    for change, player in zip(expected, players, strict=True):
        got = (
            await call(cluster.url, "GET", f"/api/players/{player['id']}/ratings", player)
        ).json()
        partnership = got["modes"][0]
        assert partnership["mode"] == "partnership" and partnership["games"] == 1
        assert abs(partnership["mu"] - change.mu_after) < 1e-3
        assert [(h["game_id"], h["after"]) for h in got["history"]] == [
            (game_id, shown_rating(change.mu_after, change.sigma_after))
        ]
