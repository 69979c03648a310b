"""Rate limits: per client address per minute (REST), per connection per second (WebSocket)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable


class AddressLimiter:
    """At most `per_minute` events per address in any sliding 60-second window."""

    def __init__(self, per_minute: int, now: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._now = now
        self._events: dict[str, deque[float]] = {}

    def allow(self, address: str) -> bool:
        now = self._now()
        events = self._events.setdefault(address, deque())
        while events and now - events[0] >= 60.0:
            events.popleft()
        if len(events) >= self.per_minute:
            return False
        events.append(now)
        if len(self._events) > 10_000:  # forget quiet addresses so memory stays bounded
            for key in [k for k, v in self._events.items() if not v or now - v[-1] >= 60.0]:
                del self._events[key]
        return True


class TokenBucket:
    """`rate` messages per second on average, bursts up to `burst`."""

    def __init__(self, rate: float, burst: int, now: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._now = now
        self._tokens = float(burst)
        self._last = now()

    def take(self) -> bool:
        now = self._now()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True
