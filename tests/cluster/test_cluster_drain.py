"""A drain under reconnects (issue 58): during a rolling restart, sockets open and close all
the time through HAProxy. Every WebSocket upgrade that reaches a stopping process gets 4012
(draining) or an HTTP 503 with Retry-After (stopped), which the client tries again; HAProxy
tries again elsewhere a request the process closed without an answer. So HAProxy's log shows
no 500 and no 502, and no client ever sees one."""

from __future__ import annotations

import asyncio
import json
import re
import signal

from cluster_support import Cluster, Node, Player, get, post, ws_url
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

CHURNERS = 10  # per room
STATUS = re.compile(r"\] \S+ \S+ \S+ (\d{3}) ")


async def restart(node: Node) -> None:
    node.signal(signal.SIGTERM)
    await asyncio.to_thread(node.wait_exit)
    node.start()
    await asyncio.to_thread(node.wait_ready)


async def churn(base: str, code: str, statuses: list[int], stop: asyncio.Event) -> None:
    """A spectator that connects, waits for its state, leaves, and again; and a REST read."""
    while not stop.is_set():
        try:
            async with connect(ws_url(base, code), open_timeout=10) as ws:
                await ws.send(json.dumps({"type": "hello", "token": None, "id": 1}))
                while json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] != "state":
                    pass
        except InvalidStatus as exc:
            statuses.append(exc.response.status_code)
        except (ConnectionClosed, OSError, TimeoutError):
            pass
        response = await get(base, f"/api/rooms/{code}")
        statuses.append(response.status_code)


async def test_a_rolling_restart_under_reconnects_answers_no_500_or_502(cluster: Cluster) -> None:
    rooms = [await post(cluster.url, "/api/solo", {"name": "s", "target": 300}) for _ in range(4)]
    players = [Player(cluster.url, r["code"], r["token"], think=0.15) for r in rooms]
    games = [asyncio.create_task(p.play()) for p in players]
    stop = asyncio.Event()
    statuses: list[int] = []
    churners = [
        asyncio.create_task(churn(cluster.url, r["code"], statuses, stop))
        for r in rooms
        for _ in range(CHURNERS)
    ]
    try:
        while not all(p.states for p in players):
            await asyncio.sleep(0.05)
        for node in cluster.nodes:
            await restart(node)
    finally:
        stop.set()
        await asyncio.gather(*churners, return_exceptions=True)
        for game in games:
            game.cancel()
        await asyncio.gather(*games, return_exceptions=True)
    assert statuses, "the churn never ran"
    assert not [s for s in statuses if s in (500, 502)], sorted(set(statuses))
    assert (cluster.logdir / "haproxy.log").exists()
    logged = [
        int(m.group(1))
        for line in (cluster.logdir / "haproxy.log").read_text().splitlines()
        if (m := STATUS.search(line))
    ]
    assert len(logged) > 100, len(logged)
    bad = [
        line
        for line in (cluster.logdir / "haproxy.log").read_text().splitlines()
        if (m := STATUS.search(line)) and m.group(1) in ("500", "502")
    ]
    assert not bad, bad[:10]
