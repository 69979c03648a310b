"""How the server keeps CPython's garbage collector from stalling the event loop.

A busy server holds about 200 GC-tracked objects per WebSocket connection (the ASGI
stack's coroutines, queues, protocol objects) plus its rooms: some 800,000 at 1,000
four-player rooms. A full collection walks all of them: 0.5-1 s on the 2-core machine of
docs/performance.md, during which no room moves. Young collections are no cheaper than
their young generation, and that is large too: every socket waits on a fresh future and
coroutine between two messages, so thousands of objects survive each collection, and
CPython's counter (allocations minus deallocations, old objects' deaths included) lets
the young list grow far past its threshold. With CPython's defaults this server paused
10-60 ms many times a second and 100+ ms every few seconds at 1,000 rooms.

Yet the collector finds almost nothing here (reference counting frees nearly all garbage).
So the policy:

- every `freeze_every` seconds, everything alive moves into the permanent generation
  (`gc.freeze()`, constant time), and the young threshold is high, so ordinary
  collections rarely run and, when they do, walk at most a second's worth of objects;
- a full collection (the permanent generation thawed, collected, frozen again) runs only
  when the heap has grown by `full_growth` since the last one (`sys.getallocatedblocks()`,
  half a millisecond to read), and at most every `full_gap` seconds. That is CPython's own
  rule for full collections (25 % growth), applied to the whole heap, so cyclic garbage
  that was frozen cannot pile up past it, and a server whose heap is steady never pays
  the pause. A heap also grows with what it rightly holds (rooms opening, games going
  on): when a full collection finds less than `little` of the objects to be garbage,
  the growth that triggers the next one doubles (up to `growth_max`), and it drops back
  to `full_growth` when one finds more. Here the garbage is mostly closed HTTP
  connections (uvicorn's protocol objects form cycles, about 20 objects each).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass
class GcPolicy:
    freeze_every: float = 1.0
    full_growth: float = 0.25
    full_gap: float = 60.0
    growth_max: float = 4.0
    little: float = 0.01
    threshold: tuple[int, int, int] = (20_000, 10, 10)

    def __post_init__(self) -> None:
        self.baseline = 0
        self.last_full = 0.0
        self.growth = self.full_growth

    def start(self) -> None:
        """Collect and freeze what start-up made; set the young-generation thresholds."""
        gc.collect()
        gc.freeze()
        gc.set_threshold(*self.threshold)
        self.baseline = sys.getallocatedblocks()
        self.last_full = time.monotonic()

    def due(self) -> bool:
        """Whether the heap has grown enough, and long enough ago, for a full collection."""
        if time.monotonic() - self.last_full < self.full_gap:
            return False
        return sys.getallocatedblocks() > self.baseline * (1 + self.growth)

    async def run(self) -> None:
        """Run forever (cancel the task to stop): freeze often, collect everything rarely."""
        while True:
            await asyncio.sleep(self.freeze_every)
            if not self.due():
                gc.freeze()
                continue
            found, seconds = self.full_collection()
            log.info(
                "full garbage collection: %d unreachable object(s) in %.0f ms; "
                "the next one after %.0f %% growth",
                found,
                seconds * 1000,
                self.growth * 100,
            )

    def full_collection(self) -> tuple[int, float]:
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        seconds = time.perf_counter() - started
        kept = gc.get_freeze_count()  # walks the list: a few ms, once per full collection
        if found < self.little * (found + kept):
            self.growth = min(self.growth * 2, self.growth_max)
        else:
            self.growth = self.full_growth
        self.baseline = sys.getallocatedblocks()
        self.last_full = time.monotonic()
        return found, seconds
