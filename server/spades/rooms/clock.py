"""Time sources. Rooms read the time and wait through a `Clock`, so tests never sleep."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    async def sleep_until(self, when: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep_until(self, when: float) -> None:
        await asyncio.sleep(max(0.0, when - time.time()))


class ManualClock:
    """A clock that moves only when told to: `advance(seconds)` wakes every sleeper now due."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    async def sleep_until(self, when: float) -> None:
        if when <= self._now:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (when, next(self._order), future))
        await future

    def advance(self, seconds: float) -> None:
        self._now += seconds
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)

    @property
    def sleepers(self) -> int:
        return sum(1 for _, _, f in self._sleepers if not f.done())


def epoch_ms(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1000)
