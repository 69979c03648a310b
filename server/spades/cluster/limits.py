"""Per-address limits counted in Redis, so every process of a cluster sees the same counts.

- `RedisAddressLimiter`: at most `per_minute` events per address in any sliding 60-second
  window (room creations, joins, socket opens), the same rule as the in-process
  `AddressLimiter`, but one count for all processes.
- `RedisSocketCounter`: how many sockets an address holds open across all processes,
  capped. Every hold expires unless the process that took it renews it, so the holds of a
  process that died (kill -9, lost network) free themselves within `ttl` seconds.
- `RedisLimiter`: the three windows and the socket counter behind one object, with the
  `allow(action, address)` / `hold(address)` / `release(address)` calls a server uses.

Each check is one Lua script, so the check and the count are one atomic step in Redis.
Times come from the Redis server's clock (all processes agree), unless a clock is
injected (tests). If Redis cannot be reached, a limit lets the request through
(`fail_open`, the default) rather than lock every player out, and says so in the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Literal

from redis.asyncio import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

Action = Literal["create", "join", "connect", "lookup", "login", "login_account"]
Clock = Callable[[], float]  # seconds (epoch), for tests; None: the Redis server's clock

WINDOW_SECONDS = 60.0
SOCKET_TTL = 60.0  # seconds a socket hold lives unless its process renews it
DEFAULT_PREFIX = "spades:limits:"


def _clock_prelude(argv: int) -> str:
    """Lua that sets `now` from ARGV[argv], or from the Redis server's clock when empty."""
    return (
        f"local now = tonumber(ARGV[{argv}])\n"
        "if not now then\n"
        "  local t = redis.call('TIME')\n"
        "  now = tonumber(t[1]) + tonumber(t[2]) / 1000000\n"
        "end\n"
    )


# KEYS[1]: the address's window (a sorted set of event times).
# ARGV: limit, window seconds, now ("" = the server's clock), a unique member.
_WINDOW = (
    _clock_prelude(3)
    + """
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.ceil(window * 1000))
return 1
"""
)

# KEYS[1]: the address's window; ARGV: limit, window seconds, now. 1 when it is full.
_FULL = (
    _clock_prelude(3)
    + """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 1
end
return 0
"""
)

# KEYS[1]: the address's holds (a sorted set: member = one socket, score = its expiry).
# ARGV: cap (0 = none), ttl seconds, now ("" = the server's clock), the new member.
_HOLD = (
    _clock_prelude(3)
    + """
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local cap = tonumber(ARGV[1])
if cap > 0 and redis.call('ZCARD', KEYS[1]) >= cap then
  return 0
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.ceil(ttl * 1000))
return 1
"""
)

# KEYS: addresses' hold sets; ARGV: ttl, now, then for each key its member.
# Renews holds that still exist (XX: a released or expired hold is not brought back).
_RENEW = (
    _clock_prelude(2)
    + """
local ttl = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', now + ttl, ARGV[i + 2])
  redis.call('PEXPIRE', key, math.ceil(ttl * 1000))
end
return #KEYS
"""
)


def _now_arg(clock: Clock | None) -> str:
    return "" if clock is None else repr(float(clock()))


class _Warner:
    """Logs an unreachable Redis once a minute, not once a request."""

    def __init__(self) -> None:
        self._last = -WINDOW_SECONDS

    def __call__(self, what: str, exc: BaseException) -> None:
        now = time.monotonic()
        if now - self._last >= WINDOW_SECONDS:
            self._last = now
            log.warning("Redis unreachable for %s limits (%r); not limiting meanwhile", what, exc)


class RedisAddressLimiter:
    """At most `per_minute` events per address in any sliding 60-second window, counted
    in Redis for all processes (the cluster's `AddressLimiter`)."""

    def __init__(
        self,
        redis: Redis,
        per_minute: int,
        *,
        name: str = "events",
        prefix: str = DEFAULT_PREFIX,
        window: float = WINDOW_SECONDS,
        clock: Clock | None = None,
        fail_open: bool = True,
    ) -> None:
        self.redis = redis
        self.per_minute = per_minute
        self.window = window
        self.clock = clock
        self.fail_open = fail_open
        self._key = f"{prefix}{name}:"
        self._script = redis.register_script(_WINDOW)
        self._full = redis.register_script(_FULL)
        # Members must be unique per event: this process's id and a counter.
        self._origin = secrets.token_hex(6)
        self._count = itertools.count()
        self._warn = _Warner()

    async def allow(self, address: str) -> bool:
        """Count one event of `address`; False (not counted) when it is over the limit."""
        member = f"{self._origin}:{next(self._count)}"
        args: list[str | float] = [self.per_minute, self.window, _now_arg(self.clock), member]
        try:
            return bool(await self._script(keys=[self._key + address], args=args))
        except (RedisError, OSError) as exc:
            self._warn(self._key, exc)
            return self.fail_open

    async def full(self, address: str) -> bool:
        """Whether the next event of `address` would be over the limit (nothing counted)."""
        args: list[str | float] = [self.per_minute, self.window, _now_arg(self.clock)]
        try:
            return bool(await self._full(keys=[self._key + address], args=args))
        except (RedisError, OSError) as exc:
            self._warn(self._key, exc)
            return not self.fail_open


