"""Guest players across processes: made on one, known by every other (PostgreSQL holds them;
no process keeps one in memory), recorded on seats taken through a relayed REST join and a
relayed socket's `sit`, and their live rooms answered by any process."""

from __future__ import annotations

import json
from typing import Any

import httpx
from cluster_support import Cluster, post, ws_url
from websockets.asyncio.client import connect

HEADER = "X-Spades-Player"


async def call(base: str, method: str, path: str, player: dict[str, Any], **kw: Any) -> Any:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        response = await http.request(method, path, headers={HEADER: player["credential"]}, **kw)
        return response


async def test_a_player_made_on_one_process_sits_through_the_others(cluster: Cluster) -> None:
    one, two, three = (n.url for n in cluster.nodes)
    ann = await post(one, "/api/players", {"name": "Ann"})
    bob = await post(two, "/api/players", {"name": "Bob"})
    # Any process knows either player, and refuses a wrong secret alike.
    assert (await call(three, "GET", "/api/me", ann)).json()["name"] == "Ann"
    wrong = {"credential": f"{ann['id']}:{bob['secret']}"}
    assert (await call(three, "GET", "/api/me", wrong)).status_code == 401
    made = (await call(one, "POST", "/api/rooms", ann, json={"name": "Ann"})).json()
    code = made["code"]
    assert cluster.owner_of(code) is cluster.nodes[0]
    # Bob joins through process 2: the owner (process 1) records his player on the seat.
    joined = await call(two, "POST", f"/api/rooms/{code}/join", bob, json={"name": "Bob"})
    assert joined.status_code == 200 and joined.json()["seat"] == 1
    # Cid sits through process 3's socket, relayed to the owner, which checks his secret.
    cid = await post(three, "/api/players", {"name": "Cid"})
    async with connect(ws_url(three, code), ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": None}))
        await ws.send(
            json.dumps({"type": "sit", "name": "Cid", "player": wrong["credential"], "id": 1})
        )
        await ws.send(json.dumps({"type": "sit", "name": "Cid", "player": cid["credential"]}))
        refused = seated = None
        while seated is None:
            message = json.loads(await ws.recv())
            if message["type"] == "error":
                refused = message
            elif message["type"] == "seated":
                seated = message
    assert refused is not None and refused["code"] == "bad_player" and refused["ref"] == 1
    assert seated["seat"] == 2
    for player, base, seat in ((ann, three, 0), (bob, one, 1), (cid, two, 2)):
        rooms = (await call(base, "GET", "/api/me/rooms", player)).json()["rooms"]
        assert [(r["code"], r["seat"]) for r in rooms] == [(code, seat)]
