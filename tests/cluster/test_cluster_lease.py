"""Room leases on a real Redis: claim, hand over, release, and the fencing numbers."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from cluster_support import REDIS_URL, redis_unreachable
from sqlalchemy import text

from ci_env import skip_or_fail
from spades.cluster.lease import RedisOwnership, holder_of
from spades.cluster.node import fair_share


@pytest.fixture
async def redis() -> AsyncIterator[object]:
    reason = redis_unreachable()
    if reason is not None:
        skip_or_fail(f"the lease tests need Redis: {reason}")
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(REDIS_URL)
    yield client
    keys = [key async for key in client.scan_iter(match=f"{PREFIX}*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


PREFIX = f"spades-test-lease-{secrets.token_hex(4)}:"


def _node(redis: object, prefix: str, name: str) -> RedisOwnership:
    return RedisOwnership(redis, prefix=prefix, node_id=name, ttl=5.0)


async def test_a_handed_over_lease_goes_to_the_asker_and_to_no_one_else(redis: object) -> None:
    prefix = PREFIX
    a, b, c = (_node(redis, prefix, name) for name in ("a-1", "b-1", "c-1"))
    assert await a.claim("ROOM01") == 1
    assert await b.claim("ROOM01") is None

    await a.hand_over("ROOM01", b.node_id)
    assert "ROOM01" not in a.held
    assert await a.owner_of("ROOM01") == "b-1"
    # Between the hand-over and the asker's claim, a third process (an orphan sweep)
    # finds the lease taken, and so does the old owner.
    assert await c.claim("ROOM01") is None
    assert await a.claim("ROOM01") is None
    # The asker takes it with a newer fencing number: the old owner's writes are refused.
    assert await b.claim("ROOM01") == 2
    assert b.held["ROOM01"] == "b-1|2"

    await b.release("ROOM01")
    assert await c.claim("ROOM01") == 3


async def test_a_hand_over_of_a_lease_no_longer_held_changes_nothing(redis: object) -> None:
    prefix = PREFIX
    a, b, c = (_node(redis, prefix, name) for name in ("a-1", "b-1", "c-1"))
    assert await a.claim("ROOM02") == 1
    a.held["ROOM02"] = "a-1|0"  # as if a newer owner had taken it meanwhile
    await a.hand_over("ROOM02", c.node_id)
    assert await b.owner_of("ROOM02") == "a-1"
    assert await c.claim("ROOM02") is None


async def test_a_lapsed_lease_nobody_took_is_taken_again_with_its_number(redis: object) -> None:
    """The holder paused past its ttl (a full collection, SIGSTOP): the lease lapsed, but
    no other process claimed the room since, so the next renewal takes it again with the
    same fencing number and the room stays. One another process claimed meanwhile, even if
    it has let it go since, is lost (its number is behind the room's counter)."""
    prefix = f"{PREFIX}lapse:"
    a, b = (_node(redis, prefix, name) for name in ("a-1", "b-1"))
    lost: list[str] = []
    a.on_lost(lost.append)
    assert await a.claim("R1") == 1
    assert await a.claim("R2") == 1
    await redis.delete(a.lease_key("R1"), a.lease_key("R2"))  # type: ignore[attr-defined]
    assert await b.claim("R2") == 2  # taken by b, then let go: the counter moved on
    await b.release("R2")
    await a.renew_once()
    assert a.held == {"R1": "a-1|1"} and lost == ["R2"]
    assert a.retaken == 1 and a.lost == 1
    assert await a.owner_of("R1") == "a-1"
    assert 0 < await redis.pttl(a.lease_key("R1")) <= 5000  # type: ignore[attr-defined]
    assert await b.claim("R1") is None
    # Redis restarted empty: the counter is gone too. Nobody claimed since, so the lease
    # is taken again and the counter set back to its number (a later claim gets a newer).
    assert await a.claim("R3") == 1
    await redis.delete(a.lease_key("R3"), a.fence_key("R3"))  # type: ignore[attr-defined]
    await a.renew_once()
    assert a.held["R3"] == "a-1|1"
    await a.release("R3")
    assert await b.claim("R3") == 2


def test_fair_share_evens_out_the_processes() -> None:
    # Two equal survivors split a dead process's rooms; the emptier one takes more.
    assert fair_share(12, 0, [0, 0]) == 6
    assert fair_share(6, 6, [6, 0]) == 2  # the floor: half an even split of the orphans
    assert fair_share(6, 0, [6, 0]) == 6
    assert fair_share(100, 50, [50, 150]) == 100
    # A process already above its share still takes a little, so no room waits long on a
    # peer that is slow to sweep; never more than there are orphans.
    assert fair_share(10, 300, [300, 0, 0]) == 2
    assert fair_share(3, 0, [0]) == 3
    assert fair_share(0, 0, [0, 0]) == 0


async def test_loads_count_the_live_processes_and_forget_the_dead(redis: object) -> None:
    prefix = f"{PREFIX}loads:"
    a, b, c = (_node(redis, prefix, name) for name in ("a-1", "b-1", "c-1"))
    for node, rooms in ((a, 2), (b, 3), (c, 0)):
        for i in range(rooms):
            assert await node.claim(f"{node.node_id}-{i}") == 1
        await node.renew_once()
    assert await a.loads() == {"a-1": 2, "b-1": 3, "c-1": 0}
    await c.release_all()  # a stop; a kill -9 is the same one ttl later
    await b.redis.delete(b.alive_key("b-1"))  # as when b's key lapsed
    assert await a.loads() == {"a-1": 2}
    assert await redis.smembers(a.nodes_key) == {b"a-1"}  # type: ignore[attr-defined]


async def test_a_counter_behind_the_store_is_brought_up_in_one_step(
    redis: object, tmp_path: Path
) -> None:
    """Redis lost its data: the room's counter starts again at 1 while the store holds 7.
    The claim is refused (an equal or older number would leave the old owner unfenced),
    the counter is brought up to the store's number, and the claim tried again gets 8:
    one step, not one refused claim per number."""
    from spades.config import Settings
    from spades.rooms import RoomConfig, RoomManager
    from spades.store import RoomRow, SeatRow, open_store
    from spades.store.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path / 'spades.db'}"
    upgrade(url)
    store = await open_store(url)
    try:
        # (A cluster's room id is its code.)
        seats = [SeatRow("R1", 0, name="Ann", token_hash="a" * 64)] + [
            SeatRow("R1", n) for n in (1, 2, 3)
        ]
        row = RoomRow(id="R1", code="R1", settings={}, host_seat=0)
        await store.create_room(row, seats, fence=7)
        prefix = f"{PREFIX}catch-up:"
        ownership = _node(redis, prefix, "n-1")
        config = RoomConfig.pick(Settings(database_url=url, bot_delay=0.0, bot_workers="thread"))
        manager = RoomManager(store, config, ownership=ownership)
        await manager.get("R1")
        assert ownership.held["R1"] == "n-1|8"
        async with store.engine.connect() as conn:
            stored = await conn.execute(text("SELECT fence FROM rooms WHERE id = 'R1'"))
            assert stored.scalar_one() == 8
        await manager.stop()
    finally:
        await store.close()


