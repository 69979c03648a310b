"""Accounts across processes: a session opened on one process works on every other (the
store checks it, no process keeps it), a relayed socket's `sit` is filled with it, a
sign-out everywhere on one is refused by all, and failed sign-ins are counted in Redis for
all processes together."""

from __future__ import annotations

import json
from typing import Any

import httpx
from cluster_support import Cluster, post, ws_url
from websockets.asyncio.client import connect

PASSWORD = "correct horse battery"


async def test_a_session_made_on_one_process_works_on_the_others(cluster: Cluster) -> None:
    one, two, three = (n.url for n in cluster.nodes)
    ann = await post(one, "/api/players", {"name": "Ann"})
    async with httpx.AsyncClient(base_url=one, timeout=30) as http:
        claimed = await http.post(
            "/api/account",
            json={"username": "ann", "password": PASSWORD},
            headers={"X-Spades-Player": ann["credential"]},
        )
        assert claimed.status_code == 201, claimed.text
        cookies: Any = dict(http.cookies)
    csrf = {"X-Spades-CSRF": cookies["spades_csrf"]}
    for base in (two, three):
        async with httpx.AsyncClient(base_url=base, cookies=cookies, timeout=30) as http:
            me = await http.get("/api/me")
            assert me.status_code == 200 and me.json()["username"] == "ann"
    # A room owned by process 1; Ann's socket lands on process 2 and sits by her session.
    room = await post(one, "/api/rooms", {"name": "Host"})
    assert cluster.owner_of(room["code"]) is cluster.nodes[0]
    headers = {"Cookie": f"spades_session={cookies['spades_session']}"}
    async with connect(
        ws_url(two, room["code"]), ping_interval=None, additional_headers=headers
    ) as ws:
        await ws.send(json.dumps({"type": "hello", "token": None}))
        await ws.send(json.dumps({"type": "sit", "name": "Ann", "id": 1}))
        while (message := json.loads(await ws.recv()))["type"] not in ("seated", "error"):
            pass
    assert message["type"] == "seated", message
    async with httpx.AsyncClient(base_url=three, cookies=cookies, timeout=30) as http:
        mine = (await http.get("/api/me/rooms")).json()["rooms"]
        assert [r["code"] for r in mine] == [room["code"]]
        out = await http.post("/api/account/sign-out-everywhere", headers=csrf)
        assert out.status_code == 204
    for base in (one, two, three):
        async with httpx.AsyncClient(base_url=base, cookies=cookies, timeout=30) as http:
            assert (await http.get("/api/me")).status_code == 401
    # Nine failed sign-ins spread over the processes; the tenth is refused by any of them.
    bases = [one, two, three] * 3
    for n, base in enumerate(bases):
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            failed = await http.post(
                "/api/session", json={"username": f"u{n}", "password": "wrong-one"}
            )
            assert failed.status_code == 401
    async with httpx.AsyncClient(base_url=two, timeout=30) as http:
        refused = await http.post("/api/session", json={"username": "ann", "password": PASSWORD})
        assert refused.status_code == 429 and "retry-after" in refused.headers
