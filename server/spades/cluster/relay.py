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

When the owner changes or is gone (its channel has no listener, or the lease names another
process), the edge closes the socket with `CloseCode.RECONNECT`: the client reconnects
at once and lands on the new owner, or on an edge that relays to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import orjson

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

from .lease import RedisOwnership, holder_of

log = logging.getLogger(__name__)

CALL_TIMEOUT = 5.0  # seconds an edge waits for the owner's reply to a REST call
_remote_ids = itertools.count(1 << 40)  # far from the ids of local sockets

_ERRORS: dict[str, type[RoomError]] = {
    "RoomNotFound": RoomNotFound,
    "RoomFull": RoomFull,
    "BadRequest": BadRequest,
}


class RemoteConnection:
    """A socket held by another process, as a room of this one sees it."""

    def __init__(self, relay: Relay, edge: str, edge_conn: int, address: str) -> None:
        self.relay = relay
        self.edge = edge
        self.edge_conn = edge_conn
        self.conn_id = next(_remote_ids)
        self.seat: int | None = None
        self.address = address
        self.closed = False
        self.room: Room | None = None

    def send(self, message: dict[str, Any] | bytes) -> None:
        if not self.closed:
            # An event comes encoded already: embedded as it is.
            body = orjson.Fragment(message) if isinstance(message, bytes) else message
            self.relay.post(self.edge, {"t": "s", "c": self.edge_conn, "m": body}, deaf=self.lost)

    def lost(self) -> None:
        """A message for the socket was not delivered: nobody listens on the edge's channel
        (its process died), or the publish failed (Redis away, if only for a moment). The
        socket missed a state, so it must not go on silently from here: the edge is told to
        close it with `RECONNECT` (the client reconnects and gets a whole state; a dead edge
        hears nothing, which is fine), and the room forgets it."""
        if self.closed:
            return
        self.close(CloseCode.RECONNECT, "the room moved: reconnect")
        room = self.room
        if room is not None and not room.closed:
            self.relay._spawn(_quietly(room.call(room.detach, self)))

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.relay.post(
                self.edge,
                {"t": "x", "c": self.edge_conn, "code": code, "reason": reason},
                retry=True,
            )
            self.relay.forget(self)


class RelayedRoom:
    """What the WebSocket endpoint holds for a room owned elsewhere: the same calls as a
    `Room` (`call`, `attach`, `handle`, `detach`), forwarded to the owner."""

    def __init__(self, relay: Relay, code: str, owner: str) -> None:
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
        if self._conn is not None:
            self.relay.links.pop(conn.conn_id, None)
            self.relay.post(self.owner, {"t": "d", "c": conn.conn_id}, retry=True)

    def moved(self) -> None:
        """The owner changed or is gone: the client must reconnect."""
        if self.closed:
            return
        self.closed = True
        if self._conn is not None:
            self.relay.links.pop(self._conn.conn_id, None)
            self._conn.close(CloseCode.RECONNECT, "the room moved: reconnect")


