"""Quick play's queue in Redis, shared by every process of a cluster (`QuickPlayQueue`).

Every change is one Lua script, so it is atomic across processes: a player is queued once
(`JOIN`), a group is taken out of the queue only if all its players still wait (`CLAIM`;
two processes that picked the same group: the second finds it gone), and a seat is handed
out by the one poll that reads and deletes it (`POLL`). Keys, under `{prefix}qp:`:

- `entries` hash, player -> entry (JSON): everyone waiting or being seated
- `seen` sorted set, player -> time of their last poll (the heartbeat)
- `q:{mode}:{target}` sorted set of the players waiting in that queue (not being seated)
- `seating` hash, player -> the group being seated; `held` hash, group -> its queue,
  deadline and players
- `seated:{player}` hash: the seat made for the player (`seat`, JSON, sealed) and whether it
  was handed out (`handed`); kept `seat_kept` seconds, or `SEAT_AGAIN` once handed (a poll
  whose answer was lost, a page reloaded: the same player is handed the same seat again)
- the channel `seated`: the players of each table made (a poll that waits is answered at
  once, on whichever process it waits)

Nothing here lives in a process's memory: a process that dies while seating a group leaves
it in `held` until its deadline; the next look at that queue by any process puts its
players back (`WAITING`), and an entry nobody polls for `expire` seconds is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from redis.exceptions import RedisError

from spades.codes import ErrorCode
from spades.rooms import RoomError
from spades.rooms.quickplay import (
    SEAT_AGAIN,
    TARGETS,
    Entry,
    Group,
    Left,
    Seated,
    Waiting,
    all_queues,
)

from .seal import Seal

log = logging.getLogger(__name__)

SEAT_KEPT = 600.0  # seconds a seat made for a player waits to be handed to them

# KEYS: entries, seen, the queue, the player's seat. ARGV: player, entry, now.
# A seat not handed out yet refuses; one handed out already is forgotten (moved on).
JOIN = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[4]) == 1 then
  if redis.call('HGET', KEYS[4], 'handed') ~= '1' then return 0 end
  redis.call('DEL', KEYS[4])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[3], 0, ARGV[1])
return 1
"""

# KEYS: entries, seen, seating, the player's seat, then every queue. ARGV: player, now
# ('' for a leave), leave ('1' or '0'), ms a seat is handed again after its first time.
# {'seat', seat} | {'wait', entry, seating, count per queue...} | {'left'} | nil
POLL = """
local seat = redis.call('HGET', KEYS[4], 'seat')
if seat then
  if redis.call('HGET', KEYS[4], 'handed') ~= '1' then
    redis.call('HSET', KEYS[4], 'handed', '1')
    local left = redis.call('PTTL', KEYS[4])
    if left < 0 or left > tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[4], ARGV[4]) end
  end
  return {'seat', seat}
end
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if not entry then return false end
local seating = redis.call('HEXISTS', KEYS[3], ARGV[1])
if ARGV[3] == '1' and seating == 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  for i = 5, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
  return {'left'}
end
if ARGV[3] ~= '1' then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1]) end
local out = {'wait', entry, seating}
for i = 5, #KEYS do out[#out + 1] = redis.call('ZCARD', KEYS[i]) end
return out
"""

# KEYS: entries, seen, seating, held, the queue. ARGV: now, expire, the queue's name.
# Groups of this queue held past their deadline wait again; entries not polled within
# `expire` are dropped; the entries still waiting are returned.
WAITING = """
local now = tonumber(ARGV[1])
local held = redis.call('HGETALL', KEYS[4])
for i = 1, #held, 2 do
  local group = cjson.decode(held[i + 1])
  if group.queue == ARGV[3] and group.deadline < now then
    redis.call('HDEL', KEYS[4], held[i])
    for _, player in ipairs(group.players) do
      if redis.call('HGET', KEYS[3], player) == held[i] then
        redis.call('HDEL', KEYS[3], player)
        redis.call('ZADD', KEYS[5], 0, player)
      end
    end
  end
end
local cutoff = now - tonumber(ARGV[2])
local out = {}
for _, player in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do
  local seen = redis.call('ZSCORE', KEYS[2], player)
  local entry = redis.call('HGET', KEYS[1], player)
  if (not seen) or (not entry) or tonumber(seen) < cutoff then
    redis.call('ZREM', KEYS[5], player)
    redis.call('HDEL', KEYS[1], player)
    redis.call('ZREM', KEYS[2], player)
  else
    out[#out + 1] = entry
  end
end
return out
"""

