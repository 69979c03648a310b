"""uvicorn's sans-I/O WebSocket protocol with two shortcuts for the game's hot path.

Every accepted action sends one frame to each seat and spectator of the room, and each
went through Starlette's `send_text`, its exception wrapper, uvicorn's ASGI `send` (an
awaited coroutine) and websockets' frame builder before reaching the transport: a large
share of a busy server's CPU for a few hundred bytes per socket. And each message received
paused and resumed the socket's reading (two `epoll_ctl` changes per message). The figures
are in docs/performance.md, "The socket path".

- `DirectSender` (in the ASGI scope's extensions, as `spades.direct`) writes a text frame
  straight to the transport when nothing stands in the way: the handshake is done, no
  close was sent or received, and the transport is not holding writes back (the peer
  reads). In any other case it declines, and the caller takes the ordinary ASGI path,
  which waits, or raises for a socket that is gone. The frame is built here rather than
  by websockets because a server's unmasked, unfragmented text frame is two to ten
  header bytes and the payload (RFC 6455, 5.2); nothing else of the protocol's state
  changes when one is sent.
- A text message goes straight to the endpoint's handler (`on_text`, api/ws.py
  `FrameIntake`), which checks it and hands it to the room without waiting for the room;
  no ASGI queue, no task to wake. Whatever waits in the ASGI queue still goes first.
- The client's frames are read here (`_take_frames`): complete masked text frames and
  pongs, which is nearly everything a player sends; anything else, or a frame split over
  segments, hands the socket back to websockets' parser for good, at a frame boundary.
- The keepalive ping goes only to a socket that was silent for the whole ping interval:
  data that came in since proves the peer alive, as a pong would (the web client sends
  a `ping` message every 15 s). A silent socket is pinged and closed without a pong, as
  before.
- A client's control pings have a budget (`PING_BURST` at once, then one per
  `PING_EVERY` seconds): each is answered by a pong outside the message rate limit, so a
  flood of them would take the CPU for pongs. Past the budget the socket is closed with
  `CloseCode.POLICY`. Browsers send no such pings; libraries send one every 20 s or so.
- Reading pauses only once `READ_BACKLOG` messages wait for the app, not at the first one.
  The per-connection rate limit (api/limits.py) bounds what a client may send; this only
  bounds what is buffered before the app has read it.

A plain uvicorn (the tests' in-process servers may use one) simply has no `spades.direct`:
the endpoint then sends everything the ordinary way.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Request

from spades.codes import CloseCode

try:  # websockets' own C unmasking, as its parser uses
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - a build of websockets without its C extension
    from websockets.utils import apply_mask

log = logging.getLogger(__name__)

DIRECT = "spades.direct"
READ_BACKLOG = 16  # messages waiting for the app before the socket stops being read
PING_BURST = 10  # control pings a client may send at once
PING_EVERY = 1.0  # and then one per this many seconds

_TEXT_FIN = 0x81  # FIN bit + opcode 1 (text)
_SHORT = struct.Struct("!BB")
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")


def text_frame(payload: bytes) -> bytes:
    """A server's (unmasked) single-frame text message."""
    size = len(payload)
    if size < 126:
        return _SHORT.pack(_TEXT_FIN, size) + payload
    if size < 65_536:
        return _MEDIUM.pack(_TEXT_FIN, 126, size) + payload
    return _LONG.pack(_TEXT_FIN, 127, size) + payload


class DirectSender:
    """Writes a text frame to one socket at once, or declines (False); and, while the app
    sets `on_text`, hands it each text message as it is read, instead of through the ASGI
    receive queue."""

    __slots__ = ("_protocol", "on_text")

    def __init__(self, protocol: GameSocketProtocol) -> None:
        self._protocol = protocol
        self.on_text: Callable[[str], None] | None = None

    def send_text(self, payload: bytes) -> bool:
        p = self._protocol
        transport = p.transport
        # As uvicorn's own send checks, without a Python call: `write_paused` mirrors its
        # `writable` event, and a transport closing stands for websockets' state past OPEN
        # (uvicorn closes the transport whenever a close frame goes out or comes in).
        if (
            p.close_sent
            or p.disconnected
            or p.write_paused
            or not p.handshake_complete
            or p.initial_response is not None
            or transport.is_closing()
        ):
            return False
        size = len(payload)  # text_frame, inline: this runs for every socket of every action
        if size < 126:
            transport.write(_SHORT.pack(_TEXT_FIN, size) + payload)
        else:
            transport.write(text_frame(payload))
        return True


