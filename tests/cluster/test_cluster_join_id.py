"""A relayed join is idempotent (issue 58, "A relayed join can leave a phantom seat").

The room's owner is paused (SIGSTOP) while another process relays a join to it: the edge
gives up waiting (`CALL_TIMEOUT`) though the owner, once it runs again, still seats the
player. The edge asks again with the same join id and gets that seat; when even that is
too late (503), the client's retry with its `join_id` gets the same seat and token. No
join ever takes a second seat. The lease outlives the pauses here (SPADES_LEASE_TTL 20),
so the room stays with its owner: this is the slow owner, not the failover."""

from __future__ import annotations

import asyncio
import json
import secrets
import signal
import time
from typing import Any

import httpx
import pytest
from cluster_support import Cluster, post, ws_url
from websockets.asyncio.client import connect

from spades.cluster.relay import CALL_TIMEOUT

pytestmark = pytest.mark.cluster_env(SPADES_LEASE_TTL="20", SPADES_FOLLOW_SOCKETS="false")


async def join(base: str, code: str, name: str, join_id: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        return await http.post(f"/api/rooms/{code}/join", json={"name": name, "join_id": join_id})


async def humans(base: str, code: str) -> list[int]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        room: dict[str, Any] = (await http.get(f"/api/rooms/{code}")).json()
    return [s["seat"] for s in room["seats"] if s["kind"] == "human"]


async def paused_for(node: Any, seconds: float, during: Any) -> Any:
    """Run `during` while `node` is stopped for `seconds`; its result."""
    node.signal(signal.SIGSTOP)
    task = asyncio.ensure_future(during)
    try:
        await asyncio.sleep(seconds)
    finally:
        node.signal(signal.SIGCONT)
    return await task


async def test_a_join_asked_again_gets_the_same_seat(cluster: Cluster) -> None:
    owner, edge = cluster.nodes[0], cluster.nodes[1]
    made = await post(owner.url, "/api/rooms", {"name": "host"})
    code = made["code"]
    assert cluster.owner_of(code) is owner

    # Paused past the edge's first wait, not its second: the edge's second ask is answered
    # from the room's memory of the first, which the owner did complete.
    first_id = secrets.token_urlsafe(16)
    started = time.monotonic()
    answer = await paused_for(owner, CALL_TIMEOUT + 2, join(edge.url, code, "ann", first_id))
    assert answer.status_code == 200, answer.text
    assert time.monotonic() - started > CALL_TIMEOUT
    ann = answer.json()
    assert await humans(owner.url, code) == [0, ann["seat"]]

    # Paused past both: 503. The owner seated the player meanwhile; the client asks again
    # with its join id and gets that seat and its token, not another seat.
    second_id = secrets.token_urlsafe(16)
    lost = await paused_for(owner, 2 * CALL_TIMEOUT + 2, join(edge.url, code, "bob", second_id))
    assert lost.status_code == 503, lost.text
    deadline = time.monotonic() + 15
    while len(seated := await humans(owner.url, code)) < 3:  # the owner catches up
        assert time.monotonic() < deadline, seated
        await asyncio.sleep(0.1)
    assert len(seated) == 3  # taken by the join whose answer was lost
    again = await join(edge.url, code, "bob", second_id)
    assert again.status_code == 200, again.text
    bob = again.json()
    assert bob["seat"] in seated and bob["seat"] != ann["seat"]
    assert await humans(owner.url, code) == seated
    # The token is the seat's: it says hello as that seat.
    async with connect(ws_url(edge.url, code)) as ws:
        await ws.send(json.dumps({"type": "hello", "token": bob["token"], "id": 1}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if message["type"] == "state":
                assert message["room"]["you"] == bob["seat"]
                break
            assert message["type"] != "error", message
    # Another join id is another join.
    third = await join(edge.url, code, "cy", secrets.token_urlsafe(16))
    assert third.status_code == 200 and third.json()["seat"] not in seated
