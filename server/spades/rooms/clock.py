"""Time sources. Rooms read the time and wait through a `Clock`, so tests never sleep."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    async def sleep_until(self, when: float) -> None: ...

    def call_at(self, when: float, callback: Callable[[], object]) -> Timer:
        """Call `callback` on the running loop once the clock reads `when` (soon, when
        it already does). A callback and no task: arming one costs a timer, not a task."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep_until(self, when: float) -> None:
        await asyncio.sleep(max(0.0, when - time.time()))

    def call_at(self, when: float, callback: Callable[[], object]) -> Timer:
        return asyncio.get_running_loop().call_later(max(0.0, when - time.time()), callback)


class _ManualTimer:
    __slots__ = ("callback", "cancelled", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, callback: Callable[[], object]) -> None:
        self.loop = loop
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that moves only when told to: `advance(seconds)` wakes every sleeper now due."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None] | _ManualTimer]] = []
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

    def call_at(self, when: float, callback: Callable[[], object]) -> Timer:
        loop = asyncio.get_running_loop()
        if when <= self._now:
            return loop.call_soon(callback)
        timer = _ManualTimer(loop, callback)
        heapq.heappush(self._sleepers, (when, next(self._order), timer))
        return timer

    def advance(self, seconds: float) -> None:
        """Move on; what is now due runs on the loop next, sleepers and timers in the order
        of their times (a timer's callback is scheduled as a woken sleeper is)."""
        self._now += seconds
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, item = heapq.heappop(self._sleepers)
            if isinstance(item, _ManualTimer):
                if not item.cancelled:
                    item.loop.call_soon(item.callback)
            elif not item.done():
                item.set_result(None)

    @property
    def sleepers(self) -> int:
        """Sleepers and timers still waiting."""
        return sum(
            1
            for _, _, item in self._sleepers
            if not (item.cancelled if isinstance(item, _ManualTimer) else item.done())
        )


def epoch_ms(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1000)
