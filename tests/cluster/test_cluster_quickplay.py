"""Quick play across a cluster: the queue lives in Redis, so players queued on different
processes are seated together, a process killed with players queued loses none of them,
and each seat is handed out by whichever process is polled (again to the same player, for
a while: an answer lost is no seat lost), a poll that waits on one process being answered
when the other seats its player. Then the queue itself, two `RedisQueue`s on one Redis as
two processes: a group claimed by a process that died is queued again after its deadline,
an entry nobody polls expires, and a player queues once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import signal
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster_support import REDIS_URL, Cluster, post, ws_url
from websockets.asyncio.client import connect

from spades.cluster.quickplay import RedisQueue
from spades.rooms.quickplay import Entry, Group, Seated, Waiting

HEADER = "X-Spades-Player"
POLLS = 600  # a guard against a hang, not a timing assertion


@pytest.fixture
def pair(database_url: str, tmp_path: Path) -> Iterator[Cluster]:
    """Two processes (and HAProxy) on one PostgreSQL and one Redis."""
    cluster = Cluster(database_url, tmp_path, size=2, env={"SPADES_QUICKPLAY_TICK": "0.2"})
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def call(base: str, method: str, player: dict[str, Any], body: Any = None) -> Any:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        headers = {HEADER: player["credential"]}
        return await http.request(method, "/api/quickplay", headers=headers, json=body)


async def seat_of(base: str, player: dict[str, Any]) -> dict[str, Any]:
    for _ in range(POLLS):
        response = await call(base, "GET", player)
        assert response.status_code == 200, response.text
        state: dict[str, Any] = response.json()
        if state["status"] == "matched":
            return state
        await asyncio.sleep(0.1)
    raise AssertionError("never seated")


async def test_players_queued_on_two_processes_sit_together_though_one_died(
    pair: Cluster,
) -> None:
    one, two = (node.url for node in pair.nodes)
    players = [await post(one, "/api/players", {"name": n}) for n in ("Ann", "Bob", "Cy", "Di")]
    body = {"mode": "partnership", "target": 300}
    for player in players[:3]:
        assert (await call(one, "POST", player, body)).status_code == 200
    waiting = (await call(two, "GET", players[0])).json()  # any process knows the queue
    assert waiting["status"] == "waiting" and waiting["waiting"] == 3
    pair.nodes[0].signal(signal.SIGKILL)  # the process they queued on dies
    pair.nodes[0].wait_exit()
    joined = (await call(two, "POST", players[3], body)).json()
    assert joined["status"] in ("waiting", "seating")
    seats = [await seat_of(two, p) for p in players]
    assert len({s["code"] for s in seats}) == 1 and all(s["rated"] for s in seats)
    assert sorted(s["seat"] for s in seats) == [0, 1, 2, 3]
    again = await call(two, "GET", players[0])  # (its answer lost) the same seat again
    assert again.status_code == 200 and again.json() == seats[0]
    async with connect(ws_url(pair.url, seats[1]["code"]), ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": seats[1]["token"]}))
        state = json.loads(await ws.recv())
        while state["type"] != "state":
            state = json.loads(await ws.recv())
    assert state["room"]["you"] == seats[1]["seat"]
    assert state["room"]["settings"]["rated"] is True


@pytest.fixture
def sleepy_pair(database_url: str, tmp_path: Path) -> Iterator[Cluster]:
    """Two processes whose matchers look only when a player joins them (a tick of an hour),
    and whose polls may wait for five minutes (an expiry of ten)."""
    env = {"SPADES_QUICKPLAY_TICK": "3600", "SPADES_QUICKPLAY_EXPIRE": "600"}
    cluster = Cluster(database_url, tmp_path, size=2, env=env)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def test_a_poll_waiting_on_one_process_hears_the_table_the_other_made(
    sleepy_pair: Cluster,
) -> None:
    one, two = (node.url for node in sleepy_pair.nodes)
    players = [await post(one, "/api/players", {"name": n}) for n in ("Ann", "Bob", "Cy", "Di")]
    body = {"mode": "individual", "target": 200}
    for player in players[:3]:
        assert (await call(one, "POST", player, body)).status_code == 200
    async with httpx.AsyncClient(base_url=two, timeout=None) as http:
        headers = {HEADER: players[0]["credential"]}
        # Waits on process two, whose matcher sleeps; only Redis can tell it of the table.
        waiting = asyncio.create_task(
            http.get("/api/quickplay", params={"wait": 300}, headers=headers)
        )
        for _ in range(POLLS):  # until the poll listens: it refreshed Ann's place
            state = (await call(two, "GET", players[1])).json()
            if waiting.done() or state["waiting"] == 3:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)  # (the poll's own first look is done by now, or soon)
        assert (await call(one, "POST", players[3], body)).status_code == 200  # one seats
        answer = await waiting
    assert answer.status_code == 200 and answer.json()["status"] == "matched"
    others = [await seat_of(one, p) for p in players[1:]]
    assert {s["code"] for s in others} == {answer.json()["code"]}


@pytest.fixture
async def queues(services: None) -> AsyncIterator[tuple[RedisQueue, RedisQueue]]:
    import redis.asyncio as aioredis

    redis = aioredis.Redis.from_url(REDIS_URL)
    prefix = f"spades-test-{secrets.token_hex(4)}:"
    try:
        yield (
            RedisQueue(redis, prefix=prefix, expire=15.0),
            RedisQueue(redis, prefix=prefix, expire=15.0),
        )
    finally:
        keys = [k async for k in redis.scan_iter(match=f"{prefix}*")]
        if keys:
            await redis.delete(*keys)
        await redis.aclose()


def entry(player: str, now: float) -> Entry:
    return Entry(player, player.title(), "partnership:200", 1500.0, now, None)


async def test_the_queue_outlives_a_process_that_dies_while_seating(
    queues: tuple[RedisQueue, RedisQueue],
) -> None:
    first, second = queues
    now = 1000.0
    names = ["ann", "bob", "cy", "di"]
    for name in names:
        assert await first.join(entry(name, now), now)
    assert not await second.join(entry("ann", now), now)  # once, across processes
    group = Group("g1", "partnership:200", tuple(entry(n, now) for n in names), bots=False)
    assert await first.claim(group, deadline=now + 10)
    assert not await second.claim(Group("g2", group.queue, group.players, False), now + 10)
    state = await second.poll("ann", now + 1)
    assert isinstance(state, Waiting) and state.seating and state.waiting == 0
    assert isinstance(await second.leave("bob", now + 1), Waiting)  # no leaving while seated
    # The first process dies here. Before the deadline the group is still held...
    assert await second.waiting("partnership:200", now + 9) == []
    for name in names:
        await second.poll(name, now + 9)  # (their clients keep polling)
    # ...after it, its players wait again, and the late process can deliver nothing.
    back = await second.waiting("partnership:200", now + 11)
    assert sorted(e.player_id for e in back) == names
    assert not await first.deliver("g1", {"ann": Seated("LATE", 0, "t", True)})
    assert await second.claim(Group("g3", group.queue, group.players, False), now + 21)
    seats = {n: Seated("ROOM", i, f"token{i}", True) for i, n in enumerate(names)}
    assert await second.deliver("g3", seats)
    assert await first.poll("cy", now + 12) == seats["cy"]
    assert await second.poll("cy", now + 12) == seats["cy"]  # again (an answer lost)
    assert await first.join(entry("cy", now + 13), now + 13)  # handed: cy moved on
    assert await first.leave("cy", now + 13) == "left"
    # An entry nobody polls is dropped after `expire`.
    assert await first.join(entry("ed", now + 12), now + 12)
    assert [e.player_id for e in await second.waiting("partnership:200", now + 20)] == ["ed"]
    assert await second.waiting("partnership:200", now + 28) == []
    assert await first.poll("ed", now + 28) is None


async def test_a_seat_waits_in_redis_sealed_with_the_cluster_secret(services: None) -> None:
    """The seat made for a queued player holds its seat token: with the cluster's secret it
    is kept sealed (bound to that player), so reading Redis gives no token, and a seat that
    some other secret sealed, or another player's, is nobody's."""
    import redis.asyncio as aioredis

    from spades.cluster.quickplay import QueueUnavailable
    from spades.cluster.seal import Seal

    redis = aioredis.Redis.from_url(REDIS_URL)
    prefix = f"spades-test-{secrets.token_hex(4)}:"
    ours = RedisQueue(redis, prefix=prefix, expire=15.0, seal=Seal("the cluster's secret"))
    theirs = RedisQueue(redis, prefix=prefix, expire=15.0, seal=Seal("another secret"))
    try:
        now = 1000.0
        names = ["ann", "bob", "cy", "di"]
        for name in names:
            assert await ours.join(entry(name, now), now)
        group = Group("g1", "partnership:200", tuple(entry(n, now) for n in names), bots=False)
        assert await ours.claim(group, deadline=now + 10)
        seats = {n: Seated("ROOM", i, f"secret-token-{i}", True) for i, n in enumerate(names)}
        assert await ours.deliver("g1", seats)
        stored = [await redis.hget(ours.seat_key(n), "seat") for n in names]
        assert all(s is not None and b"secret-token" not in s and b"ROOM" not in s for s in stored)
        with pytest.raises(QueueUnavailable):
            await theirs.poll("ann", now + 1)
        # A sealed seat moved under another player's key opens for nobody.
        await redis.hset(ours.seat_key("bob"), "seat", stored[0])
        with pytest.raises(QueueUnavailable):
            await ours.poll("bob", now + 1)
        assert await ours.poll("cy", now + 1) == seats["cy"]
    finally:
        keys = [k async for k in redis.scan_iter(match=f"{prefix}*")]
        if keys:
            await redis.delete(*keys)
        await redis.aclose()


async def test_a_handed_seat_is_forgotten_after_its_time(services: None) -> None:
    import redis.asyncio as aioredis

    redis = aioredis.Redis.from_url(REDIS_URL)
    prefix = f"spades-test-{secrets.token_hex(4)}:"
    queue = RedisQueue(redis, prefix=prefix, expire=15.0, seat_again=0.05)
    try:
        assert await queue.join(entry("ann", 1000.0), 1000.0)
        group = Group("g", "partnership:200", (entry("ann", 1000.0),), bots=True)
        assert await queue.claim(group, 1010.0)
        seat = Seated("ROOM", 0, "token", False)
        assert await queue.deliver("g", {"ann": seat})
        assert not await queue.join(entry("ann", 1001.0), 1001.0)  # not handed yet: held
        assert await queue.poll("ann", 1001.0) == seat
        for _ in range(POLLS):  # (a guard, not a timing assertion)
            if await queue.poll("ann", 1001.0) is None:
                break
            await asyncio.sleep(0.02)
        assert await queue.poll("ann", 1001.0) is None
    finally:
        keys = [k async for k in redis.scan_iter(match=f"{prefix}*")]
        if keys:
            await redis.delete(*keys)
        await redis.aclose()


async def test_a_table_made_by_one_process_is_heard_by_the_others(
    queues: tuple[RedisQueue, RedisQueue],
) -> None:
    first, second = queues
    heard: list[list[str]] = []
    told = asyncio.Event()

    def notify(players: Sequence[str]) -> None:
        heard.append(list(players))
        told.set()

    listening = asyncio.create_task(second.watch(notify))
    try:
        for _ in range(POLLS):  # until it has subscribed
            if (await first.redis.pubsub_numsub(first.channel))[0][1]:
                break
            await asyncio.sleep(0.02)
        names = ["ann", "bob"]
        for name in names:
            assert await first.join(entry(name, 1000.0), 1000.0)
        group = Group("g", "partnership:200", tuple(entry(n, 1000.0) for n in names), False)
        assert await first.claim(group, 1010.0)
        assert await first.deliver(
            "g", {n: Seated("ROOM", i, "t", True) for i, n in enumerate(names)}
        )
        await asyncio.wait_for(told.wait(), 60)  # (a guard against a hang)
        assert heard == [names]
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening
