"""How the server keeps CPython's garbage collector from stalling the event loop.

A busy server holds about 200 GC-tracked objects per WebSocket connection (the ASGI
stack's coroutines, queues, protocol objects) plus its rooms: some 800,000 at 1,000
four-player rooms. A full collection walks all of them: 0.6 s on the 2-core machine of
docs/performance.md, during which no room moves. Yet such a collection finds nothing to
free; the server makes almost no cyclic garbage, and reference counting frees the rest.

So the policy is generational in time rather than in collections:

- every `freeze_every` seconds, everything alive is moved into the permanent generation
  (`gc.freeze()`, constant time). The ordinary collections then only ever walk objects
  born since the last freeze, which is a few milliseconds of work at any load;
- every `full_every` seconds, the permanent generation is thawed and collected once, so
  cyclic garbage that was frozen (a closed connection caught in a reference cycle, say)
  cannot pile up. That collection is the one long pause left; when it finds little (under
  `little` objects), the interval doubles (up to `full_max`); otherwise it starts again
  from `full_every`.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass
class GcPolicy:
    freeze_every: float = 1.0
    full_every: float = 600.0
    full_max: float = 6 * 3600.0
    little: int = 10_000
    threshold: tuple[int, int, int] = (20_000, 10, 10)

    def start(self) -> None:
        """Collect and freeze what start-up made; set the young-generation thresholds."""
        gc.collect()
        gc.freeze()
        gc.set_threshold(*self.threshold)

    async def run(self) -> None:
        """Run forever (cancel the task to stop): freeze often, collect everything rarely."""
        interval = self.full_every
        next_full = time.monotonic() + interval
        while True:
            await asyncio.sleep(self.freeze_every)
            if time.monotonic() < next_full:
                gc.freeze()
                continue
            found, seconds = self.full_collection()
            interval = self.full_every if found >= self.little else min(interval * 2, self.full_max)
            next_full = time.monotonic() + interval
            log.info(
                "full garbage collection: %d unreachable object(s) in %.0f ms; next in %.0f s",
                found,
                seconds * 1000,
                interval,
            )

    @staticmethod
    def full_collection() -> tuple[int, float]:
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        return found, time.perf_counter() - started