# KEYS: seating, held, the queue. ARGV: group id, group (JSON), its players...
CLAIM = """
for i = 3, #ARGV do
  if not redis.call('ZSCORE', KEYS[3], ARGV[i]) then return 0 end
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then return 0 end
end
for i = 3, #ARGV do
  redis.call('ZREM', KEYS[3], ARGV[i])
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[1])
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""

# KEYS: entries, seen, seating, held, then each player's seat key. ARGV: group id, seat
# kept ms, the channel, then player, seat (JSON) per player, in the order of the seat keys.
DELIVER = """
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[4], ARGV[1])
local k = 5
local players = {}
for i = 4, #ARGV, 2 do
  redis.call('HDEL', KEYS[3], ARGV[i])
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('DEL', KEYS[k])
  redis.call('HSET', KEYS[k], 'seat', ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[k], ARGV[2])
  players[#players + 1] = ARGV[i]
  k = k + 1
end
redis.call('PUBLISH', ARGV[3], table.concat(players, ' '))
return 1
"""

# KEYS: seating, held, the queue. ARGV: group id.
RELEASE = """
local group = redis.call('HGET', KEYS[2], ARGV[1])
if not group then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
for _, player in ipairs(cjson.decode(group).players) do
  if redis.call('HGET', KEYS[1], player) == ARGV[1] then
    redis.call('HDEL', KEYS[1], player)
    redis.call('ZADD', KEYS[3], 0, player)
  end
end
return 1
"""


class QueueUnavailable(RoomError):
    """Redis did not answer: nothing changed; try again (REST: 503)."""

    code = ErrorCode.STORAGE_ERROR


def _guarded(script: Any) -> Any:
    """A registered script whose Redis failures are a `QueueUnavailable`."""

    async def run(*, keys: list[str], args: list[Any]) -> Any:
        try:
            return await script(keys=keys, args=args)
        except (RedisError, OSError) as exc:
            raise QueueUnavailable("quick play is unavailable just now; try again") from exc

    return run


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisQueue:
    def __init__(
        self,
        redis: Any,
        *,
        prefix: str,
        expire: float,
        seat_kept: float = SEAT_KEPT,
        seat_again: float = SEAT_AGAIN,
        seal: Seal | None = None,
        targets: tuple[int, ...] = TARGETS,
    ) -> None:
        self.redis = redis
        # A seat made for a player carries its seat token: sealed with the cluster secret
        # (bound to the player) when there is one, as the relay's messages are.
        self.seal = seal
        self.prefix = f"{prefix}qp:"
        self.expire = expire
        self.seat_kept = seat_kept
        self.seat_again = seat_again
        self.queues = all_queues(targets)  # every process of a cluster: the same targets
        self.channel = self._key("seated")
        self._join = _guarded(redis.register_script(JOIN))
        self._poll = _guarded(redis.register_script(POLL))
        self._waiting = _guarded(redis.register_script(WAITING))
        self._claim = _guarded(redis.register_script(CLAIM))
        self._deliver = _guarded(redis.register_script(DELIVER))
        self._release = _guarded(redis.register_script(RELEASE))

    def _key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def queue_key(self, queue: str) -> str:
        return self._key(f"q:{queue}")

    def seat_key(self, player_id: str) -> str:
        return self._key(f"seated:{player_id}")

    async def join(self, entry: Entry, now: float) -> bool:
        keys = [
            self._key("entries"),
            self._key("seen"),
            self.queue_key(entry.queue),
            self.seat_key(entry.player_id),
        ]
        return bool(await self._join(keys=keys, args=[entry.player_id, entry.to_json(), now]))

    async def _ask(self, player_id: str, now: float | None) -> Any:
        keys = [
            self._key("entries"),
            self._key("seen"),
            self._key("seating"),
            self.seat_key(player_id),
            *(self.queue_key(q) for q in self.queues),
        ]
        leave = now is None
        again = round(self.seat_again * 1000)
        args = [player_id, "" if leave else now, "1" if leave else "0", again]
        return await self._poll(keys=keys, args=args)

    def _sealed(self, seat: Seated, player_id: str) -> str | bytes:
        text = seat.to_json()
        if self.seal is None:
            return text
        return self.seal.close(text.encode(), f"qp-seat:{player_id}")

    def _opened(self, stored: str | bytes, player_id: str) -> str | bytes:
        if self.seal is None:
            return stored
        raw = stored if isinstance(stored, bytes) else stored.encode("latin-1")
        opened = self.seal.open(raw, f"qp-seat:{player_id}", window=self.seat_kept + 60)
        if opened is None:  # not sealed with this cluster's secret: nobody's seat
            raise QueueUnavailable("a seat in the queue was not sealed by this cluster")
        return opened

    def _answer(self, reply: Any, player_id: str) -> Waiting | Seated | Left | None:
        if reply is None:
            return None
        kind = _text(reply[0])
        if kind == "seat":
            return Seated.from_json(self._opened(reply[1], player_id))
        if kind == "left":
            return "left"
        entry = Entry.from_json(reply[1])
        counts = dict(zip(self.queues, (int(c) for c in reply[3:]), strict=True))
        mode = entry.queue.partition(":")[0]
        return Waiting(
            queue=entry.queue,
            joined=entry.joined,
            bots_at=entry.bots_at,
            waiting=counts.get(entry.queue, 0),
            waiting_mode=sum(n for q, n in counts.items() if q.partition(":")[0] == mode),
            seating=bool(int(reply[2])),
        )

    async def poll(self, player_id: str, now: float) -> Waiting | Seated | None:
        answer = self._answer(await self._ask(player_id, now), player_id)
        assert answer != "left"
        return answer

    async def leave(self, player_id: str, now: float) -> Waiting | Seated | Left | None:
        return self._answer(await self._ask(player_id, None), player_id)

    async def watch(self, notify: Callable[[Sequence[str]], None]) -> None:
        """Hear the tables made by every process (DELIVER publishes their players). Redis
        gone: subscribe again until it is back; meanwhile a waiting poll ends at its time."""
        while True:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                async for item in pubsub.listen():
                    if item.get("type") == "message":
                        notify(_text(item["data"]).split())
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.debug("quick play: not hearing seated players (%r)", exc)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(0.5)

    async def waiting(self, queue: str, now: float) -> list[Entry]:
        keys = [
            self._key("entries"),
            self._key("seen"),
            self._key("seating"),
            self._key("held"),
            self.queue_key(queue),
        ]
        found = await self._waiting(keys=keys, args=[now, self.expire, queue])
        return [Entry.from_json(item) for item in found]

    async def claim(self, group: Group, deadline: float) -> bool:
        players = [e.player_id for e in group.players]
        held = json.dumps({"queue": group.queue, "deadline": deadline, "players": players})
        keys = [self._key("seating"), self._key("held"), self.queue_key(group.queue)]
        return bool(await self._claim(keys=keys, args=[group.group_id, held, *players]))

    async def deliver(self, group_id: str, seats: dict[str, Seated]) -> bool:
        keys = [self._key("entries"), self._key("seen"), self._key("seating"), self._key("held")]
        args: list[Any] = [group_id, round(self.seat_kept * 1000), self.channel]
        for player_id, seat in seats.items():
            keys.append(self.seat_key(player_id))
            args += [player_id, self._sealed(seat, player_id)]
        return bool(await self._deliver(keys=keys, args=args))

    async def release(self, group_id: str) -> None:
        try:
            raw = await self.redis.hget(self._key("held"), group_id)
        except (RedisError, OSError) as exc:
            raise QueueUnavailable("quick play is unavailable just now") from exc
        if raw is None:
            return
        queue = json.loads(raw)["queue"]
        keys = [self._key("seating"), self._key("held"), self.queue_key(queue)]
        await self._release(keys=keys, args=[group_id])