class RedisSocketCounter:
    """Sockets held open per address across all processes, at most `cap` (0: no cap).

    Each hold is a member of the address's set with an expiry; `renew()` (run by
    `keep_renewing()` every `ttl / 3`) pushes this process's holds forward, so only the
    holds of a process that stopped renewing lapse.
    """

    def __init__(
        self,
        redis: Redis,
        cap: int,
        *,
        prefix: str = DEFAULT_PREFIX,
        ttl: float = SOCKET_TTL,
        clock: Clock | None = None,
        fail_open: bool = True,
    ) -> None:
        self.redis = redis
        self.cap = cap
        self.ttl = ttl
        self.clock = clock
        self.fail_open = fail_open
        self._key = f"{prefix}sockets:"
        self._hold = redis.register_script(_HOLD)
        self._renew = redis.register_script(_RENEW)
        self._origin = secrets.token_hex(6)
        self._count = itertools.count()
        # This process's holds per address: the members it added (and must renew).
        # A hold let through while Redis was unreachable is counted here as None.
        self._held: dict[str, list[str | None]] = {}
        self._warn = _Warner()

    def held(self, address: str) -> int:
        """Sockets this process holds for `address` (its own share of the count)."""
        return len(self._held.get(address, ()))

    async def acquire(self, address: str) -> bool:
        """One more socket for `address`; False (nothing held) when it is at the cap."""
        member = f"{self._origin}:{next(self._count)}"
        args: list[str | float] = [self.cap, self.ttl, _now_arg(self.clock), member]
        try:
            ok = bool(await self._hold(keys=[self._key + address], args=args))
        except (RedisError, OSError) as exc:
            self._warn(self._key, exc)
            if not self.fail_open:
                return False
            self._held.setdefault(address, []).append(None)
            return True
        if ok:
            self._held.setdefault(address, []).append(member)
        return ok

    async def release(self, address: str) -> None:
        """A socket `acquire` let through has closed (a release with none held is ignored)."""
        members = self._held.get(address)
        if not members:
            return
        member = members.pop()
        if not members:
            del self._held[address]
        if member is None:
            return
        try:
            await self.redis.zrem(self._key + address, member)
        except (RedisError, OSError) as exc:
            # It lapses on its own within `ttl`, since nothing renews it any more.
            self._warn(self._key, exc)

    async def renew(self) -> None:
        """Push every hold of this process forward by `ttl`."""
        pairs = [(a, m) for a, ms in self._held.items() for m in ms if m is not None]
        for start in range(0, len(pairs), 500):
            chunk = pairs[start : start + 500]
            args: list[Any] = [self.ttl, _now_arg(self.clock), *(m for _, m in chunk)]
            await self._renew(keys=[self._key + a for a, _ in chunk], args=args)

    async def keep_renewing(self) -> None:
        """Renew every `ttl / 3` seconds until cancelled (run it as a task)."""
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await self.renew()
            except (RedisError, OSError) as exc:
                self._warn(self._key, exc)

    async def release_all(self) -> None:
        """Give back every hold of this process (on shutdown)."""
        for address in list(self._held):
            while self._held.get(address):
                await self.release(address)


class RedisLimiter:
    """The per-address limits of a cluster process: room creations, joins and socket
    opens per minute, and sockets held at once, all counted in Redis."""

    def __init__(
        self,
        redis: Redis,
        *,
        rooms_per_minute: int,
        joins_per_minute: int,
        connects_per_minute: int,
        sockets_per_address: int = 0,
        lookups_per_minute: int = 120,
        login_failures_per_minute: int = 9,
        account_login_failures_per_minute: int = 20,
        prefix: str = DEFAULT_PREFIX,
        clock: Clock | None = None,
        fail_open: bool = True,
    ) -> None:
        def window(name: str, per_minute: int) -> RedisAddressLimiter:
            return RedisAddressLimiter(
                redis, per_minute, name=name, prefix=prefix, clock=clock, fail_open=fail_open
            )

        self.windows: dict[Action, RedisAddressLimiter] = {
            "create": window("create", rooms_per_minute),
            "join": window("join", joins_per_minute),
            "connect": window("connect", connects_per_minute),
            "lookup": window("lookup", lookups_per_minute),
            "login": window("login", login_failures_per_minute),
            "login_account": window("login_account", account_login_failures_per_minute),
        }
        self.sockets = RedisSocketCounter(
            redis, sockets_per_address, prefix=prefix, clock=clock, fail_open=fail_open
        )
        self._renewer: asyncio.Task[None] | None = None

    async def allow(self, action: Action, address: str) -> bool:
        return await self.windows[action].allow(address)

    async def blocked(self, action: Action, address: str) -> bool:
        return await self.windows[action].full(address)

    async def hold(self, address: str) -> bool:
        return await self.sockets.acquire(address)

    async def release(self, address: str) -> None:
        await self.sockets.release(address)

    def start(self) -> None:
        """Start renewing this process's socket holds (call once the event loop runs)."""
        if self._renewer is None:
            self._renewer = asyncio.create_task(
                self.sockets.keep_renewing(), name="spades-socket-holds"
            )

    async def stop(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
            self._renewer = None
        await self.sockets.release_all()
