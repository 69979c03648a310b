"""`/metrics`: the rooms' observer implemented with prometheus-client, one registry per app.

Counters and histograms are fed by the rooms (through `Observer` hooks) and by the
WebSocket endpoint (connections, errors sent); the rooms-by-status gauge is read from the
manager when Prometheus scrapes.
"""

from __future__ import annotations

import asyncio
import gc
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar, get_args

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from spades.rooms import BOT_LEVELS, Observer
from spades.rooms.observer import ActionSource
from spades.rooms.writes import store_failures
from spades.store.protocol import RoomStatus

from .gc_policy import frozen_objects

if TYPE_CHECKING:
    from spades.rooms import RoomManager

__all__ = ["CONTENT_TYPE_LATEST", "Metrics"]

ACTION_KINDS = ("look", "bid", "play", "time_up")
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
BOT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0)
STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
BATCH_BUCKETS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
GC_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
SEAT_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
LAG_PROBE_SECONDS = 0.1


class _RoomsByStatus(Collector):
    """Rooms held in memory by this process, counted at scrape time."""

    def __init__(self) -> None:
        self.manager: RoomManager | None = None

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            "spades_rooms", "Rooms held by this process, by status", labels=["status"]
        )
        counts = dict.fromkeys(get_args(RoomStatus), 0)
        if self.manager is not None:
            for room in list(self.manager.rooms.values()):
                counts[room.status] = counts.get(room.status, 0) + 1
        for status, count in counts.items():
            family.add_metric([status], count)
        yield family


class _Cluster(Collector):
    """In a cluster, this process's share, read at scrape time: the leases it holds, the
    sockets it relays to other owners and those it serves for them, whether it drains,
    and how many rooms it claimed from nobody (a failover) or lost (lease lapsed or taken)."""

    def __init__(self) -> None:
        self.cluster: Any = None

    def collect(self) -> Iterator[Metric]:
        cluster = self.cluster
        if cluster is None:
            return
        ownership, relay = cluster.ownership, cluster.relay
        manager = cluster.manager
        gauges = (
            ("spades_cluster_leases", "Room leases this process holds", len(ownership.held)),
            (
                "spades_cluster_relayed_sockets",
                "Sockets on this process relayed to the room's owner elsewhere",
                0 if relay is None else len(relay.links),
            ),
            (
                "spades_cluster_remote_sockets",
                "Sockets of other processes this process serves as the room's owner",
                0 if relay is None else len(relay.remotes),
            ),
            (
                "spades_cluster_draining",
                "1 while this process hands its rooms over (SIGTERM)",
                int(manager is not None and manager.draining),
            ),
        )
        for name, doc, value in gauges:
            yield GaugeMetricFamily(name, doc, value=value)
        yield CounterMetricFamily(
            "spades_cluster_orphans_claimed",
            "Rooms nobody held that this process claimed (failovers, drains of others)",
            value=cluster.orphans_claimed,
        )
        yield CounterMetricFamily(
            "spades_cluster_leases_lost",
            "Leases this process lost: lapsed (Redis away) or taken by another process",
            value=ownership.lost,
        )


class _StoreFailures(Collector):
    """The rooms' failed store writes (an action, a room's or seat's change, a hand's or
    game's end: every failure, whether it was refused to a player or is being retried),
    counted process-wide by `spades.rooms.writes.store_failures` and read at scrape time."""

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(
            "spades_store_failures",
            "Store writes of the rooms that failed (the database away, full or refusing)",
            value=store_failures.count,
        )


_Child = TypeVar("_Child")


class _LoopFamily(Collector, Generic[_Child]):
    """A metric family whose children are fed from the event loop's thread only, on plain
    numbers: prometheus-client's take a lock on every observation (about 3 µs each, a few
    percent of a busy server's CPU, several per action). Prometheus reads the same
    exposition through `collect`."""

    def __init__(
        self, name: str, documentation: str, labelnames: tuple[str, ...], new: Callable[[], _Child]
    ) -> None:
        self.name = name
        self.documentation = documentation
        self.labelnames = labelnames
        self._new = new
        self._children: dict[tuple[str, ...], _Child] = {}

    def labels(self, *values: str) -> _Child:
        key = tuple(str(v) for v in values)
        if len(key) != len(self.labelnames):
            raise ValueError(f"{self.name} takes labels {self.labelnames}")
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self._new()
        return child


