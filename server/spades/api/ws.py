"""The WebSocket endpoint: parse and check each frame, then hand it to the room.

Bad input answers an `error` and changes nothing. Only abuse closes the socket: more
messages than the per-connection rate (close 1008) or repeated oversize frames (1009).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from typing import Any

import orjson
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from spades.config import Settings
from spades.rooms import CLOSE_SLOW, RoomError, RoomManager, RoomNotFound
from spades.rooms.observer import now

from .limits import AddressLimiter, TokenBucket
from .metrics import Metrics
from .models import CLIENT_MESSAGE, CLIENT_TYPES

log = logging.getLogger(__name__)

CLOSE_POLICY = 1008  # message rate exceeded
CLOSE_TOO_BIG = 1009  # repeated oversize frames
CLOSE_NO_ROOM = 4004
CLOSE_TOO_MANY = 4029

_ids = itertools.count(1)
_CLOSE = object()


class WsConnection:
    """A socket as a room sees it: `send` queues (never blocks), a writer task drains."""

    def __init__(
        self, websocket: WebSocket, settings: Settings, metrics: Metrics | None = None
    ) -> None:
        self.metrics = metrics
        self.conn_id = next(_ids)
        self.seat: int | None = None
        self.address = websocket.client.host if websocket.client else "?"
        self.websocket = websocket
        self.queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=settings.send_queue)
        self.closing: tuple[int, str] | None = None

    def send(self, message: dict[str, Any]) -> None:
        if self.closing is not None:
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.close(CLOSE_SLOW, "too slow to read its messages")
            return
        if self.metrics is not None and message.get("type") == "error":
            self.metrics.error_sent(str(message.get("code")))

    def close(self, code: int, reason: str) -> None:
        if self.closing is not None:
            return
        self.closing = (code, reason)
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(_CLOSE)
        if self.queue.full():  # make room for the close marker
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.queue.put_nowait(_CLOSE)

    async def write_forever(self) -> None:
        while True:
            message = await self.queue.get()
            if message is _CLOSE:
                code, reason = self.closing or (1000, "")
                with contextlib.suppress(Exception):
                    await self.websocket.close(code=code, reason=reason)
                return
            # orjson, not json: encoding state messages was the largest single cost of a
            # busy server (about a sixth of its CPU with the standard library).
            await self.websocket.send_text(orjson.dumps(message).decode())


def _error(code: str, message: str, ref: Any = None) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, "ref": ref}


def parse_frame(data: str | bytes, settings: Settings) -> tuple[dict[str, Any] | None, Any]:
    """Check one frame; returns (message, None) or (None, error message)."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            return None, _error("bad_json", "frames are UTF-8 JSON text")
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError):
        return None, _error("bad_json", "that is not JSON")
    if not isinstance(raw, dict):
        return None, _error("invalid_message", "a message is a JSON object with a 'type'")
    ref = raw.get("id")
    if not isinstance(ref, str | int) or isinstance(ref, bool) or len(str(ref)) > 64:
        ref = None
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        shown = kind if isinstance(kind, str) and len(kind) <= 32 else "?"
        return None, _error("unknown_type", f"unknown message type {shown!r}", ref)
    try:
        message = CLIENT_MESSAGE.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        return None, _error("invalid_message", f"{where}: {first['msg']}", ref)
    return message.model_dump(), None


async def websocket_endpoint(
    websocket: WebSocket,
    code: str,
    manager: RoomManager,
    settings: Settings,
    connects: AddressLimiter,
    metrics: Metrics | None = None,
) -> None:
    address = websocket.client.host if websocket.client else "?"
    # Refusals accept first, so the browser sees the close code and reason (a refused
    # handshake would only show 1006).
    if not connects.allow(address):
        await websocket.accept()
        await websocket.close(code=CLOSE_TOO_MANY, reason="too many connections; wait a minute")
        return
    try:
        room = await manager.get(code)
    except RoomNotFound:
        await websocket.accept()
        await websocket.close(code=CLOSE_NO_ROOM, reason="no such room")
        return
    await websocket.accept()
    if not room.base_url:
        room.base_url = str(websocket.base_url).replace("ws", "http", 1).rstrip("/")
    conn = WsConnection(websocket, settings, metrics)
    writer = asyncio.create_task(conn.write_forever())
    if metrics is not None:
        metrics.connections.inc()
    bucket = TokenBucket(settings.messages_per_second, settings.message_burst)
    strikes = 0
    try:
        while conn.closing is None:
            frame = await websocket.receive()
            received = now()
            if frame["type"] == "websocket.disconnect":
                break
            data = frame.get("text")
            if data is None:
                data = frame.get("bytes") or b""
            if not bucket.take():
                conn.close(CLOSE_POLICY, "message rate exceeded")
                break
            size = len(data.encode() if isinstance(data, str) else data)
            if size > settings.max_message_bytes:
                strikes += 1
                if strikes >= settings.oversize_strikes:
                    conn.close(CLOSE_TOO_BIG, "repeated oversize messages")
                    break
                conn.send(
                    _error("too_large", f"messages are at most {settings.max_message_bytes} bytes")
                )
                continue
            message, error = parse_frame(data, settings)
            if message is None:
                conn.send(error)
                continue
            if message["type"] == "ping":
                conn.send({"type": "pong", "ref": message.get("id")})
                continue
            try:
                if message["type"] == "hello":
                    await room.call(room.attach, conn, message.get("token"), message.get("id"))
                else:
                    await room.call(room.handle, conn, message, received)
            except RoomError as exc:
                conn.send(_error(exc.code, exc.message, message.get("id")))
                if room.closed:
                    break
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception(
            "room %s: websocket handler failed",
            room.code,
            extra={"room": room.code, "seat": conn.seat},
        )
        conn.close(1011, "server error")
    finally:
        if metrics is not None:
            metrics.connections.dec()
        if not room.closed:
            with contextlib.suppress(Exception):
                await room.call(room.detach, conn)
        if conn.closing is None:
            writer.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(writer, 5)
