"""One process of a cluster: its Redis client, its leases, its relay, the orphan sweep, drain.

The API layer builds a `ClusterNode` when `SPADES_REDIS_URL` is set and hands its
`ownership` to the RoomManager; without Redis nothing here runs (one process owns all).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import random
import re
import secrets
import socket
import time
from typing import Any

from spades.config import Settings
from spades.rooms import Room, RoomError, RoomManager

from .health import Health
from .lease import RedisOwnership
from .limits import RedisLimiter
from .links import RelayedRoom
from .relay import Relay
from .seal import Seal

log = logging.getLogger(__name__)

REDIS_CONNECTIONS = 64  # per process; pub/sub listeners hold one each
LIMITER_CONNECTIONS = 32  # per process, for the per-address limits
STOP_WAIT_SECONDS = 3.0  # how long stopping waits for its own tasks


def node_name(configured: str) -> str:
    """The holder name of this process: the configured id (or host:pid) plus a random part,
    so a restarted process never mistakes its predecessor's leases for its own."""
    base = configured or f"{socket.gethostname()}-{os.getpid()}"
    return f"{base}-{secrets.token_hex(3)}"


def client_name(node: str, job: str = "") -> str:
    """The name a process's Redis connections carry (`CLIENT SETNAME` takes no spaces)."""
    safe = re.sub(r"[^A-Za-z0-9._:-]", "_", node)
    return f"spades:{safe}" + (f":{job}" if job else "")


def redis_limiter(settings: Settings) -> RedisLimiter:
    """The per-address limits of a cluster, counted in Redis (the API's Guard asks it)."""
    import redis.asyncio as aioredis

    # Blocking, like the node's pool: 4,000 sockets opening at once waited for a connection
    # instead of failing past redis-py's default of 100 ("not limiting meanwhile").
    pool = aioredis.BlockingConnectionPool.from_url(
        settings.redis_url,
        max_connections=LIMITER_CONNECTIONS,
        timeout=2.0,
        socket_timeout=2.0,
        socket_connect_timeout=2.0,
    )
    return RedisLimiter(
        aioredis.Redis(connection_pool=pool),
        rooms_per_minute=settings.rooms_per_minute,
        joins_per_minute=settings.joins_per_minute,
        connects_per_minute=settings.joins_per_minute,
        sockets_per_address=settings.sockets_per_address,
        lookups_per_minute=settings.lookups_per_minute,
        login_failures_per_minute=settings.login_failures_per_minute,
        account_login_failures_per_minute=settings.account_login_failures_per_minute,
        prefix=f"{settings.redis_prefix}limits:",
    )