class LoopHistogram(_LoopFamily["_LoopHistogramChild"]):
    """A histogram: an observation is a bisect and two additions on plain lists, with the
    buckets, `_count` and `_sum` of prometheus-client's."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: tuple[str, ...] = (),
        *,
        buckets: tuple[float, ...],
        registry: CollectorRegistry,
    ) -> None:
        self.bounds = tuple(float(b) for b in buckets)
        super().__init__(name, documentation, labelnames, lambda: _LoopHistogramChild(self.bounds))
        if not labelnames:
            self._default = self.labels()
        registry.register(self)

    def observe(self, amount: float) -> None:
        self._default.observe(amount)

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily(self.name, self.documentation, labels=list(self.labelnames))
        bounds = [*(floatToGoString(b) for b in self.bounds), "+Inf"]  # type: ignore[no-untyped-call]
        for key, child in list(self._children.items()):
            cumulative, total = [], 0
            for count in child.counts:
                total += count
                cumulative.append(total)
            family.add_metric(list(key), list(zip(bounds, cumulative, strict=True)), child.sum)
        yield family

    def describe(self) -> Iterator[Metric]:
        yield HistogramMetricFamily(self.name, self.documentation, labels=list(self.labelnames))


class LoopCounter(_LoopFamily["_LoopCounterChild"]):
    """A counter (`spades_actions` counts once per action)."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: tuple[str, ...],
        *,
        registry: CollectorRegistry,
    ) -> None:
        super().__init__(name, documentation, labelnames, _LoopCounterChild)
        registry.register(self)

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(self.name, self.documentation, labels=list(self.labelnames))
        for key, child in list(self._children.items()):
            family.add_metric(list(key), child.value)
        yield family

    def describe(self) -> Iterator[Metric]:
        yield CounterMetricFamily(self.name, self.documentation, labels=list(self.labelnames))


class _LoopCounterChild:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount


class _LoopHistogramChild:
    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound (+Inf)
        self.sum = 0.0

    def observe(self, amount: float) -> None:
        self.counts[bisect_left(self.bounds, amount)] += 1
        self.sum += amount


