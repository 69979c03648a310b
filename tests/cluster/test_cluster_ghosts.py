"""No ghost connections (issue 58): a relayed socket that closes while the owner's pub/sub
subscription is being made again (the edge's `detach` reaches no subscriber and is lost)
still leaves its room: the seat's grace period starts and a bot moves for it, and ghost
spectators do not fill the spectator cap.

The owner's subscription is cut with `CLIENT KILL ID`, again and again, for the connections
named after the owner (`CLIENT SETNAME spades:<node>`) on this test's Redis db only, so the
other suites sharing the Redis server are not touched."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from cluster_support import RECV_LIMIT, REDIS_URL, Cluster, Node, Player, post, ws_url
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from spades.codes import CloseCode, ErrorCode
from wire import receive

CAP = 2  # spectators per room


@pytest.fixture
def pair(database_url: str, tmp_path: Path) -> Iterator[Cluster]:
    """Two processes; sockets stay where they land (relayed), a short grace period."""
    env = {
        "SPADES_FOLLOW_SOCKETS": "false",
        "SPADES_GRACE_SECONDS": "1",
        "SPADES_SPECTATORS_PER_ROOM": str(CAP),
    }
    cluster = Cluster(database_url, tmp_path, size=2, env=env)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


class SubscriptionCutter:
    """Kills `node`'s pub/sub connections (and nobody else's) until stopped."""

    def __init__(self, node: Node) -> None:
        import redis

        self.redis = redis.Redis.from_url(REDIS_URL)
        self.db = int(urlsplit(REDIS_URL).path.strip("/") or 0)
        self.name = f"spades:n{node.index}-"
        self.killed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for client in self.redis.client_list(_type="pubsub"):
                if client.get("name", "").startswith(self.name) and int(client["db"]) == self.db:
                    self.killed += self.redis.client_kill_filter(_id=client["id"])
            time.sleep(0.005)

    def __enter__(self) -> SubscriptionCutter:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)


async def until_state(ws: ClientConnection, test: Any) -> dict[str, Any]:
    """The state the client holds (states and events applied) once `test` holds for it."""
    held: dict[str, Any] | None = None
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), RECV_LIMIT))
        assert message["type"] != "error", message
        if message["type"] in ("state", "event"):
            held = receive(held, message)
            if test(held):
                return held


async def spectator_sees(base: str, code: str, test: Any) -> dict[str, Any]:
    """A spectator that gets in (one refused as crowded tries again): the first state it
    is sent for which `test` holds."""
    deadline = time.monotonic() + RECV_LIMIT
    while True:
        assert time.monotonic() < deadline, "never let in, or never saw it"
        try:
            async with connect(ws_url(base, code)) as ws:
                await ws.send(json.dumps({"type": "hello", "token": None, "id": 1}))
                held: dict[str, Any] = {}
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), RECV_LIMIT))
                    if message["type"] == "error":
                        assert message["code"] == ErrorCode.ROOM_CROWDED, message
                        continue
                    if message["type"] in ("state", "event"):
                        held["seq"] = message.get("seq", held.get("seq"))
                        if message["type"] == "state" and test(message):
                            return message
                        if message["type"] == "event" and test(held):
                            return held
        except ConnectionClosed as exc:
            assert exc.rcvd is not None and exc.rcvd.code == CloseCode.CROWDED, exc
            await asyncio.sleep(0.2)


async def test_a_relayed_player_who_left_unheard_is_taken_over_by_a_bot(pair: Cluster) -> None:
    owner, edge = pair.nodes
    made = await post(owner.url, "/api/rooms", {"name": "host"})
    code = made["code"]
    assert pair.owner_of(code) is owner
    host = await connect(ws_url(edge.url, code))  # relayed: the room stays on the owner
    await host.send(json.dumps({"type": "hello", "token": made["token"], "id": 1}))
    await host.send(json.dumps({"type": "start", "id": 2}))
    # Bots fill the other seats and play at once: wait for the host's turn.
    turn = await until_state(host, lambda m: m["view"] is not None and m["view"]["legal"])
    spectators = []
    for _ in range(CAP):  # relayed too, and filling the cap
        ws = await connect(ws_url(edge.url, code))
        await ws.send(json.dumps({"type": "hello", "token": None, "id": 1}))
        await until_state(ws, lambda m: True)
        spectators.append(ws)

    with SubscriptionCutter(owner) as cutter:
        while not cutter.killed:
            await asyncio.sleep(0.01)
        for ws in [host, *spectators]:
            await ws.close()
        await asyncio.sleep(1.0)  # every detach is published to nobody meanwhile
    assert cutter.killed

    # The host's seat is let go: after its grace period a bot plays for it, and the ghost
    # spectators left their places (a spectator on the owner gets in and sees the move).
    moved = await spectator_sees(owner.url, code, lambda m: m["seq"] > turn["seq"])
    assert moved["seq"] > turn["seq"]
    room = (await asyncio.to_thread(_get_json, f"{owner.url}/api/rooms/{code}"))["seats"]
    assert not room[0]["connected"]


def _get_json(url: str) -> Any:
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


@pytest.mark.cluster_env(SPADES_LEASE_TTL="6", SPADES_FOLLOW_SOCKETS="false")
async def test_an_owner_paused_past_the_heartbeat_expiry_keeps_its_relayed_sockets(
    cluster: Cluster,
) -> None:
    """The owner is paused (SIGSTOP) for longer than a relayed connection may stay silent
    (4 heartbeats of 1 s at this ttl) but not past its leases (renewed every 0.5 s, ttl
    6 s). The edge's heartbeats sent meanwhile wait in Redis; the owner must not close the
    relayed sockets for a silence that was its own."""
    owner, edge = cluster.nodes[0], cluster.nodes[1]
    made = await post(owner.url, "/api/solo", {"name": "south", "target": 100})
    code = made["code"]
    player = Player(owner.url, code, made["token"], think=0.15)
    game = asyncio.create_task(player.play())
    async with connect(ws_url(edge.url, code)) as watcher:  # relayed
        await watcher.send(json.dumps({"type": "hello", "token": None, "id": 1}))
        seen = await until_state(watcher, lambda m: m["seq"] >= 2)
        owner.signal(signal.SIGSTOP)
        try:
            await asyncio.sleep(4.5)
        finally:
            owner.signal(signal.SIGCONT)
        # The watcher follows the game on: no 4012, later actions arrive.
        later = await follow(watcher, seen["seq"] + 8)
        assert later >= seen["seq"] + 8
    assert cluster.owner_of(code) is owner
    game.cancel()
    assert not player.close_codes, player.failures


async def follow(ws: ClientConnection, seq: int) -> int:
    """Read until an action at `seq` or later (events and states): that seq."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), RECV_LIMIT))
        assert message["type"] != "error", message
        if message["type"] in ("state", "event") and message["seq"] >= seq:
            return int(message["seq"])
