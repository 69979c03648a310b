"""The relay's outbox is bounded and never publishes stale messages (issue 58): while Redis
hangs (a partition: every byte held, nothing refused), messages queue; past the bound new
ones are dropped as undelivered, and those that waited a ttl are dropped too, their senders
told (a socket is told to reconnect), instead of published late once Redis answers."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import pytest
from cluster_support import REDIS_URL, redis_unreachable

from ci_env import skip_or_fail
from spades.cluster import relay as relay_module
from spades.cluster.lease import RedisOwnership
from spades.cluster.relay import Relay
from tcp_relay import RelayThread

TTL = 1.0


@pytest.fixture
async def hanging() -> AsyncIterator[tuple[RelayThread, Relay]]:
    """A relay (the cluster's) whose Redis is behind a TCP relay the test can stall."""
    reason = redis_unreachable()
    if reason is not None:
        skip_or_fail(f"the outbox test needs Redis: {reason}")
    import redis.asyncio as aioredis

    parts = urlsplit(REDIS_URL)
    tcp = RelayThread(parts.hostname or "127.0.0.1", parts.port or 6379)
    tcp.start()
    url = parts._replace(netloc=f"127.0.0.1:{tcp.port}").geturl()
    client = aioredis.Redis.from_url(url, socket_timeout=TTL / 2)
    prefix = f"spades-test-outbox-{secrets.token_hex(4)}:"
    ownership = RedisOwnership(client, prefix=prefix, node_id="edge-1", ttl=TTL)
    relay = Relay(client, prefix=prefix, ownership=ownership, manager=None)  # type: ignore[arg-type]
    await relay.start()
    try:
        yield tcp, relay
    finally:
        tcp.stall(False)
        await relay.stop()
        await client.aclose()
        tcp.close()


async def test_stale_and_excess_messages_are_dropped_not_published_late(
    hanging: tuple[RelayThread, Relay], monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis.asyncio as aioredis

    tcp, relay = hanging
    limit, excess = 3000, 500
    monkeypatch.setattr(relay_module, "OUTBOX_LIMIT", limit)
    listener = aioredis.Redis.from_url(REDIS_URL)
    pubsub = listener.pubsub()
    await pubsub.subscribe(relay.channel_of("owner-1"))
    assert (await pubsub.get_message(timeout=5))["type"] == "subscribe"  # type: ignore[index]
    told: list[int] = []
    try:
        tcp.stall(True)
        for i in range(limit + excess):
            relay.post("owner-1", {"t": "f", "c": i, "m": {}}, deaf=lambda i=i: told.append(i))
        await asyncio.sleep(0)  # the excess is told at once (on the next turn of the loop)
        assert sorted(told) == list(range(limit, limit + excess))
        assert len(relay._outbox) <= limit
        # Each batch tried waits for the socket timeout (ttl/2) and fails; the messages
        # still queued after a ttl are stale and dropped without being tried.
        await asyncio.sleep(TTL * 3)
        tcp.stall(False)
        deadline = asyncio.get_running_loop().time() + 10
        while len(told) < limit + excess:  # every message is told it was not delivered
            assert asyncio.get_running_loop().time() < deadline, len(told)
            await asyncio.sleep(0.05)
        stale = relay.dropped - excess
        assert stale >= 1000, stale
        relay.post("owner-1", {"t": "f", "c": -1, "m": {}})  # a fresh one goes out
        heard = 0
        while True:
            message = await pubsub.get_message(timeout=5)
            assert message is not None, "the fresh message never came"
            if message["type"] == "message":
                if b'"c":-1' in message["data"]:
                    break
                heard += 1
        # Only batches that were tried (their bytes held by the hung link, delivered once
        # it moves again) can arrive late: never a stale one, never an excess one.
        assert heard <= limit - stale, (heard, stale)
    finally:
        await pubsub.aclose()
        await listener.aclose()