class Relay:
    def __init__(
        self, redis: Any, *, prefix: str, ownership: RedisOwnership, manager: RoomManager
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.ownership = ownership
        self.node_id = ownership.node_id
        self.manager = manager
        self.channel = self.channel_of(self.node_id)
        self.links: dict[int, RelayedRoom] = {}  # edge side: local socket id -> link
        self.remotes: dict[tuple[str, int], RemoteConnection] = {}  # owner side
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._lapses: dict[str, asyncio.Task[None]] = {}
        self._yields: dict[str, asyncio.Task[bool]] = {}
        self._call_ids = itertools.count(1)
        # (channel, payload, what to call when not delivered, sent again until (monotonic))
        self._outbox: list[tuple[str, bytes, Callable[[], None] | None, float | None]] = []
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
        or the other end would hold a socket nobody serves."""
        message["e"] = self.node_id
        until = time.monotonic() + self.ownership.ttl if retry else None
        self._outbox.append((self.channel_of(node), orjson.dumps(message), deaf, until))
        self._wake.set()

    async def _publisher(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._outbox:
                batch, self._outbox = self._outbox[:500], self._outbox[500:]
                failed = False
                try:
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for channel, payload, _, _ in batch:
                            pipe.publish(channel, payload)
                        heard = await pipe.execute()
                except Exception as exc:
                    if time.monotonic() - self._warned >= 1.0:  # not 20 lines a second
                        self._warned = time.monotonic()
                        log.warning("relay: publish failed: %s", exc)
                    heard = [0] * len(batch)
                    failed = True
                for item, listeners in zip(batch, heard, strict=True):
                    _, _, deaf, until = item
                    if failed and until is not None and time.monotonic() < until:
                        self._outbox.append(item)
                    elif deaf is not None and not listeners:
                        deaf()  # the process at the other end is gone, or Redis is
                if failed:
                    await asyncio.sleep(0.05)

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
            try:
                message = orjson.loads(item["data"])
                self._dispatch(message)
            except Exception:
                log.exception("relay: bad message")

    def _spawn(self, coro: Any) -> None:
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
            if link is not None and link._conn is not None:
                link.closed = True
                link._conn.close(int(msg["code"]), str(msg["reason"]))
        elif kind == "r":  # edge: a reply to a call
            future = self._calls.pop(msg["r"], None)
            if future is not None and not future.done():
                future.set_result(msg)
        elif kind == "a":  # owner: a socket attaches
            self._attach(edge, msg)
        elif kind == "f":  # owner: a client message
            remote = self.remotes.get((edge, msg["c"]))
            if remote is None or remote.room is None or remote.room.closed:
                self._moved(edge, msg["c"], "moved")
                return
            # Queued on the room in arrival order (the task's first step enqueues).
            self._spawn(self._frame(remote, remote.room, msg["m"], now()))
        elif kind == "d":  # owner: the socket is gone
            remote = self.remotes.pop((edge, msg["c"]), None)
            if remote is not None and remote.room is not None and not remote.room.closed:
                remote.closed = True
                self._spawn(_quietly(remote.room.call(remote.room.detach, remote)))
        elif kind == "q":  # owner: a REST call
            self._spawn(self._answer(edge, msg))

    def _attach(self, edge: str, msg: dict[str, Any]) -> None:
        room = self.manager.rooms.get(msg["room"])
        if room is None or room.closed:
            self._moved(edge, msg["c"])
            return
        remote = RemoteConnection(self, edge, msg["c"], str(msg.get("addr", "?")))
        remote.room = room
        self.remotes[(edge, msg["c"])] = remote

    def _moved(self, edge: str, edge_conn: int, reason: str = "the room moved: reconnect") -> None:
        self.post(edge, {"t": "x", "c": edge_conn, "code": CloseCode.RECONNECT, "reason": reason})

    def forget(self, remote: RemoteConnection) -> None:
        self.remotes.pop((remote.edge, remote.edge_conn), None)

    async def _frame(
        self, remote: RemoteConnection, room: Room, message: dict[str, Any], received: float
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

    async def call(self, owner: str, code: str, op: str, *args: Any) -> Any:
        """Ask the owner's room actor; raises the RoomError the owner raised."""
        call_id = next(self._call_ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        self.post(owner, {"t": "q", "r": call_id, "room": code, "op": op, "args": list(args)})
        try:
            reply = await asyncio.wait_for(future, CALL_TIMEOUT)
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
                if (
                    owner
                    and owner != self.node_id
                    and await self.listening(owner)
                    and not await self.ownership.draining(owner)
                ):
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
            await self._lapse(code)

    async def _lapse(self, code: str) -> None:
        """Wait until the room's lease has run out: one wait per room, however many
        sockets and requests wait for it (a dead process's players all reconnect at once)."""
        waiting = self._lapses.get(code)
        if waiting is None:
            waiting = asyncio.get_running_loop().create_task(self._until_lapsed(code))
            self._lapses[code] = waiting
            waiting.add_done_callback(lambda _: self._lapses.pop(code, None))
        await asyncio.shield(waiting)

    async def _until_lapsed(self, code: str) -> None:
        try:
            left = await self.redis.pttl(self.ownership.lease_key(code))
        except Exception:
            left = 100
        # A few ms past the expiry, or sooner: a draining owner releases its leases early.
        await asyncio.sleep(min(left / 1000 + 0.005, 0.1) if left > 0 else 0.05)

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
            handed = bool(await self.call(owner, code, "yield"))
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
        if any(r.room is room for r in self.remotes.values()):
            return False  # a relayed socket is attaching
        await self.manager.drop(room.room_id, release=True, to=to)
        return True

    async def listening(self, node: str) -> bool:
        """Whether a process listens on its channel: a process that died (kill -9) dropped
        its Redis connection, and with it its subscription, at once."""
        counts = await self.redis.pubsub_numsub(self.channel_of(node))
        return bool(counts and counts[0][1])

    async def watch_links(self) -> None:
        """Edge side: a link whose room has a new owner (or none), or whose owner stopped
        listening, is told to reconnect. So is every link once Redis has been out of reach
        for a whole ttl: every owner has dropped its rooms by then (lease.py), so a relayed
        socket would otherwise wait in silence for answers nobody sends."""
        loop = asyncio.get_running_loop()
        checked = loop.time()
        while True:
            await asyncio.sleep(self.ownership.ttl / 4)
            try:
                await self._check_links()
                checked = loop.time()
            except Exception as exc:
                if self.links and loop.time() - checked >= self.ownership.ttl:
                    log.warning(
                        "relay: Redis away (%r): %d socket(s) told to reconnect",
                        exc,
                        len(self.links),
                    )
                    for link in list(self.links.values()):
                        link.moved()

    async def _check_links(self) -> None:
        for node in {link.owner for link in self.links.values()}:
            if not await self.listening(node):
                for link in list(self.links.values()):
                    if link.owner == node:
                        link.moved()
        by_room: dict[str, list[RelayedRoom]] = defaultdict(list)
        for link in list(self.links.values()):
            by_room[link.code].append(link)
        codes = list(by_room)
        for i in range(0, len(codes), 500):
            chunk = codes[i : i + 500]
            values = await self.redis.mget([self.ownership.lease_key(c) for c in chunk])
            for code, value in zip(chunk, values, strict=True):
                owner = holder_of(value)
                for link in by_room[code]:
                    if owner != link.owner:
                        link.moved()

    # --- life cycle -------------------------------------------------------------------

    async def start(self) -> None:
        pubsub = await self._subscribe()
        self.subscribed = True
        for coro in (self._publisher(), self._listen_forever(pubsub), self.watch_links()):
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


async def _quietly(awaitable: Any) -> None:
    with contextlib.suppress(Exception):
        await awaitable