async def test_a_sweep_lists_the_rooms_again_after_redis_lost_them(
    redis: object, tmp_path: Path
) -> None:
    """Redis restarted empty: the sweep's list of rooms (and the flag saying it was made)
    went with it. The next sweep makes it again from the store, and claims a room that
    nobody connects to (its bots and clocks would otherwise stand still for good)."""
    from cluster_support import REDIS_URL

    from spades.cluster.node import ClusterNode
    from spades.config import Settings
    from spades.rooms import RoomConfig, RoomManager
    from spades.store import RoomRow, SeatRow, open_store
    from spades.store.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path / 'spades.db'}"
    upgrade(url)
    store = await open_store(url)
    prefix = f"{PREFIX}reseed:"
    node = ClusterNode(
        REDIS_URL, prefix=prefix, node_id="s-1", lease_ttl=5.0, orphan_every=60, orphan_batch=8
    )
    try:
        seats = [SeatRow("R2", 0, name="Ann", token_hash="a" * 64)] + [
            SeatRow("R2", n) for n in (1, 2, 3)
        ]
        await store.create_room(RoomRow(id="R2", code="R2", settings={}, host_seat=0), seats)
        config = RoomConfig.pick(Settings(database_url=url, bot_delay=0.0, bot_workers="thread"))
        manager = RoomManager(store, config, ownership=node.ownership)
        await node.start(manager)
        keys = [key async for key in redis.scan_iter(match=f"{prefix}*")]  # type: ignore[attr-defined]
        await redis.delete(*keys)  # type: ignore[attr-defined]
        assert await node.sweep_once() == 1
        assert "R2" in manager.rooms
        assert await redis.sismember(node.rooms_key, "R2")  # type: ignore[attr-defined]
        await manager.stop()
    finally:
        await node.stop()
        await store.close()


async def test_a_lease_about_to_lapse_is_claimed_when_it_lapses_not_a_sweep_later(
    redis: object, tmp_path: Path
) -> None:
    """A paused owner's lease still runs when a sweep sees it, but will lapse before the
    next one: the room is claimed the moment it lapses (a paused owner's rooms are back
    within about a ttl, not a ttl plus a sweep period). One its owner renews in time is
    left alone."""
    import asyncio
    import time

    from cluster_support import REDIS_URL

    from spades.cluster.node import ClusterNode
    from spades.config import Settings
    from spades.rooms import RoomConfig, RoomManager
    from spades.store import RoomRow, SeatRow, open_store
    from spades.store.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path / 'spades.db'}"
    upgrade(url)
    store = await open_store(url)
    prefix = f"{PREFIX}lapse:"
    node = ClusterNode(
        REDIS_URL, prefix=prefix, node_id="s-1", lease_ttl=5.0, orphan_every=60, orphan_batch=8
    )
    try:
        for room in ("R3", "R4"):
            seats = [SeatRow(room, 0, name="Ann", token_hash="a" * 64)] + [
                SeatRow(room, n) for n in (1, 2, 3)
            ]
            await store.create_room(RoomRow(id=room, code=room, settings={}, host_seat=0), seats)
        config = RoomConfig.pick(Settings(database_url=url, bot_delay=0.0, bot_workers="thread"))
        manager = RoomManager(store, config, ownership=node.ownership)
        await node.start(manager)
        r: Any = redis
        for room in ("R3", "R4"):
            await r.set(node.ownership.lease_key(room), "paused-1|1", px=400)
            await r.sadd(node.rooms_key, room)
        set_at = time.monotonic()
        assert await node.sweep_once() == 0  # nothing free yet
        assert "R3" not in manager.rooms
        await asyncio.sleep(0.1)
        await r.set(node.ownership.lease_key("R4"), "paused-1|1", px=5000)  # renewed
        while "R3" not in manager.rooms and time.monotonic() - set_at < 5:
            await asyncio.sleep(0.02)
        assert "R3" in manager.rooms
        assert time.monotonic() - set_at < 2.0  # not the 60 s sweep period
        await asyncio.sleep(0.5)
        assert "R4" not in manager.rooms
        assert holder_of(await r.get(node.ownership.lease_key("R4"))) == "paused-1"
        await manager.stop()
    finally:
        await node.stop()
        await store.close()