class GameSocketProtocol(WebSocketsSansIOProtocol):
    """`spades serve`'s WebSocket protocol (uvicorn's `ws` setting)."""

    direct: DirectSender | None = None
    write_paused = False  # uvicorn's `writable` is clear (the transport holds writes back)
    # Whether this protocol reads the client's frames itself (`_take_frames`) instead of
    # websockets: from the handshake on, and only while websockets has seen no frame byte.
    _own_frames = False
    _fed = 0  # data_received calls before the handshake request was read
    _heard = 0.0  # loop time the client last sent anything
    # A text message of this socket went to the ASGI queue (before the app took messages
    # directly): the queue must be empty before the next one skips it.
    _queued = False

    def data_received(self, data: bytes) -> None:
        self._heard = self.loop.time()
        if self._own_frames:
            if self.handshake_complete and not self.close_sent:
                data = self._take_frames(data)
                if not data:
                    return
            # From this frame boundary on, websockets reads this socket.
            self._own_frames = False
            super().data_received(data)
            return
        if self.handshake_initiated:
            super().data_received(data)
            return
        self._fed += 1
        super().data_received(data)
        # The request came whole in the first segment and nothing after it: websockets'
        # parser stands at the first frame's boundary, so the frames can be read here.
        if (
            self.handshake_initiated
            and self._fed == 1
            and data.endswith(b"\r\n\r\n")
            and data.count(b"\r\n\r\n") == 1
        ):
            self._own_frames = True

    def _take_frames(self, data: bytes) -> bytes:
        """Read the complete masked text and pong frames at the front of `data` (RFC 6455,
        5.2), as websockets' parser would, at a fraction of its cost per message; return
        the rest from the first frame that is anything else or not complete yet (a close,
        a ping, a fragment, one too big, invalid UTF-8, ...), which websockets then reads."""
        pos, end_of_data = 0, len(data)
        limit = self.config.ws_max_size
        while end_of_data - pos >= 6:
            first, second = data[pos], data[pos + 1]
            if not second & 0x80:  # unmasked: a protocol error websockets answers
                break
            size = second & 0x7F
            head = pos + 2
            if size == 126:
                if end_of_data - pos < 8:
                    break
                size = int.from_bytes(data[head : head + 2], "big")
                head += 2
            elif size == 127:
                break
            end = head + 4 + size
            if end > end_of_data or (limit is not None and size > limit):
                break
            payload = apply_mask(data[head + 4 : end], data[head : head + 4])
            if first == 0x81:  # FIN, no extension bits, text
                try:
                    text = payload.decode()
                except UnicodeDecodeError:
                    break
                # Straight to the app's handler (once per message, inline), unless a
                # message may still wait in the ASGI queue (it came first).
                take = self.direct.on_text if self.direct is not None else None
                if (
                    take is not None
                    and not self.close_sent
                    and (not self._queued or self.queue.empty())
                ):
                    take(text)
                else:
                    self._queued = True
                    self.handle_text(Frame(Opcode.TEXT, payload))
            elif first == 0x8A and size <= 125:  # pong (keepalive)
                self.handle_pong(Frame(Opcode.PONG, payload))
            else:
                break
            pos = end
        return data[pos:]

    _ping_credit = float(PING_BURST)
    _ping_at = 0.0  # loop time of the client's latest control ping

    def handle_events(self) -> None:
        # As uvicorn's, but the client's pings are counted first: websockets queues a pong
        # for each as it parses, so a segment of two thousand pings had two thousand pongs
        # waiting before the first ping's handler ran.
        events = self.conn.events_received()
        pings = sum(1 for e in events if isinstance(e, Frame) and e.opcode is Opcode.PING)
        if pings and not self._pings_allowed(pings):
            log.info("%s: too many pings; closing (%d)", self.client, CloseCode.POLICY)
            self.conn.data_to_send()  # the pongs queued for them
            self.conn.send_close(CloseCode.POLICY, "too many pings")
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.transport.close()
            return
        for event in events:
            if isinstance(event, Request):
                self.handle_connect(event)
            elif not isinstance(event, Frame):  # a server receives no Response
                continue
            elif event.opcode is Opcode.CONT:
                self.handle_cont(event)
            elif event.opcode is Opcode.TEXT:
                self.handle_text(event)
            elif event.opcode is Opcode.BINARY:
                self.handle_bytes(event)
            elif event.opcode is Opcode.PING:
                self.handle_ping()
            elif event.opcode is Opcode.PONG:
                self.handle_pong(event)
            elif event.opcode is Opcode.CLOSE:
                self.handle_close(event)

    def _pings_allowed(self, pings: int) -> bool:
        now = self.loop.time()
        credit = min(float(PING_BURST), self._ping_credit + (now - self._ping_at) / PING_EVERY)
        self._ping_at = now
        self._ping_credit = credit - pings
        return self._ping_credit >= 0

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the handshake was accepted; the app has not run yet
            self.direct = DirectSender(self)
            scope["extensions"][DIRECT] = self.direct

    def handle_text(self, event: Frame) -> None:
        direct = self.direct
        take = direct.on_text if direct is not None else None
        # Straight to the app's handler, unless messages still wait in the ASGI queue
        # (they came first) or the message is fragmented (rare; the queue path joins it).
        if take is None or not event.fin or not self.queue.empty() or self.close_sent:
            super().handle_text(event)
            return
        try:
            text = str(event.data, "utf-8")
        except UnicodeDecodeError:
            super().handle_text(event)  # uvicorn's answer to invalid UTF-8 (CloseCode.INVALID_TEXT)
            return
        take(text)

    def pause_writing(self) -> None:
        self.write_paused = True
        super().pause_writing()
        # A peer that does not read stops being read too: otherwise each of its pings
        # (control frames, outside the message rate limit) queues a pong in the send buffer,
        # which would grow without bound.
        if not self.transport.is_closing():
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        self.write_paused = False
        super().resume_writing()
        if not self.read_paused and not self.transport.is_closing():
            self.transport.resume_reading()

    async def receive(self) -> Any:
        # As uvicorn's, but the app draining its queue resumes reading only while writes
        # flow: a peer that does not read stays unread (see pause_writing), and
        # resume_writing resumes reading once the queue has drained.
        message = await self.queue.get()
        if self.read_paused and self.queue.empty():
            self.read_paused = False
            if not self.write_paused and not self.transport.is_closing():
                self.transport.resume_reading()
        return message

    _stopping = False  # the server is stopping (uvicorn's `shutdown`)

    def shutdown(self) -> None:
        self._stopping = True
        super().shutdown()

    def send_500_response(self) -> None:
        """uvicorn answers 500 to an upgrade still in progress when the server stops. A stop
        (a drain, a rolling restart) is no server error: 503 with Retry-After, which the
        client (and HAProxy, docs/operations.md) tries again, landing on another process."""
        if not self._stopping:
            super().send_500_response()
            return
        if self.initial_response or self.handshake_complete:
            return
        response = self.conn.reject(503, "the server is restarting: try again\n")
        response.headers["Retry-After"] = "1"
        self.conn.send_response(response)
        self.transport.write(b"".join(self.conn.data_to_send()))

    def connection_lost(self, exc: Exception | None) -> None:
        self.write_paused = False  # as uvicorn sets `writable`: nothing will drain now
        super().connection_lost(exc)

    def send_keepalive_ping(self) -> None:
        interval = self.ping_interval
        if interval and self.pending_ping_payload is None:
            quiet = self.loop.time() - self._heard
            if quiet < interval:  # heard from within the interval: alive, no ping needed
                self.ping_timer = self.loop.call_later(interval - quiet, self.send_keepalive_ping)
                return
        super().send_keepalive_ping()

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            # Text that is not UTF-8 closes the socket (CloseCode.INVALID_TEXT), as uvicorn
            # does, but with one line in the log instead of an ERROR and two tracebacks per
            # frame: any client can send it, so it is not the server's error.
            try:
                b"".join(self.frames).decode()
            except UnicodeDecodeError:
                self.frames = []
                log.info(
                    "%s: text that is not UTF-8; closing (%d)", self.client, CloseCode.INVALID_TEXT
                )
                self.conn.send_close(CloseCode.INVALID_TEXT)
                self.handle_parser_exception()
                return
        # As uvicorn's, but the socket is paused only once READ_BACKLOG messages wait.
        read_paused = self.read_paused
        self.read_paused = True  # keeps the parent from pausing at the first message
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = read_paused
        if not self.read_paused and self.queue.qsize() >= READ_BACKLOG:
            self.read_paused = True
            self.transport.pause_reading()
