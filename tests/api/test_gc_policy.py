"""The server's garbage-collector policy (server/spades/api/gc_policy.py) and its metrics."""

from __future__ import annotations

import asyncio
import gc
import re
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from spades.api import gc_policy
from spades.api import metrics as metrics_module
from spades.api.gc_policy import GcPolicy
from spades.api.metrics import Metrics


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector frees it


@pytest.fixture
def gc_state() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_start_freezes_what_is_alive_and_sets_the_thresholds(gc_state: None) -> None:
    GcPolicy(threshold=(12_345, 7, 9)).start()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (12_345, 7, 9)


async def test_frozen_cycles_are_freed_by_the_periodic_full_collection(gc_state: None) -> None:
    policy = GcPolicy(freeze_every=0.01, full_every=0.05, full_gap=0.05, threshold=(10**9, 10, 10))
    policy.start()
    freed = asyncio.Event()
    node = Node()
    watch = weakref.ref(node, lambda _ref: freed.set())
    await asyncio.sleep(0)
    task = asyncio.create_task(policy.run())
    try:
        await asyncio.sleep(0.03)  # frozen by now: no ordinary collection would reach it
        del node
        await asyncio.wait_for(freed.wait(), 5)
    finally:
        task.cancel()
    assert watch() is None


def test_a_full_collection_waits_for_growth_and_for_the_gap(gc_state: None) -> None:
    policy = GcPolicy(full_growth=0.25, full_gap=60)
    policy.start()
    assert not policy.due()  # nothing has grown
    keep = [[i] for i in range(policy.baseline // 2 + 1000)]  # the heap grows by half
    policy.last_full -= 30
    assert not policy.due()  # ... but the last full collection was just now
    policy.last_full -= 31
    assert policy.due()
    policy.full_collection()
    assert not policy.due()  # the heap as it is now is the new mark
    del keep


def test_a_full_collection_is_due_by_time_too(gc_state: None) -> None:
    policy = GcPolicy(full_every=1800, full_growth=1.0, full_gap=60)
    policy.start()
    assert not policy.due()
    policy.last_full -= 1799
    assert not policy.due()
    policy.last_full -= 2
    assert policy.due()


def test_full_collection_reports_what_it_found(gc_state: None) -> None:
    gc.collect()
    for _ in range(10):
        Node()
    gc.freeze()
    found, seconds = GcPolicy().full_collection()
    assert found >= 10
    assert seconds >= 0
    assert gc.get_freeze_count() > 0  # the survivors are frozen again


def test_the_frozen_gauge_is_counted_at_full_collections_not_per_scrape(
    gc_state: None, monkeypatch: Any
) -> None:
    """Counting the permanent generation walks all of it with the loop stopped, so a scrape
    reads the count of the last full collection instead of walking again."""
    metrics = Metrics()
    GcPolicy().full_collection()
    counted = gc_policy.frozen_objects()
    assert abs(counted - gc.get_freeze_count()) < 100  # objects freed since, if any
    walks: list[int] = []

    def counting() -> int:
        walks.append(1)
        return 0

    monkeypatch.setattr(gc, "get_freeze_count", counting)
    text = metrics.render().decode()
    assert walks == []
    match = re.search(r"^spades_gc_frozen_objects (\S+)$", text, re.M)
    assert match is not None and float(match.group(1)) == counted > 0


async def test_metrics_time_collections_and_the_loop() -> None:
    metrics = Metrics()
    metrics.watch_gc(True)
    try:
        gc.collect(0)
        gc.collect(2)
    finally:
        metrics.watch_gc(False)
    gc.collect(0)  # not watched any more
    text = metrics.render().decode()
    assert 'spades_gc_pause_seconds_count{generation="0"} 1.0' in text
    assert 'spades_gc_pause_seconds_count{generation="2"} 1.0' in text


async def test_the_loop_probe_records_one_lag_sample_per_round(monkeypatch: Any) -> None:
    """Counted, not timed: the probe's period is set to 0, and the test waits (turn by turn
    of the loop) for two samples."""
    monkeypatch.setattr(metrics_module, "LAG_PROBE_SECONDS", 0.0)
    metrics = Metrics()
    probe = asyncio.create_task(metrics.probe_loop())
    try:
        for _ in range(1000):
            if lag_samples(metrics) >= 2:
                break
            await asyncio.sleep(0)
    finally:
        probe.cancel()
    assert lag_samples(metrics) >= 2
    assert "spades_event_loop_lag_seconds_bucket" in metrics.render().decode()


def lag_samples(metrics: Metrics) -> float:
    found = re.search(
        r"^spades_event_loop_lag_seconds_count (\S+)$", metrics.render().decode(), re.M
    )
    return float(found.group(1)) if found else 0.0
