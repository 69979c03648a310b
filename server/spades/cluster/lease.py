"""Room leases in Redis, with fencing numbers: the cluster's `Ownership`.

A lease is one key per room, `SET NX PX ttl`, whose value names the holder and the fencing
number it got from `INCR` on the room's fence key (which only grows, and outlives leases).
The holder renews every lease it has every ttl/3 (every 0.5 s at most: a pause of up to
ttl - 0.5 s never lets a lease lapse) with a compare-and-renew script, and
releases with compare-and-delete, so a process can never extend or delete a lease that a
newer owner holds. A lease that lapsed while its holder was paused is taken again at the next
renewal when nobody took it since (its fencing number is still the room's latest); a lease
another process took is lost, and the room is dropped here. Renewal runs on a Redis
connection of its own: a burst on the shared pool (a reconnect storm) must not starve it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

# KEYS: lease, fence, the set of rooms to watch. ARGV: holder, ttl ms, room id.
# The new fencing number, or -1 when another process holds the lease. A lease that already
# names this holder was handed over to it (HAND_OVER): it is taken with its number.
CLAIM = """
local held = redis.call('GET', KEYS[1])
if held then
  local holder, number = string.match(held, '^(.*)|(%d+)$')
  if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    redis.call('SADD', KEYS[3], ARGV[3])
    return tonumber(number)
  end
  return -1
end
local fence = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. fence, 'PX', ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
return fence
"""

# KEYS: each lease followed by its room's fence. ARGV: ttl ms, then the value each lease
# must still hold. Per lease: 1 renewed, 2 taken again, 0 lost.
# A lease that lapsed (the holder paused longer than the ttl: a full collection, a stalled
# loop, SIGSTOP) but that nobody took since is taken again with its number: a claim by any
# other process, even one released since, would have raised the fence counter past it. A
# counter that is gone (Redis restarted empty) is set back to the number.
RENEW = """
local out = {}
for i = 1, #KEYS, 2 do
  local n = (i + 1) / 2
  local value = ARGV[n + 1]
  local held = redis.call('GET', KEYS[i])
  if held == value then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    out[n] = 1
  elseif held then
    out[n] = 0
  else
    local number = string.match(value, '|(%d+)$')
    local counter = redis.call('GET', KEYS[i + 1])
    if counter == false then
      redis.call('SET', KEYS[i + 1], number)
      counter = number
    end
    if tonumber(counter) == tonumber(number) then
      redis.call('SET', KEYS[i], value, 'PX', ARGV[1])
      out[n] = 2
    else
      out[n] = 0
    end
  end
end
return out
"""

# KEYS: lease. ARGV: the value it must hold.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# KEYS: lease, fence. ARGV: the value the lease must hold, the new holder, ttl ms.
# The new holder's fencing number, or -1 when the lease is no longer the caller's.
HAND_OVER = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local fence = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[2] .. '|' .. fence, 'PX', ARGV[3])
return fence
"""

# KEYS: fence. ARGV: a number the counter must reach (the room's stored fencing number).
RAISE_FENCE = """
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
if now < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
"""

RENEW_CHUNK = 500
RENEW_AT_MOST = 0.5  # seconds between renewals, however long the ttl is


def holder_of(value: bytes | str | None) -> str | None:
    if value is None:
        return None
    text = value.decode() if isinstance(value, bytes) else value
    return text.rsplit("|", 1)[0]


