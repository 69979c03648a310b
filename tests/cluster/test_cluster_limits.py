"""Per-address limits counted in a real Redis, shared by every process of a cluster.

Each test uses a random key prefix (parallel runs do not meet) and removes its keys. Time
is injected where a test needs the window to move. Skipped when no Redis answers, except
under CI=true, where that fails instead.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from spades.cluster.limits import RedisAddressLimiter, RedisLimiter, RedisSocketCounter

REDIS_URL = os.environ.get("SPADES_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


class FakeTime:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def redis() -> AsyncIterator[Redis]:
    client = Redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        await client.ping()
    except Exception as exc:
        await client.aclose()
        reason = f"Redis unreachable at {REDIS_URL}: {exc!r}"
        if in_ci():
            pytest.fail(f"CI=true requires Redis: {reason}")
        pytest.skip(reason)
    yield client
    await client.aclose()


@pytest.fixture
async def prefix(redis: Redis) -> AsyncIterator[str]:
    chosen = f"spades-test:{secrets.token_hex(6)}:"
    yield chosen
    keys = [k async for k in redis.scan_iter(match=chosen + "*")]
    if keys:
        await redis.delete(*keys)


@pytest.fixture
def clock() -> FakeTime:
    return FakeTime()


async def test_window_counts_per_address(redis: Redis, prefix: str, clock: FakeTime) -> None:
    limiter = RedisAddressLimiter(redis, 3, name="join", prefix=prefix, clock=clock)
    assert [await limiter.allow("10.0.0.1") for _ in range(4)] == [True, True, True, False]
    assert await limiter.allow("10.0.0.2")  # another address has its own count
    assert await limiter.allow("::1")  # IPv6 addresses make fine keys


async def test_window_slides(redis: Redis, prefix: str, clock: FakeTime) -> None:
    limiter = RedisAddressLimiter(redis, 2, name="create", prefix=prefix, clock=clock)
    assert await limiter.allow("a")
    clock.now += 30
    assert await limiter.allow("a")
    assert not await limiter.allow("a")  # refused, and a refusal is not counted
    clock.now += 30  # the first event is 60 s old: out of the window
    assert await limiter.allow("a")
    assert not await limiter.allow("a")
    clock.now += 29.9  # the second is 59.9 s old: still in
    assert not await limiter.allow("a")
    clock.now += 0.1
    assert await limiter.allow("a")


async def test_processes_share_one_count(redis: Redis, prefix: str) -> None:
    """Two limiters on the same prefix (two processes), on the Redis server's clock."""
    one = RedisAddressLimiter(redis, 4, name="connect", prefix=prefix)
    two = RedisAddressLimiter(redis, 4, name="connect", prefix=prefix)
    allowed = [await (one if i % 2 else two).allow("1.2.3.4") for i in range(6)]
    assert allowed == [True, True, True, True, False, False]
    other_kind = RedisAddressLimiter(redis, 4, name="join", prefix=prefix)
    assert await other_kind.allow("1.2.3.4")  # each limit counts on its own
    ttl = await redis.pttl(f"{prefix}connect:1.2.3.4")
    assert 0 < ttl <= 60_000  # quiet addresses leave nothing behind


async def test_sockets_are_capped_across_processes(
    redis: Redis, prefix: str, clock: FakeTime
) -> None:
    one = RedisSocketCounter(redis, 3, prefix=prefix, clock=clock)
    two = RedisSocketCounter(redis, 3, prefix=prefix, clock=clock)
    assert await one.acquire("a") and await two.acquire("a") and await one.acquire("a")
    assert not await two.acquire("a")
    assert (one.held("a"), two.held("a")) == (2, 1)
    assert await two.acquire("b")  # per address
    await one.release("a")
    assert await two.acquire("a")
    assert not await one.acquire("a")
    await one.release("zzz")  # nothing held there: ignored
    assert await redis.zcard(f"{prefix}sockets:a") == 3


async def test_holds_of_a_dead_process_lapse(redis: Redis, prefix: str, clock: FakeTime) -> None:
    living = RedisSocketCounter(redis, 2, prefix=prefix, ttl=60, clock=clock)
    dead = RedisSocketCounter(redis, 2, prefix=prefix, ttl=60, clock=clock)
    assert await living.acquire("a") and await dead.acquire("a")
    assert not await living.acquire("a")
    clock.now += 40
    await living.renew()  # the dead one renews nothing
    clock.now += 40  # 80 s: the dead hold lapsed, the renewed one lives
    assert await living.acquire("a")
    assert not await living.acquire("a")
    assert living.held("a") == 2
    await living.release_all()
    assert await redis.zcard(f"{prefix}sockets:a") == 0


async def test_renew_does_not_revive_a_released_hold(
    redis: Redis, prefix: str, clock: FakeTime
) -> None:
    counter = RedisSocketCounter(redis, 1, prefix=prefix, clock=clock)
    assert await counter.acquire("a")
    await counter.release("a")
    await counter.renew()
    assert await redis.zcard(f"{prefix}sockets:a") == 0
    assert await counter.acquire("a")


async def test_redis_limiter_calls(redis: Redis, prefix: str, clock: FakeTime) -> None:
    limiter = RedisLimiter(
        redis,
        rooms_per_minute=1,
        joins_per_minute=2,
        connects_per_minute=3,
        sockets_per_address=1,
        prefix=prefix,
        clock=clock,
    )
    assert [await limiter.allow("create", "a") for _ in range(2)] == [True, False]
    assert [await limiter.allow("join", "a") for _ in range(3)] == [True, True, False]
    assert [await limiter.allow("connect", "a") for _ in range(4)] == [True] * 3 + [False]
    limiter.start()
    assert await limiter.hold("a")
    assert not await limiter.hold("a")
    await limiter.stop()  # gives back this process's holds
    assert await limiter.hold("a")
    await limiter.release("a")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_unreachable_redis_lets_requests_through(prefix: str) -> None:
    gone = Redis.from_url(f"redis://127.0.0.1:{closed_port()}/0", socket_connect_timeout=1)
    try:
        assert await RedisAddressLimiter(gone, 1, prefix=prefix).allow("a")
        assert not await RedisAddressLimiter(gone, 1, prefix=prefix, fail_open=False).allow("a")
        sockets = RedisSocketCounter(gone, 1, prefix=prefix)
        assert await sockets.acquire("a") and sockets.held("a") == 1
        await sockets.release("a")
        assert sockets.held("a") == 0
        strict = RedisSocketCounter(gone, 1, prefix=prefix, fail_open=False)
        assert not await strict.acquire("a")
    finally:
        await gone.aclose()