class Metrics(Observer):
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self._rooms = _RoomsByStatus()
        r.register(self._rooms)
        self._cluster = _Cluster()
        r.register(self._cluster)
        ProcessCollector(registry=r)  # process_resident_memory_bytes, cpu seconds, open fds
        self.connections = Gauge("spades_connections", "Open WebSocket connections", registry=r)
        # Registered in the order a scrape lists them: games, bots, store, errors, runtime.
        self._game_metrics(r)
        self._bot_metrics(r)
        self._store_metrics(r)
        r.register(_StoreFailures())
        self._error_metrics(r)
        self._runtime_metrics(r)
        # Known label values appear at 0 from the start, so rates work from the first scrape;
        # their children are kept, as `labels()` costs more than the observation itself.
        self._action_of = {kind: self.actions.labels(kind) for kind in ACTION_KINDS}
        self._latency_of = {s: self.latency.labels(s) for s in get_args(ActionSource)}
        self._bot_of = {level: self.bot_time.labels(level) for level in BOT_LEVELS}
        self.bot_fallbacks.labels("strong")
        self.bot_search_cuts.labels("strong")
        self.bot_search_thins.labels("strong")

    def _game_metrics(self, r: CollectorRegistry) -> None:
        self.actions = LoopCounter(
            "spades_actions", "Game actions applied and stored, by kind", ("kind",), registry=r
        )
        self.latency = LoopHistogram(
            "spades_action_latency_seconds",
            "From receiving an action (human: its frame; bot: its chosen move) to the new "
            "state queued to every connection of the room",
            ("source",),
            buckets=LATENCY_BUCKETS,
            registry=r,
        )

        self.quickplay_wait = Histogram(
            "spades_quickplay_seat_wait_seconds",
            "Quick play, per table of people made here: from its last player's join to the "
            "seats handed over (each waiting poll is answered then)",
            buckets=SEAT_BUCKETS,
            registry=r,
        )

    def _bot_metrics(self, r: CollectorRegistry) -> None:
        self.bot_time = Histogram(
            "spades_bot_decision_seconds",
            "Time a bot takes to choose an action, by level",
            ["level"],
            buckets=BOT_BUCKETS,
            registry=r,
        )
        self.bot_fallbacks = Counter(
            "spades_bot_fallbacks",
            "Decisions of a searching bot that the basic bot answered instead (over the "
            "time limit, or the worker failed), by level",
            ["level"],
            registry=r,
        )
        self.bot_search_cuts = Counter(
            "spades_bot_search_cuts",
            "Decisions of a searching bot whose safety cap stopped the search before its "
            "iterations were done (it played its best move so far: a busy server), by level",
            ["level"],
            registry=r,
        )
        self.bot_search_thins = Counter(
            "spades_bot_search_thin",
            "Of the cut searches, those stopped before enough sampled deals to judge by: "
            "the basic plan's move was played (far too few bot workers), by level",
            ["level"],
            registry=r,
        )

    def _store_metrics(self, r: CollectorRegistry) -> None:
        self.store_time = LoopHistogram(
            "spades_store_append_seconds",
            "Time to append one action to the store",
            buckets=STORE_BUCKETS,
            registry=r,
        )
        self.commit_time = LoopHistogram(
            "spades_store_commit_seconds",
            "One group commit of the store, from taking its batch to the commit returning "
            "(an append's latency is its wait in the queue plus one of these)",
            buckets=STORE_BUCKETS,
            registry=r,
        )
        self.commit_rows = LoopHistogram(
            "spades_store_commit_actions",
            "Actions stored by one group commit",
            buckets=BATCH_BUCKETS,
            registry=r,
        )

    def _error_metrics(self, r: CollectorRegistry) -> None:
        self.errors = Counter(
            "spades_errors",
            "Error messages sent to WebSocket clients, by code",
            ["code"],
            registry=r,
        )
        self.http_errors = Counter(
            "spades_http_errors",
            "REST requests refused, by HTTP status",
            ["status"],
            registry=r,
        )

    def _runtime_metrics(self, r: CollectorRegistry) -> None:
        self.loop_lag = Histogram(
            "spades_event_loop_lag_seconds",
            f"How late a {LAG_PROBE_SECONDS} s sleep on the event loop wakes up (time the "
            "loop was busy with other work)",
            buckets=LAG_BUCKETS,
            registry=r,
        )
        self.gc_pause = Histogram(
            "spades_gc_pause_seconds",
            "Garbage collector pauses, by generation",
            ["generation"],
            buckets=GC_BUCKETS,
            registry=r,
        )
        self._gc_of = [self.gc_pause.labels(str(g)) for g in range(3)]
        self.gc_frozen = Gauge(
            "spades_gc_frozen_objects",
            "Objects in the collector's permanent generation as of the last full collection "
            "(under the server's GC policy nearly every object it tracks, which a full "
            "collection walks; counting them is itself a walk, so it is not done per scrape)",
            registry=r,
        )
        self.gc_frozen.set_function(frozen_objects)
        self._gc_started = 0.0

    def watch(self, manager: RoomManager | None) -> None:
        self._rooms.manager = manager

    def watch_cluster(self, cluster: Any) -> None:
        """The process's `ClusterNode` (None: not a cluster, or stopped)."""
        self._cluster.cluster = cluster

    async def probe_loop(self) -> None:
        """Run forever: observe the event loop's lag (cancel the task to stop)."""
        while True:
            started = time.perf_counter()
            await asyncio.sleep(LAG_PROBE_SECONDS)
            self.loop_lag.observe(max(0.0, time.perf_counter() - started - LAG_PROBE_SECONDS))

    def watch_gc(self, on: bool) -> None:
        """Time every collection (`gc.callbacks`; about a microsecond per collection)."""
        if on and self._on_gc not in gc.callbacks:
            gc.callbacks.append(self._on_gc)
        elif not on and self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self._gc_started:
            generation = int(info.get("generation", 0))
            self._gc_of[min(generation, 2)].observe(time.perf_counter() - self._gc_started)
            self._gc_started = 0.0

    def render(self) -> bytes:
        return generate_latest(self.registry)

    # --- the rooms' observer -----------------------------------------------------------

    def action(self, kind: str) -> None:
        child = self._action_of.get(kind)
        (self.actions.labels(kind) if child is None else child).inc()

    def action_latency(self, source: ActionSource, seconds: float) -> None:
        child = self._latency_of.get(source)
        (self.latency.labels(source) if child is None else child).observe(seconds)

    def bot_decision(self, level: str, seconds: float) -> None:
        child = self._bot_of.get(level)
        (self.bot_time.labels(level) if child is None else child).observe(seconds)

    def bot_fallback(self, level: str) -> None:
        self.bot_fallbacks.labels(level).inc()

    def bot_search_cut(self, level: str) -> None:
        self.bot_search_cuts.labels(level).inc()

    def bot_search_thin(self, level: str) -> None:
        self.bot_search_thins.labels(level).inc()

    def store_append(self, seconds: float) -> None:
        self.store_time.observe(seconds)

    def quickplay_seated(self, seconds: float) -> None:
        self.quickplay_wait.observe(max(0.0, seconds))

    # --- the store's commit hook ---------------------------------------------------------

    def store_commit(self, actions: int, seconds: float) -> None:
        self.commit_time.observe(seconds)
        self.commit_rows.observe(actions)

    # --- the WebSocket endpoint ----------------------------------------------------------

    def error_sent(self, code: str) -> None:
        self.errors.labels(code).inc()

    def http_refused(self, status: int) -> None:
        self.http_errors.labels(str(status)).inc()