class RedisOwnership:
    """Leases on rooms held by this process (`node_id`), kept alive by `run()`."""

    owns_everything = False

    def __init__(
        self, redis: Any, *, prefix: str, node_id: str, ttl: float, renewer: Any = None
    ) -> None:
        self.redis = redis
        # Renewal's own client (its own connection); the shared one when not given.
        self.renewer = redis if renewer is None else renewer
        self.prefix = prefix
        self.node_id = node_id
        self.ttl = ttl
        self.held: dict[str, str] = {}  # room id -> the lease's value
        self._callbacks: list[Callable[[str], None]] = []
        self._claim = redis.register_script(CLAIM)
        self._renew = self.renewer.register_script(RENEW)
        self._release = redis.register_script(RELEASE)
        self._hand_over = redis.register_script(HAND_OVER)
        self._raise_fence = redis.register_script(RAISE_FENCE)
        self._last_renewed = time.monotonic()
        self.lost = 0  # leases this process lost (lapsed or taken), for /metrics
        self.retaken = 0  # leases that lapsed (a pause) and were taken again, nobody between

    def lease_key(self, room_id: str) -> str:
        return f"{self.prefix}lease:{room_id}"

    def fence_key(self, room_id: str) -> str:
        return f"{self.prefix}fence:{room_id}"

    @property
    def rooms_key(self) -> str:
        """A set of the rooms ever claimed and maybe unfinished: the orphan sweep's list."""
        return f"{self.prefix}rooms"

    def alive_key(self, node: str) -> str:
        """Set on every renewal, for one ttl: the process is alive; its value is how many
        rooms it holds (the orphan sweep shares failed-over rooms by it)."""
        return f"{self.prefix}node:{node}"

    @property
    def nodes_key(self) -> str:
        """A set of the processes that ever renewed; the dead are removed by `loads`."""
        return f"{self.prefix}nodes"

    async def loads(self) -> dict[str, int]:
        """Rooms held by each live process (this one included, as it is now)."""
        members = [
            m.decode() if isinstance(m, bytes) else m
            for m in await self.redis.smembers(self.nodes_key)
        ]
        loads = {self.node_id: len(self.held)}
        if not members:
            return loads
        values = await self.redis.mget([self.alive_key(m) for m in members])
        dead = [m for m, v in zip(members, values, strict=True) if v is None]
        if dead:
            await self.redis.srem(self.nodes_key, *dead)
        for member, value in zip(members, values, strict=True):
            if value is not None and member != self.node_id:
                with contextlib.suppress(ValueError):
                    loads[member] = int(value)
        return loads

    @property
    def renew_every(self) -> float:
        """Seconds between renewals: a lease lapses only after a pause of ttl minus this."""
        return min(self.ttl / 3, RENEW_AT_MOST)

    @property
    def ttl_ms(self) -> int:
        return max(1, int(self.ttl * 1000))

    def on_lost(self, callback: Callable[[str], None]) -> None:
        self._callbacks.append(callback)

    async def claim(self, room_id: str) -> int | None:
        fence = int(
            await self._claim(
                keys=[self.lease_key(room_id), self.fence_key(room_id), self.rooms_key],
                args=[self.node_id, self.ttl_ms, room_id],
            )
        )
        if fence < 0:
            return None
        self.held[room_id] = f"{self.node_id}|{fence}"
        return fence

    async def fence_at_least(self, room_id: str, number: int) -> None:
        """The room's counter is behind the store's number (Redis lost its data and began
        again at 1): bring it up, so the next claim gets a number above the store's at once
        rather than one refused claim per step."""
        await self._raise_fence(keys=[self.fence_key(room_id)], args=[number])

    async def release(self, room_id: str) -> None:
        value = self.held.pop(room_id, None)
        if value is not None:
            await self._release(keys=[self.lease_key(room_id)], args=[value])

    async def hand_over(self, room_id: str, node: str) -> None:
        value = self.held.pop(room_id, None)
        if value is not None:
            await self._hand_over(
                keys=[self.lease_key(room_id), self.fence_key(room_id)],
                args=[value, node, self.ttl_ms],
            )

    async def owner_of(self, room_id: str) -> str | None:
        return holder_of(await self.redis.get(self.lease_key(room_id)))

    async def alive(self, node: str) -> bool:
        return bool(await self.redis.exists(self.alive_key(node)))

    def draining_key(self, node: str) -> str:
        return f"{self.prefix}draining:{node}"

    async def draining(self, node: str) -> bool:
        """A process that is handing its rooms over (SIGTERM): relay nothing new to it."""
        return bool(await self.redis.exists(self.draining_key(node)))

    async def mark_draining(self) -> None:
        await self.redis.set(self.draining_key(self.node_id), "1", px=60_000)

    def _lose(self, room_id: str) -> None:
        if self.held.pop(room_id, None) is not None:
            self.lost += 1
        for callback in self._callbacks:
            callback(room_id)

    async def renew_once(self) -> None:
        """Renew every held lease; drop the ones another process took or that lapsed."""
        started = time.monotonic()
        async with self.renewer.pipeline(transaction=False) as pipe:
            pipe.set(self.alive_key(self.node_id), str(len(self.held)), px=self.ttl_ms)
            pipe.sadd(self.nodes_key, self.node_id)
            await pipe.execute()
        rooms = list(self.held.items())
        for i in range(0, len(rooms), RENEW_CHUNK):
            chunk = rooms[i : i + RENEW_CHUNK]
            keys = []
            for room_id, _ in chunk:
                keys += [self.lease_key(room_id), self.fence_key(room_id)]
            results = await self._renew(
                keys=keys, args=[self.ttl_ms, *(value for _, value in chunk)]
            )
            for (room_id, value), ok in zip(chunk, results, strict=True):
                if ok == 2:
                    self.retaken += 1
                    log.warning(
                        "room %s: lease lapsed (a pause?), taken again: nobody took it",
                        room_id,
                        extra={"room": room_id},
                    )
                elif not ok and self.held.get(room_id) == value:
                    log.warning("room %s: lease lost", room_id, extra={"room": room_id})
                    self._lose(room_id)
        self._last_renewed = started

    async def run(self) -> None:
        """Renew every `renew_every` s until cancelled. Redis out of reach for a whole ttl: every
        lease may have lapsed and been taken, so every room is dropped here."""
        self._last_renewed = time.monotonic()
        while True:
            try:
                await self.renew_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if time.monotonic() - self._last_renewed >= self.ttl and self.held:
                    log.error(
                        "leases not renewed for %.1f s (%s): %d room(s) dropped",
                        self.ttl,
                        exc,
                        len(self.held),
                    )
                    for room_id in list(self.held):
                        self._lose(room_id)
                else:
                    log.warning("lease renewal failed: %s", exc)
            await asyncio.sleep(self.renew_every)

    async def release_all(self) -> None:
        for room_id in list(self.held):
            with contextlib.suppress(Exception):
                await self.release(room_id)
        with contextlib.suppress(Exception):
            await self.redis.delete(self.alive_key(self.node_id))
            await self.redis.srem(self.nodes_key, self.node_id)
