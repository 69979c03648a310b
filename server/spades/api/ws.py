"""The WebSocket endpoint: parse and check each frame, then hand it to the room.

Bad input answers an `error` and changes nothing. Only abuse closes the socket: more
messages than the per-connection rate (`CloseCode.POLICY`) or repeated oversize frames
(`CloseCode.TOO_BIG`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import re
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import orjson
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from spades.codes import CloseCode, ErrorCode
from spades.config import Settings
from spades.rooms import (
    OwnedElsewhere,
    RoomError,
    RoomManager,
    RoomNotFound,
)
from spades.rooms.observer import now
from spades.rooms.protocol import (
    CARD_LENGTH,
    CLIENT_MESSAGE,
    CLIENT_TYPES,
    GAME_ACTION_FIELDS,
    ID_LENGTH,
    MAX_BID,
    MAX_ID,
    MIN_BID,
    MIN_ID,
    NAMED_BIDS,
    TEXT_FIELDS,
)

from .limits import FRAME_COST, KIB_COST, MESSAGE_COSTS, TokenBucket
from .metrics import Metrics
from .wsprotocol import DIRECT, DirectSender

log = logging.getLogger(__name__)


_ids = itertools.count(1)
_CLOSE = object()
# The messages whose `player` credential, left out, is the socket's session's (a sitter's
# player, a speaker's).
NAMES_PLAYER = frozenset({"sit", "chat", "quick"})


class WsConnection:
    """A socket as a room sees it: `send` never blocks.

    A message is written at once when nothing is waiting before it: the ASGI send is
    driven synchronously, which is how it finishes unless the client has stopped reading
    (the transport's flow control). Only then does a task take over, finishing that write
    and the backlog behind it, in order; a backlog of `send_queue` messages means the
    client cannot keep up, and it is cut off (CloseCode.SLOW). Not a writer task per socket,
    woken through a queue for every message: that task switch per message and socket was
    a large share of a busy server's event loop (docs/performance.md, "The socket path").

    Why stepping the ASGI send by hand is safe (issue 13): the first step runs inside a
    task, the room's actor or this socket's endpoint (`send` outside any task starts the
    flusher instead, so the coroutine never runs task-less). On this stack (uvicorn's
    `websockets` protocol) that step writes the frame to the transport synchronously and can
    only then suspend to drain under flow control, on a plain future or a bare yield, holding
    no timeout, lock or cancel scope; `_finish` resumes it in the flusher task exactly as an
    `await` there would. A send path that entered a task-bound context before suspending
    would break this; `tests/api/test_ws_connection.py` runs the real stack to catch it.
    """

    def __init__(
        self, websocket: WebSocket, settings: Settings, metrics: Metrics | None = None
    ) -> None:
        self.metrics = metrics
        self.conn_id = next(_ids)
        self.seat: int | None = None
        self.address = websocket.client.host if websocket.client else "?"
        self.websocket = websocket
        # uvicorn with GameSocketProtocol (`spades serve`) writes frames directly (wsprotocol.py)
        self.direct: DirectSender | None = websocket.scope.get("extensions", {}).get(DIRECT)
        self.limit = settings.send_queue
        self.closing: tuple[int, str] | None = None
        self._backlog: deque[Any] | None = None  # None: no write in flight
        self._flusher: asyncio.Task[None] | None = None

    def send(self, message: dict[str, Any] | bytes) -> None:
        """A message, or one already encoded as UTF-8 JSON (an `event`, rooms/events.py)."""
        if self.closing is not None:
            return
        if isinstance(message, bytes):  # an event: the hot path
            payload = message
        else:
            if self.metrics is not None and message.get("type") == "error":
                self.metrics.error_sent(str(message.get("code")))
            # orjson, not json: with the standard library, encoding state messages was the
            # largest single cost of a busy server (docs/performance.md, "The socket path").
            payload = orjson.dumps(message)
        if self._backlog is not None:
            if len(self._backlog) >= self.limit:
                self.close(CloseCode.SLOW, "too slow to read its messages")
            else:
                self._backlog.append(payload)
            return
        if self.direct is not None and self.direct.send_text(payload):
            return
        text = payload.decode()
        if asyncio.current_task() is None:  # never step the send outside a task
            self._backlog = deque([payload])
            self._flusher = asyncio.get_running_loop().create_task(self._flush(None, None))
            return
        write = self.websocket.send_text(text)
        try:
            waiting = write.send(None)
        except StopIteration:
            return  # written
        except Exception:
            self.closing = (1006, "")  # the socket is gone; the receive loop will see it
            return
        self._backlog = deque()
        self._flusher = asyncio.get_running_loop().create_task(self._flush(write, waiting))

    def close(self, code: int, reason: str) -> None:
        if self.closing is not None:
            return
        self.closing = (code, reason)
        if self._backlog is None:
            self._backlog = deque([_CLOSE])
            self._flusher = asyncio.get_running_loop().create_task(self._flush(None, None))
        else:
            if code == CloseCode.SLOW:
                self._backlog.clear()  # it would never read them: say goodbye next
            self._backlog.append(_CLOSE)

    async def _flush(self, write: Coroutine[Any, Any, None] | None, waiting: Any) -> None:
        try:
            if write is not None:
                await _finish(write, waiting)
            backlog = self._backlog
            while backlog:
                message = backlog.popleft()
                if message is _CLOSE:
                    code, reason = self.closing or (1000, "")
                    with contextlib.suppress(Exception):
                        await self.websocket.close(code=code, reason=reason)
                    return
                await self.websocket.send_text(message.decode())
        except Exception:
            if self.closing is None:
                self.closing = (1006, "")
        finally:
            if self.closing is None:
                self._backlog = None

    async def finish(self, *, wait: float) -> None:
        """The connection is over: let a pending close go out (up to `wait` s), drop the rest."""
        flusher = self._flusher
        if flusher is None or flusher.done():
            return
        if self.closing is None or self.closing[0] == 1006:
            flusher.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(flusher, wait)


async def _finish(write: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Run to its end a coroutine that was started outside any task and suspended on
    `waiting` (the future it awaits, or None for a bare yield), as a task would."""
    try:
        while True:
            if waiting is None:
                await asyncio.sleep(0)
            else:
                await asyncio.wait((waiting,))  # its outcome is for `write` to see
            waiting = write.send(None)
    except StopIteration:
        return
    except BaseException:
        write.close()
        raise


def _echoable(ref: Any) -> bool:
    """An `id` the replies can echo as `ref`: what `MessageId` accepts (a 64-bit integer, or
    text of at most ID_LENGTH characters); anything else is answered with `ref: null`."""
    if isinstance(ref, bool):
        return False
    if isinstance(ref, int):
        return MIN_ID <= ref <= MAX_ID
    return isinstance(ref, str) and len(ref) <= ID_LENGTH and _writable(ref)


def _writable(text: str) -> bool:
    """Text that UTF-8 can carry: no lone UTF-16 surrogate (which JSON's \\ud800 escape
    can smuggle in, and which no reply could ever write back)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# A lone surrogate can only come from a \uD800-\uDFFF escape: frames without one skip the check.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _error(code: str, message: str, ref: Any = None) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, "ref": ref}


def parse_frame(data: str | bytes) -> tuple[dict[str, Any] | None, Any]:
    """Check one frame; returns (message, None) or (None, error message)."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            return None, _error(ErrorCode.BAD_JSON, "frames are UTF-8 JSON text")
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError:
        # The standard library reads what orjson refuses but JSON allows (integers past 64
        # bits, lone surrogate escapes), so those get their own answers below.
        try:
            raw = json.loads(data)
        except (ValueError, RecursionError):
            return None, _error(ErrorCode.BAD_JSON, "that is not JSON")
    if type(raw) is dict and raw.keys() <= GAME_ACTION_FIELDS:
        # The game's own moves, in the shape the clients send them, skip the models (the
        # models' validation was a large share of the receive path: docs/performance.md,
        # "The socket path"). Anything else is left to the models.
        move = _game_move(raw)
        if move is not None and ("\\" not in data or not _SURROGATE_ESCAPE.search(data)):
            return move, None
    if not isinstance(raw, dict):
        return None, _error(ErrorCode.INVALID_MESSAGE, "a message is a JSON object with a 'type'")
    ref = raw.get("id")
    if not _echoable(ref):
        ref = None
    if _SURROGATE_ESCAPE.search(data) and not _writable_json(raw):
        return None, _error(ErrorCode.INVALID_MESSAGE, "text holds a lone UTF-16 surrogate", ref)
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        shown = kind if isinstance(kind, str) and len(kind) <= 32 else "?"
        return None, _error(ErrorCode.UNKNOWN_TYPE, f"unknown message type {shown!r}", ref)
    try:
        message = CLIENT_MESSAGE.validate_python(raw)
    except ValidationError as exc:
        return None, _invalid(exc, ref)
    return message.model_dump(), None


def _invalid(exc: ValidationError, ref: Any) -> dict[str, Any]:
    """The error that answers a message its model refused: its first fault."""
    first = exc.errors()[0]
    loc = first["loc"][1:]
    if first["type"] == "string_too_long" and len(loc) == 1 and loc[0] in TEXT_FIELDS:
        what, limit = TEXT_FIELDS[str(loc[0])], first.get("ctx", {}).get("max_length")
        return _error(ErrorCode.TOO_LONG, f"{what} is longer than {limit} characters", ref)
    where = ".".join(str(p) for p in loc)[:100] or "message"
    return _error(ErrorCode.INVALID_MESSAGE, f"{where}: {first['msg']}", ref)


def _game_move(raw: dict[str, Any]) -> dict[str, Any] | None:
    """`raw` as the models would give it, if it is a well-formed `play`, `bid` or `look`
    with an echoable `id` (or none); None: let the models decide. Its limits are the
    models' own (rooms/protocol.py); tests/api/test_ws_direct.py holds the two to agreeing."""
    ref = raw.get("id")
    plain_id = ref is None or (type(ref) is int and MIN_ID <= ref <= MAX_ID)
    if not plain_id and (type(ref) is not str or len(ref) > ID_LENGTH):
        return None
    kind = raw.get("type")
    if kind == "play":
        card = raw.get("card")
        if type(card) is str and len(card) <= CARD_LENGTH and "bid" not in raw:
            return {"id": ref, "type": "play", "card": card}
    elif kind == "bid":
        bid = raw.get("bid")
        if "card" not in raw and (
            (type(bid) is int and MIN_BID <= bid <= MAX_BID)
            or (type(bid) is str and bid in NAMED_BIDS)
        ):
            return {"id": ref, "type": "bid", "bid": bid}
    elif kind == "look" and "card" not in raw and "bid" not in raw:
        return {"id": ref, "type": "look"}
    return None


def _writable_json(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError, RecursionError):
        return False
    return True


class FrameIntake:
    """One socket's incoming frames: sized, parsed, rate-limited, then handed to the room.

    Nothing here waits for the room: its actor runs what it is handed one command at a
    time, in the order handed, and tells each command's failure, if any, to `_answered`,
    which answers refusals. So a frame is taken the moment it is read: by
    `GameSocketProtocol` straight from the socket (`DirectSender.on_text`), else from the
    endpoint's receive loop; both come here, in the order the frames came. The rate limit
    bounds what one socket can have waiting in the room.

    A room's actor takes each command with `post` (no future, no callback scheduled per
    message); a room relayed to its owner (cluster) has no actor, and a task runs each.
    """

    def __init__(
        self,
        room: Any,
        conn: WsConnection,
        settings: Settings,
        metrics: Metrics | None,
        session: str | None = None,
    ) -> None:
        self.room = room
        # The socket's session credential (`session:ID.SECRET`, from the cookie sent at the
        # handshake): a `sit`, `chat` or `quick` naming no player is filled with it, and
        # the room's owner checks it with the store as it does a guest's
        # (rooms.players.verified_player).
        self.session = session
        self.conn = conn
        self.settings = settings
        self.metrics = metrics
        self.bucket = TokenBucket(settings.messages_per_second, settings.message_burst)
        self.strikes = 0
        self._post = getattr(room, "post", None)  # looked up once, not per frame
        self._answer = self._answered  # (a bound method made once, not per message)
        self.handed = 0  # commands handed to the room
        self.answered = 0  # commands whose outcome `_answered` has seen
        # Replies to frames the room never saw, each waiting until the commands handed
        # before it are answered: (commands handed then, the reply).
        self._held: deque[tuple[int, dict[str, Any]]] = deque()
        self.said_hello = False

    def reply(self, message: dict[str, Any]) -> None:
        """Answer a frame the room never sees, after the answers to the frames before it."""
        if self.answered >= self.handed:
            self.conn.send(message)
        else:
            self._held.append((self.handed, message))

    def take(self, data: str | bytes) -> None:
        """One frame's text (or bytes); never raises (it may run in the socket's callback)."""
        try:
            conn, settings = self.conn, self.settings
            if conn.closing is not None:
                return
            received = now()
            if type(data) is str:  # its size in bytes (isascii is a flag CPython keeps)
                size = len(data) if data.isascii() else len(data.encode())
            else:
                size = len(data)
            if size > settings.max_message_bytes:
                if not self.bucket.take(FRAME_COST):
                    conn.close(CloseCode.POLICY, "message rate exceeded")
                    return
                self.strikes += 1
                if self.strikes >= settings.oversize_strikes:
                    conn.close(CloseCode.TOO_BIG, "repeated oversize messages")
                    return
                self.reply(
                    _error(
                        ErrorCode.TOO_LARGE,
                        f"messages are at most {settings.max_message_bytes} bytes",
                    )
                )
                return
            message, error = parse_frame(data)
            kind = None if message is None else message["type"]
            # Weighed by what it costs the server (limits.frame_cost, inline), not just counted.
            cost = MESSAGE_COSTS.get(kind, FRAME_COST) if kind is not None else FRAME_COST
            if not self.bucket.take(cost + KIB_COST * size / 1024):
                conn.close(CloseCode.POLICY, "message rate exceeded")
                return
            if message is None:
                self.reply(error)
                return
            if kind == "ping":
                self.reply({"type": "pong", "ref": message.get("id")})
                return
            room = self.room
            if kind == "hello":
                self.said_hello = True
                fn, args = room.attach, (conn, message.get("token"), message.get("id"))
            else:
                if (
                    kind in NAMES_PLAYER
                    and self.session is not None
                    and message.get("player") is None
                ):
                    message["player"] = self.session
                fn, args = room.handle, (conn, message, received)
            try:
                if self._post is not None:
                    self._post(fn, args, self._answer, message)
                else:
                    task = asyncio.ensure_future(room.call(fn, *args))
                    task.add_done_callback(lambda done: self._done(done, message))
            except RoomError as exc:  # the room is closed
                self._refused(exc, message)
                return
            self.handed += 1
        except Exception:
            self._failed()

    def _failed(self) -> None:
        log.exception(
            "room %s: websocket handler failed",
            self.room.code,
            extra={"room": self.room.code, "seat": self.conn.seat},
        )
        self.conn.close(CloseCode.SERVER_ERROR, "server error")

    def _done(self, future: asyncio.Future[Any], message: dict[str, Any]) -> None:
        if future.cancelled():
            self._answered(None, message)
        else:
            self._answered(future.exception(), message)

    def _answered(self, exc: BaseException | None, message: dict[str, Any]) -> None:
        """A command's outcome: refusals and failures are answered, then the replies that
        waited for it go out."""
        self.answered += 1
        try:
            if exc is None:
                pass
            elif isinstance(exc, RoomError):
                self._refused(exc, message)
            else:
                # A bug met by one message answers that message; the connection goes on.
                log.error(
                    "room %s: a %s message failed",
                    self.room.code,
                    message["type"],
                    exc_info=exc,
                    extra={"room": self.room.code, "seat": self.conn.seat},
                )
                self.conn.send(
                    _error(ErrorCode.SERVER_ERROR, "the server failed on that message", None)
                )
        finally:
            held = self._held
            while held and held[0][0] <= self.answered:
                self.conn.send(held.popleft()[1])

    def _refused(self, exc: RoomError, message: dict[str, Any]) -> None:
        room, conn = self.room, self.conn
        if room.closed and getattr(room, "status", "") != "abandoned":
            # Stopped here while this message waited: the room moved to another process
            # (handed over, lease lost) or this one is stopping. Not an error of the
            # player's: reconnect, and land where the room is now.
            conn.close(CloseCode.RECONNECT, "the room moved: reconnect")
            return
        conn.send(_error(exc.code, exc.message, message.get("id")))
        if room.closed:
            conn.close(CloseCode.ABANDONED, "the room is closed")


async def websocket_endpoint(
    websocket: WebSocket,
    code: str,
    manager: RoomManager,
    settings: Settings,
    metrics: Metrics | None = None,
    find: Callable[[str], Awaitable[Any]] | None = None,
    session: str | None = None,
) -> None:
    """`find`: in a cluster, the room here or a link relaying to its owner (cluster/relay.py).
    `session`: the signed-in session's credential the handshake carried, if any."""
    # Per-address limits (opens per minute, sockets held) are the Guard's (guard.py).
    # Refusals accept first, so the browser sees the close code and reason (a refused
    # handshake would only show 1006).
    room: Any
    try:
        room = await (find or manager.get)(code)
    except RoomNotFound:
        await websocket.accept()
        await websocket.close(code=CloseCode.NO_ROOM, reason="no such room")
        return
    except OwnedElsewhere:  # its owner is gone and its lease has not lapsed yet
        await websocket.accept()
        await websocket.close(code=CloseCode.RECONNECT, reason="the room is moving: reconnect")
        return
    await websocket.accept()
    conn = WsConnection(websocket, settings, metrics)
    if metrics is not None:
        metrics.connections.inc()
    intake = FrameIntake(room, conn, settings, metrics, session)
    if conn.direct is not None:
        conn.direct.on_text = intake.take

    def hello_overdue() -> None:
        # A socket that never says who it is holds a file descriptor and a slot of its
        # address's cap for nothing: closed (the web client says hello on open).
        if not intake.said_hello and conn.closing is None:
            conn.close(CloseCode.NO_HELLO, "no hello in time")

    no_hello = (
        asyncio.get_running_loop().call_later(settings.hello_seconds, hello_overdue)
        if settings.hello_seconds > 0
        else None
    )
    try:
        while conn.closing is None:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            data = frame.get("text")
            if data is None:
                data = frame.get("bytes") or b""
            intake.take(data)
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception(
            "room %s: websocket handler failed",
            room.code,
            extra={"room": room.code, "seat": conn.seat},
        )
        conn.close(CloseCode.SERVER_ERROR, "server error")
    finally:
        if no_hello is not None:
            no_hello.cancel()
        if conn.direct is not None:
            conn.direct.on_text = None
        if metrics is not None:
            metrics.connections.dec()
        if not room.closed:
            # After everything this socket handed the room (its actor keeps their order).
            with contextlib.suppress(Exception):
                await room.call(room.detach, conn)
        await conn.finish(wait=5)
