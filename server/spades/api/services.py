"""The long-lived objects a running app serves from: built when the app starts (its
lifespan), closed when it stops, and reached by the routes through `services_of`."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from fastapi import FastAPI
from starlette.requests import HTTPConnection

from spades.config import Settings
from spades.rooms import BotRunner, Clock, RoomConfig, RoomManager
from spades.rooms.quickplay import QuickPlayConfig, QuickPlayQueue
from spades.rooms.quickplay_local import LocalQueue
from spades.rooms.quickplay_service import QuickPlay
from spades.store.protocol import Store

from .gc_policy import GcPolicy
from .metrics import Metrics
from .readiness import Readiness

if TYPE_CHECKING:
    from spades.cluster.limits import RedisLimiter
    from spades.cluster.node import ClusterNode

log = logging.getLogger(__name__)


@dataclass(slots=True, frozen=True)
class Services:
    settings: Settings
    metrics: Metrics
    store: Store
    manager: RoomManager
    cluster: ClusterNode | None  # None: a single process, no Redis
    quickplay: QuickPlay


def services_of(connection: HTTPConnection) -> Services:
    """The running app's services (a request's or a WebSocket's)."""
    services: Services = connection.app.state.services
    return services


async def is_ready(services: Services) -> bool:
    """What `/readyz` answers. One process: up, not draining, and its database answers. A
    cluster: up, not draining, and Redis (and the database, when a peer reaches it) within
    this process's reach, as the node's health checks last found (cluster/health.py says
    why the database counts only when a peer reaches it: a shared outage must not take
    every process out of HAProxy and cut every socket)."""
    if services.manager.draining:
        return False
    if services.cluster is not None:
        return services.cluster.not_ready() is None
    return await services.store.ping()


@dataclass(slots=True, frozen=True)
class Wiring:
    """What `create_app` was given or built before the app starts."""

    settings: Settings
    metrics: Metrics
    store: Store | None  # None: the app opens (and closes) its own from the settings
    clock: Clock | None
    bots: BotRunner | None
    cluster_limiter: RedisLimiter | None


def lifespan(wiring: Wiring) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def run(app: FastAPI) -> AsyncIterator[None]:
        async with running(wiring) as services:
            app.state.services = services
            # The names `spades serve` (its drain on SIGTERM) and the tests look for.
            app.state.manager = services.manager
            app.state.store = services.store
            app.state.cluster = services.cluster
            yield

    return run


def _datetime_clock(clock: Clock) -> Callable[[], datetime]:
    return lambda: datetime.fromtimestamp(clock.now(), UTC)


async def open_own_store(wiring: Wiring) -> Store:
    from spades.store import open_store, upgrade

    settings = wiring.settings
    if settings.auto_upgrade:
        await asyncio.to_thread(upgrade, settings.database_url)
    # hide_parameters: a failed write's error (logged) must not show the card it held.
    return await open_store(
        settings.database_url,
        clock=_datetime_clock(wiring.clock) if wiring.clock is not None else None,
        on_commit=wiring.metrics.store_commit,
        writer_process=(
            settings.pg_writer == "process"
            if settings.database_url.startswith("postgresql")
            else settings.sqlite_writer == "process"
        ),
        commit_interval=settings.commit_interval,
        hide_parameters=True,
    )


def _start_gc_policy(settings: Settings) -> asyncio.Task[None] | None:
    # Long-lived objects go to the permanent generation as they age, so no collection
    # walks a busy server's whole heap (gc_policy.py says why and how often).
    if settings.gc_freeze_every <= 0:
        return None
    policy = GcPolicy(settings.gc_freeze_every, settings.gc_full_every, settings.gc_full_growth)
    policy.start()
    return asyncio.create_task(policy.run())


def quick_play(settings: Settings, manager: RoomManager, cluster: ClusterNode | None) -> QuickPlay:
    """Quick play's matcher, on the queue every process shares: Redis in a cluster, this
    process's memory alone."""
    config = QuickPlayConfig(
        window=settings.quickplay_window,
        widen=settings.quickplay_widen,
        expire=settings.quickplay_expire,
        seating=settings.quickplay_seating,
        tick=settings.quickplay_tick,
        turn_seconds=settings.quickplay_turn_seconds,
        quit_wait=settings.quickplay_quit_wait,
        targets=settings.quickplay_target_list,
    )
    queue: QuickPlayQueue
    if cluster is not None:
        from spades.cluster.quickplay import RedisQueue

        queue = RedisQueue(
            cluster.redis,
            prefix=settings.redis_prefix,
            expire=config.expire,
            seal=cluster.seal,
            targets=config.targets,
        )
    else:
        queue = LocalQueue(expire=config.expire, targets=config.targets)
    return QuickPlay(queue, manager, config)


@asynccontextmanager
async def running(wiring: Wiring) -> AsyncIterator[Services]:
    """Start the store, the cluster node and the rooms; stop them in the reverse order."""
    settings, metrics = wiring.settings, wiring.metrics
    store = wiring.store if wiring.store is not None else await open_own_store(wiring)
    cluster = None
    if settings.redis_url:
        from spades.cluster.node import ClusterNode

        cluster = ClusterNode.from_settings(settings)
    manager = RoomManager(
        store,
        RoomConfig.pick(settings),
        clock=wiring.clock,
        bots=wiring.bots,
        observer=metrics,
        ownership=cluster.ownership if cluster is not None else None,
        shared_lobby=cluster is not None,
    )
    metrics.watch(manager)
    reloaded = await manager.start()
    log.info("%d unfinished room(s) reloaded", reloaded)
    if cluster is not None:
        await cluster.start(manager)
        metrics.watch_cluster(cluster)
    if wiring.cluster_limiter is not None:
        wiring.cluster_limiter.start()
    quickplay = quick_play(settings, manager, cluster)
    quickplay.start()
    gc_task = _start_gc_policy(settings)
    metrics.watch_gc(True)
    lag_probe = asyncio.create_task(metrics.probe_loop())
    services = Services(settings, metrics, store, manager, cluster, quickplay)
    readiness = None
    if settings.health_port:
        readiness = Readiness(functools.partial(is_ready, services))
        readiness.serve(settings.health_host or "127.0.0.1", settings.health_port)
    try:
        yield services
    finally:
        if readiness is not None:
            readiness.stop()
        await quickplay.stop()
        if gc_task is not None:
            gc_task.cancel()
        lag_probe.cancel()
        metrics.watch_gc(False)
        metrics.watch(None)
        metrics.watch_cluster(None)
        if cluster is not None:
            await cluster.drain()
        await manager.stop()
        if cluster is not None:
            await cluster.stop()
        if wiring.cluster_limiter is not None:
            await wiring.cluster_limiter.stop()
        if wiring.store is None:
            await store.close()
