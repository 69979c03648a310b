"""Whether this process of a cluster can serve: what `/readyz` says in cluster mode.

Redis: a process that cannot reach it drops its rooms within one lease ttl (their leases
can no longer be renewed) and can claim none, so every socket HAProxy sends it gets 4012
and every room call 503 while its peers run those rooms. It reports not ready once Redis
has not answered it for `redis_grace` (twice the lease ttl and two seconds: by then it has
told every socket it holds to reconnect, those of its own rooms after a ttl, those it
relays once a check of their owners has failed for a ttl, a check waiting up to a pool wait
and a socket timeout; so HAProxy's cut, `on-marked-down shutdown-sessions`, finds no
socket that was not told 4012 first), and HAProxy takes it out of the pool until it
answers again (HAProxy's `rise`). When Redis is away for every
process, all of them leave the pool: they could serve no room anyway.

PostgreSQL: one database serves every process, so an outage of the database itself would
take every process out of the pool at once and cut every socket (HAProxy's
`on-marked-down shutdown-sessions`), where players otherwise see `storage_error` on a move
and play on from the same seq when it is back. So a process says the database is out of
its reach only while a live peer says it reaches it: each process writes a key with a short
expiry on every successful ping, and one whose own pings have failed for `DB_GRACE`
seconds looks for a peer's. Then the fault is this process's own (its network, its
connections), and new players are better served elsewhere.

The checks run on a timer, on a Redis connection of their own (a burst on the shared pool
must not make a busy process look unreachable); `/readyz` only reads their outcome.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

CHECK_TIMEOUT = 2.0  # a Redis ping that takes longer has failed
DB_TIMEOUT = 5.0  # a database ping that takes longer has failed
# Seconds of failed database pings before a peer's word is asked: long enough that a busy
# moment (a burst of claims after a failover) never takes a process out, which would cut
# every socket it holds.
DB_GRACE = 10.0
DB_KEY_MS = 3000  # a peer's "I reach the database" lives this long after its last good ping


class Health:
    def __init__(
        self,
        redis_url: str,
        *,
        prefix: str,
        node_id: str,
        nodes_key: str,
        ttl: float,
        db_ping: Callable[[], Awaitable[bool]],
    ) -> None:
        import redis.asyncio as aioredis

        self.redis: Any = aioredis.Redis.from_url(
            redis_url,
            max_connections=2,
            socket_timeout=CHECK_TIMEOUT,
            socket_connect_timeout=CHECK_TIMEOUT,
        )
        self.prefix = prefix
        self.node_id = node_id
        self.nodes_key = nodes_key
        self.ttl = ttl
        self.every = min(0.5, ttl / 3)
        self.redis_grace = 2 * ttl + 2.0
        self._db_ping = db_ping
        now = time.monotonic()
        self.redis_ok_at = now
        self.db_ok_at = now
        self.db_own_fault = False  # the database is out of reach here, and a peer reaches it

    def db_key(self, node: str) -> str:
        return f"{self.prefix}db-ok:{node}"

    def problem(self) -> str | None:
        """Why this process should not get new requests now, or None."""
        now = time.monotonic()
        if now - self.redis_ok_at > self.redis_grace:
            return "redis"
        if self.db_own_fault:
            return "database"
        return None

    async def check_redis(self) -> None:
        now = time.monotonic()
        try:
            await asyncio.wait_for(self.redis.ping(), CHECK_TIMEOUT)
        except Exception as exc:
            if now - self.redis_ok_at > self.redis_grace:
                log.warning(
                    "redis out of reach for %.1f s: not ready (%r)", now - self.redis_ok_at, exc
                )
            return
        self.redis_ok_at = now

    async def check_db(self) -> None:
        now = time.monotonic()
        try:
            db_ok = await asyncio.wait_for(self._db_ping(), DB_TIMEOUT)
        except Exception:
            db_ok = False
        if db_ok:
            self.db_ok_at, self.db_own_fault = now, False
            # Shorter-lived than DB_GRACE: when the database goes away for everyone, every
            # peer's key has lapsed before anyone asks.
            await self.redis.set(self.db_key(self.node_id), "1", px=DB_KEY_MS)
            return
        if now - self.db_ok_at < DB_GRACE:
            return
        members = [
            m.decode() if isinstance(m, bytes) else m
            for m in await self.redis.smembers(self.nodes_key)
        ]
        peers = [m for m in members if m != self.node_id]
        reached = any(await self.redis.mget([self.db_key(m) for m in peers])) if peers else False
        if reached and not self.db_own_fault:
            log.warning("the database is out of reach here, not for a peer: not ready")
        self.db_own_fault = reached

    async def run(self) -> None:
        """Both checks, each on its own timer: a database that hangs must not hold up the
        Redis check (nor make this process look cut off from Redis)."""
        await asyncio.gather(self._every(self.check_redis), self._every(self.check_db))

    async def _every(self, check: Callable[[], Awaitable[None]]) -> None:
        while True:
            try:
                await check()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis went between two calls: the next round says
                log.debug("health check: %r", exc)
            await asyncio.sleep(self.every)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.redis.aclose()
