"""Edge side of the relay: the sockets this process holds for rooms owned elsewhere.

A socket that lands on a process that does not own its room stays there; what the
WebSocket endpoint holds for the room is a `RelayedRoom`, which forwards the socket's
messages to the owner. `EdgeWatch` keeps those links honest:

- every `HEARTBEAT` seconds each owner is told which connections this process still holds
  for it (remotes.py says what the owner does with it: a socket whose detach was lost
  leaves its room, one whose attach was lost is closed here to reconnect);
- a link whose room has a new owner (or none), or whose owner stopped listening, is told
  to reconnect; so is every link once Redis has been out of reach for a whole ttl.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Callable
from typing import Any, Protocol

from spades.codes import CloseCode

from .lease import RedisOwnership, holder_of

log = logging.getLogger(__name__)

MGET_CHUNK = 500


class EdgeRelay(Protocol):
    """What a link needs of the relay."""

    subscribed: bool
    links: dict[int, RelayedRoom]

    def post(
        self,
        node: str,
        message: dict[str, Any],
        *,
        deaf: Callable[[], None] | None = None,
        retry: bool = False,
    ) -> None: ...


class RelayedRoom:
    """What the WebSocket endpoint holds for a room owned elsewhere: the same calls as a
    `Room` (`call`, `attach`, `handle`, `detach`), forwarded to the owner."""

    def __init__(self, relay: EdgeRelay, code: str, owner: str) -> None:
        self.relay = relay
        self.code = code
        self.room_id = code
        self.owner = owner
        self.base_url = ""
        self.closed = False
        self._conn: Any = None

    async def call(self, fn: Any, *args: Any) -> Any:
        return await fn(*args)

    def _bind(self, conn: Any) -> None:
        if self._conn is None:
            self._conn = conn
            self.relay.links[conn.conn_id] = self
            if not self.relay.subscribed:  # lost since `find`: no answer could reach us
                self.moved()
                return
            self.relay.post(
                self.owner,
                {"t": "a", "c": conn.conn_id, "room": self.code, "addr": conn.address},
                deaf=self.moved,
            )

    async def attach(self, conn: Any, token: str | None, ref: Any = None) -> None:
        self._bind(conn)
        if self.closed:
            return
        frame = {"type": "hello", "token": token, "id": ref}
        self.relay.post(self.owner, {"t": "f", "c": conn.conn_id, "m": frame}, deaf=self.moved)

    async def handle(self, conn: Any, message: dict[str, Any], received: float) -> None:
        self._bind(conn)
        if self.closed:
            return
        self.relay.post(self.owner, {"t": "f", "c": conn.conn_id, "m": message}, deaf=self.moved)

    async def detach(self, conn: Any) -> None:
        if self._conn is not None and self.relay.links.pop(conn.conn_id, None) is not None:
            self.relay.post(self.owner, {"t": "d", "c": conn.conn_id}, retry=True)

    def moved(self) -> None:
        """The owner changed or is gone: the client must reconnect. The owner is told the
        socket is gone too (it may still be listening: a lost message, a re-subscription);
        if that is lost as well, the next heartbeat without it tells it again."""
        if self.closed:
            return
        self.closed = True
        conn = self._conn
        if conn is not None:
            if self.relay.links.pop(conn.conn_id, None) is not None:
                self.relay.post(self.owner, {"t": "d", "c": conn.conn_id}, retry=True)
            conn.close(CloseCode.RECONNECT, "the room moved: reconnect")

    def closed_by_owner(self, code: int, reason: str) -> None:
        """The owner closed the connection (its `x`): nothing to tell it back."""
        self.closed = True
        if self._conn is not None:
            self._conn.close(code, reason)


class EdgeWatch:
    """The edge's checks on its links, on a timer (`run`)."""

    def __init__(
        self,
        relay: EdgeRelay,
        redis: Any,
        ownership: RedisOwnership,
        channel_of: Callable[[str], str],
        every: float,
    ) -> None:
        self.relay = relay
        self.redis = redis
        self.ownership = ownership
        self.channel_of = channel_of
        self.every = every
        self._told: set[str] = set()  # owners the last heartbeat went to

    async def listening(self, node: str) -> bool:
        """Whether a process listens on its channel: a process that died (kill -9) dropped
        its Redis connection, and with it its subscription, at once."""
        counts = await self.redis.pubsub_numsub(self.channel_of(node))
        return bool(counts and counts[0][1])

    def heartbeat(self) -> None:
        """Tell each owner which of its connections this process holds. An owner whose
        last link went since the previous heartbeat is told once more, with none."""
        held: dict[str, list[int]] = defaultdict(list)
        for conn_id, link in self.relay.links.items():
            if not link.closed:
                held[link.owner].append(conn_id)
        for owner in self._told - held.keys():
            held[owner] = []
        if self.relay.subscribed:  # else the links are being moved anyway
            for owner, conns in held.items():
                self.relay.post(owner, {"t": "h", "l": conns})
        self._told = {owner for owner, conns in held.items() if conns}

    async def run(self) -> None:
        """Heartbeats every `every` s; the owners checked every ttl/4. Redis out of reach
        for a whole ttl: every owner has dropped its rooms by then (lease.py), so a
        relayed socket would otherwise wait in silence for answers nobody sends."""
        loop = asyncio.get_running_loop()
        checked = next_check = loop.time()
        while True:
            await asyncio.sleep(self.every)
            self.heartbeat()
            if loop.time() < next_check:
                continue
            next_check = loop.time() + self.ownership.ttl / 4
            try:
                await self.check()
                checked = loop.time()
            except Exception as exc:
                links = self.relay.links
                if links and loop.time() - checked >= self.ownership.ttl:
                    log.warning(
                        "relay: Redis away (%r): %d socket(s) told to reconnect", exc, len(links)
                    )
                    for link in list(links.values()):
                        link.moved()

    async def check(self) -> None:
        links = self.relay.links
        for node in {link.owner for link in links.values()}:
            if not await self.listening(node):
                for link in list(links.values()):
                    if link.owner == node:
                        link.moved()
        by_room: dict[str, list[RelayedRoom]] = defaultdict(list)
        for link in list(links.values()):
            by_room[link.code].append(link)
        codes = list(by_room)
        for i in range(0, len(codes), MGET_CHUNK):
            chunk = codes[i : i + MGET_CHUNK]
            values = await self.redis.mget([self.ownership.lease_key(c) for c in chunk])
            for code, value in zip(chunk, values, strict=True):
                owner = holder_of(value)
                for link in by_room[code]:
                    if owner != link.owner:
                        link.moved()
