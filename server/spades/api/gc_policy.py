"""How the server keeps CPython's garbage collector from stalling the event loop.

A busy server holds about 200 GC-tracked objects per WebSocket connection (the ASGI
stack's coroutines, queues, protocol objects) plus its rooms and their games: over a
million at 1,000 four-player rooms. A full collection walks all of them: 0.5-2 s on the
2-core machine of docs/performance.md, during which no room moves. Young collections are
no cheaper than their young generation, and that is large too: every socket waits on a
fresh future and coroutine between two messages, so thousands of objects survive each
collection, and CPython's counter (allocations minus deallocations, old objects' deaths
included) lets the young list grow far past its threshold. With CPython's defaults this
server paused 10-60 ms many times a second and 100+ ms every few seconds at 1,000 rooms.

Yet the collector finds almost nothing here: reference counting frees nearly all garbage.
The cycles it does find are mostly closed HTTP connections (uvicorn's protocol objects,
about 20 per connection). So the policy:

- every `freeze_every` seconds, everything alive moves into the permanent generation
  (`gc.freeze()`, constant time), and the young threshold is high, so ordinary
  collections rarely run and, when they do, walk at most a second's worth of objects;
- a full collection (the permanent generation thawed, collected, frozen again), which is
  the one long pause left, runs every `full_every` seconds, so frozen cyclic garbage can
  never exceed what accumulates in that time. Optionally (`full_growth` > 0) it comes
  sooner once the heap has grown by that fraction since the last one
  (`sys.getallocatedblocks()`, half a millisecond to read), never twice within
  `full_gap` seconds. That rule is off by default: a heap also grows with what it rightly
  holds (rooms opening, game logs), and growth rules (25 %, 100 %, 300 % tried) fired
  again and again while a server filled up, each time a pause of up to a second.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
from dataclasses import dataclass

log = logging.getLogger(__name__)

# The permanent generation's size as of the last full collection (or start-up).
# `gc.get_freeze_count()` walks that whole list (milliseconds per hundred thousand
# objects, and a busy server has about a million, walked with the event loop stopped), so
# it is read only where a full walk is paid for anyway, never on a metrics scrape.
_frozen_at_last_walk = 0


def frozen_objects() -> int:
    """Objects frozen as of the last full collection (0 before the policy starts)."""
    return _frozen_at_last_walk


def _note_frozen() -> None:
    global _frozen_at_last_walk
    _frozen_at_last_walk = gc.get_freeze_count()


@dataclass
class GcPolicy:
    freeze_every: float = 1.0
    full_every: float = 1800.0
    full_growth: float = 0.0  # 0: no growth rule
    full_gap: float = 60.0
    threshold: tuple[int, int, int] = (20_000, 10, 10)

    def __post_init__(self) -> None:
        self.baseline = 0
        self.last_full = 0.0

    def start(self) -> None:
        """Collect and freeze what start-up made; set the young-generation thresholds."""
        gc.collect()
        gc.freeze()
        _note_frozen()
        gc.set_threshold(*self.threshold)
        self.baseline = sys.getallocatedblocks()
        self.last_full = time.monotonic()

    def due(self) -> bool:
        """Whether a full collection is due: by time, or by the heap's growth."""
        since = time.monotonic() - self.last_full
        if since < self.full_gap:
            return False
        if since >= self.full_every:
            return True
        growth = self.full_growth
        return growth > 0 and sys.getallocatedblocks() > self.baseline * (1 + growth)

    async def run(self) -> None:
        """Run forever (cancel the task to stop): freeze often, collect everything rarely."""
        while True:
            await asyncio.sleep(self.freeze_every)
            if not self.due():
                gc.freeze()
                continue
            found, seconds = self.full_collection()
            log.info(
                "full garbage collection: %d unreachable object(s) in %.0f ms",
                found,
                seconds * 1000,
            )

    def full_collection(self) -> tuple[int, float]:
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        _note_frozen()
        self.baseline = sys.getallocatedblocks()
        self.last_full = time.monotonic()
        return found, time.perf_counter() - started
