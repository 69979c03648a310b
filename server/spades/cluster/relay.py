"""Any process answers any room: connections relayed to the room's owner over Redis pub/sub.

Every process listens on its own channel `<prefix>relay:<node>`. A socket that lands on a
process that does not own its room (the *edge*) stays there; the edge sends the owner an
`attach`, then each checked client message as a `frame`, then a `detach`, all tagged with
the edge's connection id. The owner treats the pair (edge, id) as a connection of the room
(`RemoteConnection`): the room builds that seat's view as for any socket, and the messages go
back on the edge's channel, where the edge writes them to the socket as they are. The
per-seat privacy is the owner's, exactly as for a local socket; the edge never holds a view.

REST calls that need the room's actor (join, the room's state, an administrator's close)
are asked of the owner the same way (`call`, answered by `reply`).

This module is the transport (one publisher, one subscription), the dispatch of what
arrives, the REST calls and finding a room's owner. The edge's side of a relayed socket is
links.py (and its heartbeats), the owner's side remotes.py (and what it makes of them).

When the owner changes or is gone (its channel has no listener, or the lease names another
process), the edge closes the socket with `CloseCode.RECONNECT`: the client reconnects
at once and lands on the new owner, or on an edge that relays to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import time
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from redis.exceptions import TimeoutError as RedisTimeout

from spades.codes import CloseCode, ErrorCode
from spades.rooms import (
    BadRequest,
    OwnedElsewhere,
    Room,
    RoomError,
    RoomFull,
    RoomManager,
    RoomNotFound,
)
from spades.rooms.observer import now

from .lease import RedisOwnership
from .links import EdgeWatch, RelayedRoom
from .remotes import EXPIRE_AFTER, Remotes, heartbeat_every
from .seal import Seal

log = logging.getLogger(__name__)

CALL_TIMEOUT = 5.0  # seconds an edge waits for the owner's reply to a REST call
# Messages waiting to be published at most. Past it (Redis hangs, a partition), new ones are
# dropped as undelivered: their sockets are told to reconnect rather than memory grow.
OUTBOX_LIMIT = 20_000
# A Redis timeout this late past its time came from a pause of this process, not Redis.
PAUSE_SLACK = 1.0
# At most this long for an owner to answer `yield` (a ttl/2 when shorter): an owner that
# does not answer at once is paused or overloaded, and the socket is better relayed (or
# told to reconnect once the lease lapses) than kept waiting a whole CALL_TIMEOUT.
YIELD_TIMEOUT = 1.0

_ERRORS: dict[str, type[RoomError]] = {
    "RoomNotFound": RoomNotFound,
    "RoomFull": RoomFull,
    "BadRequest": BadRequest,
}


class Relay:
    def __init__(
        self,
        redis: Any,
        *,
        prefix: str,
        ownership: RedisOwnership,
        manager: RoomManager,
        seal: Seal | None = None,
    ) -> None:
        self.redis = redis
        self.seal = seal  # every message sealed with the cluster secret (seal.py), if set
        self.prefix = prefix
        self.ownership = ownership
        self.node_id = ownership.node_id
        self.manager = manager
        self.channel = self.channel_of(self.node_id)
        self.links: dict[int, RelayedRoom] = {}  # edge side: local socket id -> link
        self.remotes = Remotes(self)  # owner side
        self.heartbeat = heartbeat_every(ownership.ttl)
        self.watch = EdgeWatch(self, redis, ownership, self.channel_of, self.heartbeat)
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._lapses: dict[str, asyncio.Task[None]] = {}
        self._yields: dict[str, asyncio.Task[bool]] = {}
        self._call_ids = itertools.count(1)
        # (channel, payload, what to call when not delivered, sent again after a failed
        # publish, stale from (monotonic)): bounded (OUTBOX_LIMIT), stale ones dropped
        self._outbox: list[tuple[str, bytes, Callable[[], None] | None, bool, float]] = []
        self.dropped = 0  # messages dropped unsent: stale, or past the outbox's bound
        self._wake = asyncio.Event()
        self._warned = 0.0
        self.subscribed = False  # to this process's channel: nothing is relayed without it
        self._tasks: set[asyncio.Task[Any]] = set()

    def channel_of(self, node: str) -> str:
        return f"{self.prefix}relay:{node}"

    # --- sending: one task publishes everything, in order ------------------------------

    def post(
        self,
        node: str,
        message: dict[str, Any],
        *,
        deaf: Callable[[], None] | None = None,
        retry: bool = False,
    ) -> None:
        """Queue a message. `deaf`: called when it was not delivered (nobody listened, or
        the publish failed). `retry`: a close or detach, which may be sent twice, so a failed
        publish sends it again (for a ttl; after that every link and room is dropped anyway),
        or the other end would hold a socket nobody serves.

        A message still unsent a ttl after it was queued is stale (the room may have moved,
        the socket was told to reconnect): dropped as undelivered, never published late."""
        message["e"] = self.node_id
        if len(self._outbox) >= OUTBOX_LIMIT:
            self._drop(deaf, f"relay: {OUTBOX_LIMIT} messages wait already: dropped")
            return
        stale = time.monotonic() + self.ownership.ttl
        channel, payload = self.channel_of(node), orjson.dumps(message)
        if self.seal is not None:
            payload = self.seal.close(payload, channel)
        self._outbox.append((channel, payload, deaf, retry, stale))
        self._wake.set()

    def _drop(self, deaf: Callable[[], None] | None, why: str) -> None:
        self.dropped += 1
        if time.monotonic() - self._warned >= 1.0:  # not 20 lines a second
            self._warned = time.monotonic()
            log.warning("%s (%d so far)", why, self.dropped)
        if deaf is not None:  # later: the caller may be in the middle of something
            asyncio.get_running_loop().call_soon(deaf)

    def _fresh(self, batch: list[Any]) -> list[Any]:
        now = time.monotonic()
        if all(item[4] > now for item in batch):
            return batch
        for item in batch:
            if item[4] <= now:
                self._drop(item[2], "relay: a message waited a ttl unsent: dropped")
        return [item for item in batch if item[4] > now]

    async def _publisher(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._outbox:
                batch, self._outbox = self._outbox[:500], self._outbox[500:]
                batch = self._fresh(batch)
                if not batch:
                    continue
                failed = False
                started = time.monotonic()
                try:
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for channel, payload, _, _, _ in batch:
                            pipe.publish(channel, payload)
                        heard = await pipe.execute()
                except Exception as exc:
                    if self._paused_meanwhile(exc, started):
                        # Sent, and Redis answered while this process was paused (SIGSTOP,
                        # a long collection): the timeout fired late, with the answer
                        # unread. Sending again would deliver twice; counted delivered (a
                        # connection really gone is found by the heartbeats).
                        log.warning("relay: publish answered while this process was paused")
                        heard = [1] * len(batch)
                    else:
                        if time.monotonic() - self._warned >= 1.0:  # not 20 lines a second
                            self._warned = time.monotonic()
                            log.warning("relay: publish failed: %s", exc)
                        heard = [0] * len(batch)
                        failed = True
                for item, listeners in zip(batch, heard, strict=True):
                    _, _, deaf, retry, stale = item
                    if failed and retry and time.monotonic() < stale:
                        self._outbox.append(item)
                    elif deaf is not None and not listeners:
                        deaf()  # the process at the other end is gone, or Redis is
                if failed:
                    await asyncio.sleep(0.05)

    def _paused_meanwhile(self, exc: Exception, started: float) -> bool:
        """A timeout that fired well past its time: this process's loop stood still (a
        Redis that does not answer times out on time)."""
        timeout = self.redis.connection_pool.connection_kwargs.get("socket_timeout")
        late = time.monotonic() - started - (timeout or math.inf)
        return isinstance(exc, RedisTimeout) and late > PAUSE_SLACK

    # --- receiving ------------------------------------------------------------------

    async def _listen_forever(self, pubsub: Any) -> None:
        """Listen on this process's channel; when Redis goes away the subscription is gone
        with the connection, so subscribe again (on a new connection) until it is back.
        Without this the listener ended for good: once Redis was back, peers saw no one
        listening here and every socket relayed to this process's rooms was moved forever.

        Whatever peers sent here meanwhile is lost (they see no listener), so every socket
        this process relays is told to reconnect, and no new one is relayed until the
        subscription is back: answers from the owner would never reach it, and the socket
        would wait in silence."""
        while True:
            try:
                await self._listener(pubsub)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("relay: listening failed (%r): subscribing again", exc)
            self.subscribed = False
            for link in list(self.links.values()):
                link.moved()
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            while True:
                await asyncio.sleep(min(0.5, self.ownership.ttl / 4))
                try:
                    pubsub = await self._subscribe()
                except Exception:
                    continue
                self.subscribed = True
                log.info("relay: listening again on %s", self.channel)
                break

    async def _subscribe(self) -> Any:
        """A subscription to this process's channel, once Redis has confirmed it (a pooled
        connection that died with Redis takes the command without a word, then fails)."""
        pubsub = self.redis.pubsub()
        try:
            await pubsub.subscribe(self.channel)
            reply = await pubsub.get_message(timeout=max(1.0, self.ownership.ttl))
            if not reply or reply.get("type") != "subscribe":
                raise ConnectionError(f"not subscribed to {self.channel}: {reply!r}")
        except BaseException:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            raise
        self._pubsub = pubsub
        return pubsub

    async def _listener(self, pubsub: Any) -> None:
        async for item in pubsub.listen():
            if item.get("type") != "message":
                continue
            data = item["data"]
            if self.seal is not None:
                data = self.seal.open(data, self.channel)
                if data is None:  # not from a process of this cluster, or replayed late
                    self._refused()
                    continue
            try:
                message = orjson.loads(data)
                self._dispatch(message)
            except Exception:
                log.exception("relay: bad message")

    def _refused(self) -> None:
        assert self.seal is not None
        if time.monotonic() - self._warned >= 1.0:
            self._warned = time.monotonic()
            log.warning(
                "relay: a message not sealed with the cluster secret was refused (%d so far)",
                self.seal.refused,
            )

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg["t"]
        edge = msg.get("e", "")
        if kind == "s":  # edge: a message for a socket
            link = self.links.get(msg["c"])
            if link is not None and link._conn is not None:
                link._conn.send(msg["m"])
        elif kind == "x":  # edge: the owner closed the connection
            link = self.links.pop(msg["c"], None)
            if link is not None:
                link.closed_by_owner(int(msg["code"]), str(msg["reason"]))
        elif kind == "r":  # edge: a reply to a call
            future = self._calls.pop(msg["r"], None)
            if future is not None and not future.done():
                future.set_result(msg)
        elif kind == "a":  # owner: a socket attaches
            self._attach(edge, msg)
        elif kind == "f":  # owner: a client message
            remote = self.remotes.get(edge, msg["c"])
            if remote is None or remote.room.closed:
                if remote is not None:
                    self.remotes.forget(remote)
                self._moved(edge, msg["c"], "moved")
                return
            remote.seen = time.monotonic()
            # Queued on the room in arrival order (the task's first step enqueues).
            self.spawn(self._frame(remote, remote.room, msg["m"], now()))
        elif kind == "d":  # owner: the socket is gone
            self.remotes.gone(edge, msg["c"])
        elif kind == "h":  # owner: the connections an edge still holds for this process
            for unknown in self.remotes.heard(edge, msg["l"]):
                self._moved(edge, unknown)
        elif kind == "q":  # owner: a REST call
            self.spawn(self._answer(edge, msg))

    def _attach(self, edge: str, msg: dict[str, Any]) -> None:
        room = self.manager.rooms.get(msg["room"])
        if room is None or room.closed:
            self._moved(edge, msg["c"])
            return
        self.remotes.attach(edge, msg["c"], str(msg.get("addr", "?")), room)

    def _moved(self, edge: str, edge_conn: int, reason: str = "the room moved: reconnect") -> None:
        self.post(edge, {"t": "x", "c": edge_conn, "code": CloseCode.RECONNECT, "reason": reason})

    async def _frame(
        self, remote: Any, room: Room, message: dict[str, Any], received: float
    ) -> None:
        try:
            if message["type"] == "hello":
                await room.call(room.attach, remote, message.get("token"), message.get("id"))
            else:
                await room.call(room.handle, remote, message, received)
        except RoomError as exc:
            ref = message.get("id")
            remote.send({"type": "error", "code": exc.code, "message": exc.message, "ref": ref})
            if room.closed:
                remote.close(CloseCode.RECONNECT, "the room moved: reconnect")
        except Exception:
            log.exception("room %s: relayed message failed", room.code, extra={"room": room.code})
            remote.close(CloseCode.SERVER_ERROR, "server error")

    # --- REST calls -------------------------------------------------------------------

    async def call(
        self, owner: str, code: str, op: str, *args: Any, timeout: float = CALL_TIMEOUT
    ) -> Any:
        """Ask the owner's room actor; raises the RoomError the owner raised."""
        call_id = next(self._call_ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        self.post(owner, {"t": "q", "r": call_id, "room": code, "op": op, "args": list(args)})
        try:
            reply = await asyncio.wait_for(future, timeout)
        except TimeoutError as exc:
            raise OwnedElsewhere(owner, code) from exc
        finally:
            self._calls.pop(call_id, None)
        if "err" in reply:
            err = reply["err"]
            if err["kind"] == "OwnedElsewhere":
                raise OwnedElsewhere(owner, code)
            cls = _ERRORS.get(err["kind"], RoomError)
            raise cls(err["message"], code=err["code"])
        return reply["ok"]

    async def _answer(self, edge: str, msg: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"t": "r", "r": msg["r"]}
        room = self.manager.rooms.get(msg["room"])
        try:
            if room is None or room.closed:
                raise OwnedElsewhere(self.node_id, msg["room"])
            if msg["op"] == "room":
                reply["ok"] = room.room_dict(None)
            elif msg["op"] == "yield":
                reply["ok"] = await self._yield(room, edge)
            elif msg["op"] == "join":
                reply["ok"] = list(await room.call(room.join, *msg["args"]))
            elif msg["op"] == "close":
                reply["ok"] = await self.manager.close(room.code, *msg["args"])
            else:
                raise BadRequest(f"unknown call {msg['op']!r}")
        except RoomError as exc:
            reply["err"] = {"kind": type(exc).__name__, "code": exc.code, "message": exc.message}
        except Exception:
            log.exception("relay: call %s failed", msg.get("op"))
            reply["err"] = {
                "kind": "RoomError",
                "code": ErrorCode.SERVER_ERROR,
                "message": "failed",
            }
        self.post(edge, reply)

    # --- finding a room: here, or relayed to its owner -------------------------------

    async def find(
        self, code: str, *, wait: float | None = None, follow: bool = False
    ) -> Room | RelayedRoom:
        """The room, claimed here when nobody holds it, or a link to its live owner.

        `follow` (a socket): a live owner that has no connection to the room is asked to
        hand it over first (`yield`); when it does, the room is claimed here. HAProxy hashes
        a room's requests to one process, but a room is made wherever its creation landed,
        and a relayed socket costs both processes more than a local one (about twice the
        CPU per action, and two Redis round trips).

        A lease whose holder is dead lapses within a ttl: wait for it (up to `wait`).
        Redis out of reach: nobody can be sure who owns the room, so it is refused for now
        (OwnedElsewhere: the socket is told to reconnect, a REST call answers 503)."""
        try:
            return await self._find(code, wait, follow)
        except RoomError:
            raise
        except Exception as exc:
            log.warning("room %s: cannot tell its owner (%r)", code, exc, extra={"room": code})
            raise OwnedElsewhere("", code) from exc

    async def _find(self, code: str, wait: float | None, follow: bool) -> Room | RelayedRoom:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.ownership.ttl + 1.0 if wait is None else wait)
        while True:
            try:
                return await self.manager.get(code)
            except OwnedElsewhere as exc:
                if self.manager.draining:
                    raise  # this process is going: the client reconnects to another one
                owner = exc.owner
                if owner and owner != self.node_id and not self.subscribed:
                    raise  # the owner's answers could not reach this process: reconnect
                elsewhere = bool(owner) and owner != self.node_id
                # A process that died (kill -9) lets go of nothing early: its leases are
                # waited out whole, not polled (a dead process's players all wait here).
                dead = elsewhere and not await self.watch.listening(owner)
                if elsewhere and not dead and not await self.ownership.draining(owner):
                    if follow:
                        follow = False  # asked once
                        # Whatever the answer, look again: released (claim it here), or
                        # claimed here meanwhile by another socket of the room whose own
                        # question was answered first, or kept by its owner (relay then).
                        await self._handed_over(owner, code)
                        continue
                    return RelayedRoom(self, code, owner)
                # Its owner is gone (or is this process, letting go): its lease lapses
                # within a ttl, then the room is claimed here.
                if loop.time() >= deadline:
                    raise
            await self._lapse(code, whole=dead)

    async def _lapse(self, code: str, *, whole: bool = False) -> None:
        """Wait until the room's lease has run out: one wait per room, however many
        sockets and requests wait for it (a dead process's players all reconnect at once).
        `whole`: its holder is dead, wait for the expiry in one go."""
        waiting = self._lapses.get(code)
        if waiting is None:
            waiting = asyncio.get_running_loop().create_task(self._until_lapsed(code, whole))
            self._lapses[code] = waiting
            waiting.add_done_callback(lambda _: self._lapses.pop(code, None))
        await asyncio.shield(waiting)

    async def _until_lapsed(self, code: str, whole: bool) -> None:
        try:
            left = await self.redis.pttl(self.ownership.lease_key(code))
        except Exception:
            left = 100
        # A few ms past the expiry, or sooner: a draining owner releases its leases early.
        cap = self.ownership.ttl if whole else 0.1
        await asyncio.sleep(min(left / 1000 + 0.005, cap) if left > 0 else 0.05)

    async def _handed_over(self, owner: str, code: str) -> bool:
        """Ask the owner to let go of a room nobody is connected to (True: it did).

        One question per room, however many of its sockets arrive at once (a table's four
        players connect together): the others wait for the same answer, then find the room
        claimed here, instead of asking an owner that no longer has it."""
        asking = self._yields.get(code)
        if asking is None:
            asking = asyncio.get_running_loop().create_task(self._ask_to_yield(owner, code))
            self._yields[code] = asking
            asking.add_done_callback(lambda _: self._yields.pop(code, None))
        return await asyncio.shield(asking)

    async def _ask_to_yield(self, owner: str, code: str) -> bool:
        try:
            wait = min(YIELD_TIMEOUT, max(0.2, self.ownership.ttl / 2))
            handed = bool(await self.call(owner, code, "yield", timeout=wait))
        except RoomError:
            return False
        if handed:
            # The lease names this process now: take the room here even if the socket
            # that asked is gone meanwhile (else the room waits a ttl for its lease).
            with contextlib.suppress(Exception):
                await self.manager.get(code)
        return handed

    async def _yield(self, room: Room, to: str) -> bool:
        """Owner side of `yield`: hand the room over when no socket, here or relayed, is
        attached to it (nobody sees it move). The lease goes straight to the process that
        asked: released instead, another process's orphan sweep could claim the room in
        between, and the asker would relay its sockets to a room that moves again."""
        if self.manager.draining or room.connections:
            return False
        if self.remotes.of_room(room):
            return False  # a relayed socket is attaching
        await self.manager.drop(room.room_id, release=True, to=to)
        return True

    async def expire_remotes(self) -> None:
        """Owner side: close the relayed connections no heartbeat has listed for a while
        (their edge died, or cannot reach this process). After a pause of this process (a
        long collection), the heartbeats sent meanwhile still wait to be read: every
        connection is given a new period first, not closed for a silence that was ours."""
        last = time.monotonic()
        while True:
            await asyncio.sleep(self.heartbeat)
            now = time.monotonic()
            if now - last > 2 * self.heartbeat:
                self.remotes.touch(now)
            last = now
            stale = self.remotes.expire(now - EXPIRE_AFTER * self.heartbeat)
            if stale:
                log.warning("relay: %d relayed connection(s) silent: closed", stale)

    # --- life cycle -------------------------------------------------------------------

    async def start(self) -> None:
        pubsub = await self._subscribe()
        self.subscribed = True
        for coro in (
            self._publisher(),
            self._listen_forever(pubsub),
            self.watch.run(),
            self.expire_remotes(),
        ):
            task = asyncio.get_running_loop().create_task(coro)
            self._tasks.add(task)

    async def flush(self, wait: float = 2.0) -> None:
        """Let queued messages go out (a drain's close frames)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while self._outbox and loop.time() < deadline:
            await asyncio.sleep(0.02)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()
