"""Rate limits: per client address (REST calls, socket opens, sockets held) and per
connection (WebSocket messages, weighed by what each one costs the server).

Per-address limits sit behind `Limiter`, so a cluster can keep them in a shared store
(Redis) instead of this process's memory; `LocalLimiter` is the one-process version.
"""

from __future__ import annotations

import ipaddress
import time
from collections import deque
from collections.abc import Callable
from typing import Literal, Protocol

from spades.config import Settings
from spades.rooms.protocol import MESSAGE_COSTS as MESSAGE_COSTS

# What a client may do per address, per minute. "login": failed sign-ins per address;
# "login_account": failed sign-ins per account (its key is the username, not an address).
Action = Literal["create", "join", "connect", "lookup", "login", "login_account"]


class AddressLimiter:
    """At most `per_minute` events per address in any sliding 60-second window."""

    def __init__(self, per_minute: int, now: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._now = now
        self._events: dict[str, deque[float]] = {}

    def _recent(self, address: str) -> deque[float]:
        now = self._now()
        events = self._events.setdefault(address, deque())
        while events and now - events[0] >= 60.0:
            events.popleft()
        return events

    def full(self, address: str) -> bool:
        """Whether the next event of `address` would be over the limit (nothing counted)."""
        full = len(self._recent(address)) >= self.per_minute
        if not self._events.get(address):
            self._events.pop(address, None)
        return full

    def allow(self, address: str) -> bool:
        now = self._now()
        events = self._recent(address)
        if len(events) >= self.per_minute:
            return False
        events.append(now)
        if len(self._events) > 10_000:  # forget quiet addresses so memory stays bounded
            for key in [k for k, v in self._events.items() if not v or now - v[-1] >= 60.0]:
                del self._events[key]
        return True


class Limiter(Protocol):
    """Per-address limits. Async so that an implementation may ask a shared store."""

    async def allow(self, action: Action, address: str) -> bool:
        """Count one `action` from `address`; False when it is over its limit (not counted)."""
        ...

    async def blocked(self, action: Action, address: str) -> bool:
        """Whether one more `action` of `address` would be over its limit; counts nothing
        (failed sign-ins are counted by `allow` once they failed)."""
        ...

    async def hold(self, address: str) -> bool:
        """One more socket held open by `address`; False (and not held) when at the cap."""
        ...

    async def release(self, address: str) -> None:
        """A socket that `hold` admitted has closed."""
        ...


class LocalLimiter:
    """`Limiter` in this process's memory: right for one server process."""

    def __init__(self, settings: Settings, now: Callable[[], float] = time.monotonic) -> None:
        self._windows: dict[str, AddressLimiter] = {
            "create": AddressLimiter(settings.rooms_per_minute, now),
            "join": AddressLimiter(settings.joins_per_minute, now),
            "connect": AddressLimiter(settings.joins_per_minute, now),
            "lookup": AddressLimiter(settings.lookups_per_minute, now),
            "login": AddressLimiter(settings.login_failures_per_minute, now),
            "login_account": AddressLimiter(settings.account_login_failures_per_minute, now),
        }
        self.sockets_per_address = settings.sockets_per_address
        self._held: dict[str, int] = {}

    async def allow(self, action: Action, address: str) -> bool:
        return self._windows[action].allow(address)

    async def blocked(self, action: Action, address: str) -> bool:
        return self._windows[action].full(address)

    async def hold(self, address: str) -> bool:
        held = self._held.get(address, 0)
        if self.sockets_per_address and held >= self.sockets_per_address:
            return False
        self._held[address] = held + 1
        return True

    async def release(self, address: str) -> None:
        held = self._held.get(address, 0) - 1
        if held > 0:
            self._held[address] = held
        else:
            self._held.pop(address, None)

    def held(self, address: str) -> int:
        return self._held.get(address, 0)


# What a WebSocket message costs against its connection's bucket: declared with each type
# in the registry (spades.rooms.protocol). A client playing normally spends a few tokens a
# second; a flood of hellos runs dry as fast as the bucket allows
# (`SPADES_MESSAGES_PER_SECOND`, burst `SPADES_MESSAGE_BURST`).
FRAME_COST = 1.0  # a frame that is not a message (garbage, or too big to parse)
KIB_COST = 1.0  # and one more per KiB parsed


def frame_cost(kind: str | None, size: int) -> float:
    """What a frame of `size` bytes costs, parsed as a message of type `kind` (None: not
    a message)."""
    base = MESSAGE_COSTS.get(kind, FRAME_COST) if kind is not None else FRAME_COST
    return base + KIB_COST * size / 1024


class TokenBucket:
    """`rate` tokens per second on average, bursts up to `burst`; a message takes its cost."""

    def __init__(self, rate: float, burst: int, now: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._now = now
        self._tokens = float(burst)
        self._last = now()

    def take(self, cost: float = 1.0) -> bool:
        now = self._now()
        burst = self.burst
        tokens = self._tokens + (now - self._last) * self.rate
        if tokens > burst:  # (comparisons, not min(): once per message received)
            tokens = burst
        self._last = now
        if cost > burst:  # the dearest message still passes on a full bucket
            cost = burst
        if tokens < cost:
            self._tokens = tokens
            return False
        self._tokens = tokens - cost
        return True


def limit_key(address: str) -> str:
    """What a per-address limit counts under: the address itself for IPv4, and for IPv6
    its /64 network (one subscriber's whole allocation: counting each of its 2^64 addresses
    apart would let one client make as many "addresses" as it likes). An IPv4 address
    written as IPv6 (`::ffff:a.b.c.d`) counts as the IPv4 address."""
    if ":" not in address:
        return address
    try:
        ip = ipaddress.IPv6Address(address.split("%", 1)[0])
    except ValueError:
        return address
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((ip, 64), strict=False))