def fair_share(orphans: int, mine: int, loads: list[int]) -> int:
    """How many of `orphans` rooms this process (holding `mine`) should claim in one sweep,
    among live processes holding `loads` (its own included): enough to bring it up to an
    even share of all the rooms, and never less than half an even split of the orphans,
    so the rooms still go on promptly if a peer that should take them is slow."""
    live = max(1, len(loads))
    target = -(-(sum(loads) + orphans) // live)  # ceil
    floor = -(-orphans // (2 * live))
    return max(0, min(orphans, max(target - mine, floor)))


class ClusterNode:
    def __init__(
        self,
        redis_url: str,
        *,
        prefix: str,
        node_id: str,
        lease_ttl: float,
        orphan_every: float,
        orphan_batch: int,
        follow_sockets: bool = True,
        secret: str = "",
    ) -> None:
        import redis.asyncio as aioredis

        name = node_name(node_id)
        # A blocking pool: a burst (a dead process's players all reconnecting) waits for a
        # free connection instead of failing with "too many connections". Each connection
        # carries the process's name (CLIENT LIST, CLIENT KILL: docs/operations.md).
        pool = aioredis.BlockingConnectionPool.from_url(
            redis_url,
            max_connections=REDIS_CONNECTIONS,
            timeout=max(1.0, lease_ttl),
            socket_timeout=max(1.0, lease_ttl / 2),
            socket_connect_timeout=2.0,
            client_name=client_name(name),
        )
        self.redis: Any = aioredis.Redis(connection_pool=pool)
        # Lease renewal's own connection: a reconnect storm on the shared pool (every
        # connection busy or waited for) must not make this process lose its rooms.
        renewal_pool = aioredis.BlockingConnectionPool.from_url(
            redis_url,
            max_connections=1,
            timeout=max(0.5, lease_ttl / 3),
            socket_timeout=max(1.0, lease_ttl / 2),
            socket_connect_timeout=2.0,
            client_name=client_name(name, "lease"),
        )
        self.renewer: Any = aioredis.Redis(connection_pool=renewal_pool)
        self.prefix = prefix
        self.ownership = RedisOwnership(
            self.redis, prefix=prefix, node_id=name, ttl=lease_ttl, renewer=self.renewer
        )
        self.node_id = self.ownership.node_id
        self.orphan_every = orphan_every
        self.orphan_batch = orphan_batch
        self.follow_sockets = follow_sockets
        self.seal = Seal(secret) if secret else None
        self.redis_url = redis_url
        self.relay: Relay | None = None
        self.health: Health | None = None
        self.manager: RoomManager | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self._stopping = False
        self.orphans_claimed = 0  # rooms nobody held, claimed here (failovers), for /metrics
        self._claiming = asyncio.Semaphore(8)  # orphan claims at once (store round trips)
        self._lapsing: dict[str, asyncio.Task[None]] = {}  # claims due when a lease lapses

    @classmethod
    def from_settings(cls, settings: Settings) -> ClusterNode:
        return cls(
            settings.redis_url,
            prefix=settings.redis_prefix,
            node_id=settings.node_id,
            lease_ttl=settings.lease_ttl,
            orphan_every=settings.orphan_sweep_seconds,
            orphan_batch=settings.orphan_batch,
            follow_sockets=settings.follow_sockets,
            secret=settings.cluster_secret,
        )

    async def find(self, code: str) -> Room | RelayedRoom:
        """The room, claimed here if nobody holds it, or a link to the process that does."""
        assert self.relay is not None
        return await self.relay.find(code)

    async def find_for_socket(self, code: str) -> Room | RelayedRoom:
        """As `find`, for a WebSocket: a room owned elsewhere that nobody is connected to
        is first asked over to this process (HAProxy sends every socket of a room here), so
        its sockets are served here instead of relayed for the rest of the game."""
        assert self.relay is not None
        return await self.relay.find(code, follow=self.follow_sockets)

    def not_ready(self) -> str | None:
        """Why HAProxy should send this process nothing new (health.py), or None."""
        return self.health.problem() if self.health is not None else None

    @property
    def rooms_key(self) -> str:
        return self.ownership.rooms_key

    @property
    def released_channel(self) -> str:
        return f"{self.prefix}released"

    async def start(self, manager: RoomManager) -> None:
        self.manager = manager
        await self.redis.ping()
        await self.ownership.renew_once()  # our liveness key, before any room is claimed
        if self.seal is None:
            log.warning(
                "SPADES_CLUSTER_SECRET is not set: seat tokens and hands cross Redis in clear, "
                "and anything that can publish to Redis can pass for a process of the cluster"
            )
        self.relay = Relay(
            self.redis,
            prefix=self.prefix,
            ownership=self.ownership,
            manager=manager,
            seal=self.seal,
        )
        await self.relay.start()
        await self._seed_rooms(manager)
        self.health = Health(
            self.redis_url,
            prefix=self.prefix,
            node_id=self.node_id,
            nodes_key=self.ownership.nodes_key,
            ttl=self.ownership.ttl,
            db_ping=manager.store.ping,
        )
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self.health.run(), name="health"),
            loop.create_task(self.ownership.run(), name="lease-renewal"),
            loop.create_task(self._orphans_forever(), name="orphan-sweep"),
            loop.create_task(self._hear_released(), name="released-rooms"),
        ]
        log.info("cluster node %s up (lease ttl %.1f s)", self.node_id, self.ownership.ttl)

    async def _seed_rooms(self, manager: RoomManager) -> None:
        """The first process of a cluster lists the store's unfinished rooms once, so the
        orphan sweep knows rooms made before the cluster (or before Redis lost its data)."""
        if not await self.redis.set(f"{self.prefix}seeded", "1", nx=True):
            return
        ids = [stored.room.id for stored in await manager.store.load_unfinished()]
        if ids:
            await self.redis.sadd(self.rooms_key, *ids)

    # --- rooms nobody holds: claim them so their bots and clocks go on ----------------

    async def claim_orphans(self) -> int:
        """Claim up to `orphan_batch` unfinished rooms whose lease is absent, or about to
        lapse before the next sweep (claimed the moment it does)."""
        manager = self.manager
        if manager is None or manager.draining:
            return 0
        ids = [
            r.decode() if isinstance(r, bytes) else r
            for r in await self.redis.smembers(self.rooms_key)
        ]
        ids = [room_id for room_id in ids if room_id not in manager.rooms]
        if not ids:
            return 0
        async with self.redis.pipeline(transaction=False) as pipe:
            for room_id in ids:
                pipe.pttl(self.ownership.lease_key(room_id))
            left = await pipe.execute()
        # A live owner renews every renew_every, so its leases never run this low: one
        # that will lapse before the next sweep is a paused or dead owner's. Waiting for
        # the next sweep would add up to a whole sweep period to that room's failover.
        soon = min(self.orphan_every, self.ownership.ttl / 2) * 1000
        orphans = [
            (room_id, max(0, int(ms)))
            for room_id, ms in zip(ids, left, strict=True)
            if int(ms) == -2 or 0 <= int(ms) < soon
        ]
        if not orphans:
            return 0
        loads = await self.ownership.loads()
        share = fair_share(len(orphans), loads[self.node_id], list(loads.values()))
        # In a random order, so processes sweeping at the same moment seldom race for the
        # same rooms (a lost race costs a lease attempt and nothing else).
        picked = random.sample(orphans, min(share, self.orphan_batch, len(orphans)))
        loop = asyncio.get_running_loop()
        for room_id, ms in picked:
            if ms > 0 and room_id not in self._lapsing:  # claimed when it lapses, not later
                task = loop.create_task(self._claim_at_lapse(manager, room_id, ms))
                self._lapsing[room_id] = task
                task.add_done_callback(functools.partial(self._lapsed, room_id))
        now = [room_id for room_id, ms in picked if ms == 0]
        results = await asyncio.gather(*(self._claim_orphan(manager, r) for r in now))
        return sum(results)

    def _lapsed(self, room_id: str, _task: asyncio.Task[None]) -> None:
        self._lapsing.pop(room_id, None)

    async def _claim_at_lapse(self, manager: RoomManager, room_id: str, after_ms: int) -> None:
        with contextlib.suppress(Exception):
            await asyncio.sleep(after_ms / 1000 + 0.005)
            if self._stopping or manager.draining:
                return
            if not await self.redis.exists(self.ownership.lease_key(room_id)):
                await self._claim_orphan(manager, room_id)
            # else renewed after all (its owner came back), or another process took it

    async def _claim_orphan(self, manager: RoomManager, room_id: str) -> int:
        async with self._claiming:
            try:
                room = await manager.get(room_id)
            except RoomError:  # gone, or another process was quicker
                if room_id not in manager.rooms:
                    await self._forget_if_over(room_id)
                return 0
            except Exception:
                log.exception("room %s: claim failed", room_id, extra={"room": room_id})
                return 0
            self.orphans_claimed += 1
            # Sockets this process relayed to the room's old owner: theirs is here now, so
            # they reconnect to it at once rather than at the relay's next lease check.
            if self.relay is not None:
                for link in list(self.relay.links.values()):
                    if link.code == room_id:
                        link.moved()
            if room.status in ("finished", "abandoned"):
                await self.redis.srem(self.rooms_key, room_id)
            return 1

    async def _forget_if_over(self, room_id: str) -> None:
        manager = self.manager
        assert manager is not None
        try:
            stored = await manager.store.get_room(room_id)
        except Exception:
            await self.redis.srem(self.rooms_key, room_id)
            return
        if stored.room.status in ("finished", "abandoned"):
            await self.redis.srem(self.rooms_key, room_id)

    async def sweep_once(self) -> int:
        """One orphan sweep. Redis lost its data (restarted empty): the list of rooms to
        sweep went with it, and a room nobody connects to would never be claimed again. One
        SET NX per sweep finds out, and lists the store's rooms again."""
        if self.manager is not None:
            await self._seed_rooms(self.manager)
        return await self.claim_orphans()

    async def _orphans_forever(self) -> None:
        claimed = 0
        while not self._stopping:
            # A whole batch claimed: more may wait (a process with many rooms died), so
            # sweep again at once rather than a sweep period later.
            if claimed < self.orphan_batch:
                await asyncio.sleep(self.orphan_every)
            claimed = 0
            try:
                claimed = await self.sweep_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("orphan sweep failed: %s", exc)

    async def _hear_released(self) -> None:
        """A peer handed rooms over (drain): claim them at once instead of on the next sweep.
        Redis gone: subscribe again until it is back (the subscription went with it)."""
        while not self._stopping:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(self.released_channel)
                if self._stopping:  # (a cancellation the client swallowed, above)
                    return
                async for item in pubsub.listen():
                    if item.get("type") == "message" and item.get("data") != self.node_id.encode():
                        # A small random delay spreads the handed-over rooms among the peers.
                        await asyncio.sleep(secrets.randbelow(200) / 1000)
                        with contextlib.suppress(Exception):
                            await self.claim_orphans()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.debug("released rooms: not listening (%r)", exc)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(0.5)

    # --- shutting down --------------------------------------------------------------

    async def drain(self) -> None:
        """SIGTERM: take no more rooms, hand every room over, tell the peers."""
        manager = self.manager
        if manager is None or manager.draining:  # drained already (serve, then the app)
            return
        count = len(manager.rooms)
        manager.draining = True
        with contextlib.suppress(Exception):
            await self.ownership.mark_draining()
        await manager.drain()
        if self.relay is not None:  # sockets held here for rooms of other processes
            for link in list(self.relay.links.values()):
                link.moved()
        with contextlib.suppress(Exception):
            await self.redis.publish(self.released_channel, self.node_id)
        if self.relay is not None:
            await self.relay.flush()
        log.info("drained: %d room(s) handed over", count)

    async def stop(self) -> None:
        # A cancellation that lands inside the Redis client while it connects can be
        # swallowed there (redis-py 8: the subscription then waits for messages as if
        # nothing happened; seen when a server stops right after starting, its port
        # taken), so each task is cancelled again until it ends, and the loops stop at
        # the flag. The process must exit whatever the client does.
        self._stopping = True
        for lapsing in list(self._lapsing.values()):
            lapsing.cancel()
        pending = list(self._tasks)
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        while pending and time.monotonic() < deadline:
            for task in pending:
                task.cancel()
            await asyncio.wait(pending, timeout=0.2)
            pending = [task for task in pending if not task.done()]
        for task in pending:
            log.warning("cluster task %s did not stop; left behind", task.get_name())
        if self.relay is not None:
            await self.relay.flush()
            await self.relay.stop()
        await self.ownership.release_all()
        if self.health is not None:
            await self.health.close()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        with contextlib.suppress(Exception):
            await self.renewer.aclose()
