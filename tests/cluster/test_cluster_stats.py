"""Acceptance (issue 56, statistics) across a failover: games of a player whose owner
process is killed (-9) mid-game are finished by another process, and the player's
statistics, answered by any process, equal their recomputation from the event log (each
finished game's record replayed), each game counted once."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import httpx
from cluster_support import Cluster, Player, get, post
from test_cluster_failover import record_matches, wait_for

from spades.engine.stats import Counts, rates, record_stats

HEADER = "X-Spades-Player"


async def call(base: str, path: str, player: dict[str, Any], body: Any = None) -> Any:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        headers = {HEADER: player["credential"]}
        if body is None:
            response = await http.get(path, headers=headers)
        else:
            response = await http.post(path, json=body, headers=headers)
        assert response.status_code in (200, 201), response.text
        return response.json()


async def recomputed(base: str, player: dict[str, Any]) -> list[dict[str, Any]]:
    sums = {"partnership": Counts(), "individual": Counts()}
    page = await call(base, f"/api/players/{player['id']}/games", player)
    for game in page["games"]:
        record = (await get(base, f"/api/games/{game['game_id']}/record")).json()
        seat = record_stats(record)[game["seat"]]
        sums[seat.mode] = sums[seat.mode] + seat.counts
    return [{"mode": m, **c.to_dict(), **rates(c)} for m, c in sums.items()]


async def test_games_finished_across_a_failover_count_once(cluster: Cluster) -> None:
    owner = cluster.nodes[0]
    ann = await post(owner.url, "/api/players", {"name": "Ann"})
    players = []
    for mode in ("partnership", "individual"):
        made = await call(owner.url, "/api/solo", ann, {"name": "Ann", "mode": mode, "target": 50})
        assert cluster.owner_of(made["code"]) is owner
        # The socket goes to the owner first, then through HAProxy once it is gone.
        urls = iter([owner.url])
        players.append(
            Player(lambda u=urls: next(u, cluster.url), made["code"], made["token"], think=0.05)
        )
    games = [asyncio.create_task(p.play()) for p in players]
    await wait_for(lambda: all(p.states and p.states[-1]["seq"] >= 8 for p in players))
    owner.signal(signal.SIGKILL)
    owner.wait_exit()
    finals = await asyncio.gather(*games)
    for player, final in zip(players, finals, strict=True):
        assert final["view"]["phase"] == "over"
        assert cluster.owner_of(player.code) not in (None, owner)
        await record_matches(cluster, player.code, final)
    # Both games among Ann's finished ones: their finishes (statistics included) are stored.
    ids = {f["room"]["game_id"] for f in finals}
    for _ in range(600):  # a guard against hangs, not a timing
        page = await call(cluster.url, f"/api/players/{ann['id']}/games", ann)
        if ids <= {g["game_id"] for g in page["games"]}:
            break
        await asyncio.sleep(0.05)
    for node in cluster.nodes[1:]:
        mine = await call(node.url, "/api/me/stats", ann)
        assert mine["modes"] == await recomputed(node.url, ann)
        assert [m["games"] for m in mine["modes"]] == [1, 1]
