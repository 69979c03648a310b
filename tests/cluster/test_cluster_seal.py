"""Redis as a guarded boundary (issue 58): what the processes of a cluster send each other
over pub/sub is sealed with the cluster secret. Nothing readable crosses Redis (no seat
token, no hand), and a frame published by a Redis client that is not a process of the
cluster (forged in clear, sealed with another secret, or a sealed one replayed on another
channel) is refused unread."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from typing import Any

import pytest
from cluster_support import REDIS_URL, Cluster, post, ws_url
from websockets.asyncio.client import connect

from spades.cluster import seal as seal_module
from spades.cluster.seal import Seal


def test_a_sealed_message_opens_only_with_its_secret_on_its_channel_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seal, other = Seal("s3cret-one"), Seal("s3cret-two")
    payload = b'{"t":"f","c":1,"m":{"type":"hello","token":"abc"}}'
    sealed = seal.close(payload, "p:relay:n1")
    assert b"abc" not in sealed and b"hello" not in sealed
    assert seal.open(sealed, "p:relay:n1") == payload
    assert seal.open(sealed, "p:relay:n2") is None  # replayed on another channel
    assert other.open(sealed, "p:relay:n1") is None  # another secret
    assert seal.open(payload, "p:relay:n1") is None  # in clear
    tampered = sealed[:-1] + bytes([sealed[-1] ^ 1])
    assert seal.open(tampered, "p:relay:n1") is None
    later = time.time() + seal_module.WINDOW + 1
    monkeypatch.setattr(seal_module.time, "time", lambda: later)  # replayed too late
    assert seal.open(sealed, "p:relay:n1") is None
    assert seal.refused == 4 and other.refused == 1


@pytest.mark.cluster_env(SPADES_FOLLOW_SOCKETS="false")  # the player's socket is relayed
async def test_nothing_readable_crosses_redis_and_forged_frames_are_refused(
    cluster: Cluster,
) -> None:
    import redis.asyncio as aioredis

    owner, edge = cluster.nodes[0], cluster.nodes[1]
    made = await post(owner.url, "/api/rooms", {"name": "host"})
    code, token = made["code"], made["token"]
    spy = aioredis.Redis.from_url(REDIS_URL)
    listening = spy.pubsub()
    await listening.psubscribe(f"{cluster.prefix}relay:*")
    captured: list[tuple[bytes, bytes]] = []
    try:
        # A relayed player: its hello (with its token) and its states cross Redis.
        async with connect(ws_url(edge.url, code)) as ws:
            await ws.send(json.dumps({"type": "hello", "token": token, "id": 1}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if message["type"] == "state":
                    assert message["room"]["you"] == 0
                    break
        while (item := await listening.get_message(timeout=1)) is not None:
            if item["type"] == "pmessage":
                captured.append((item["channel"], item["data"]))
        assert captured, "nothing was relayed"
        for _, data in captured:
            assert data.startswith(b"S1") and token.encode() not in data
            with pytest.raises(ValueError):
                json.loads(data)

        # A forger attaches as the seat with the token it learnt elsewhere: in clear,
        # sealed with a guess, and a captured sealed message replayed on its way back.
        forger = f"{cluster.prefix}relay:forger"
        answers = spy.pubsub()
        await answers.subscribe(forger)
        target = f"{cluster.prefix}relay:{owner_name(cluster, owner.index)}"
        frames: list[dict[str, Any]] = [
            {"t": "a", "c": 7, "room": code, "addr": "6.6.6.6", "e": "forger"},
            {"t": "f", "c": 7, "m": {"type": "hello", "token": token, "id": 1}, "e": "forger"},
            {"t": "q", "r": 1, "room": code, "op": "yield", "args": [], "e": "forger"},
        ]
        guess = Seal("not-the-secret")
        for frame in frames:
            raw = json.dumps(frame).encode()
            await spy.publish(target, raw)
            await spy.publish(target, guess.close(raw, target))
        for channel, data in captured:
            if channel.decode() != target:  # an owner's message to the edge, sent to the owner
                await spy.publish(target, data)
        # The owner answers none of it (the room is not handed over either) and says so.
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            item = await answers.get_message(timeout=0.5)
            assert item is None or item["type"] == "subscribe", item
        assert cluster.owner_of(code) is owner
        assert "was refused" in owner.log.read_text()
        await answers.aclose()
    finally:
        await listening.aclose()
        await spy.aclose()


def owner_name(cluster: Cluster, index: int) -> str:
    """The node's holder name, as it lists itself among the live processes."""
    import redis

    for key in redis.Redis.from_url(REDIS_URL).smembers(f"{cluster.prefix}nodes"):
        name = key.decode()
        if name.startswith(f"n{index}-"):
            return name
    raise AssertionError(f"node {index} not found")


def test_a_secret_is_needed_to_seal() -> None:
    with pytest.raises(ValueError):
        Seal("")
    assert secrets.compare_digest(Seal("x").open(Seal("x").close(b"hi", "c"), "c") or b"", b"hi")
