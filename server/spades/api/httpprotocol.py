"""uvicorn's HTTP protocol with two limits against clients that hold connections open
without finishing a request (slowloris), which would otherwise use up the process's file
descriptors: every later client, /healthz included, would then be refused.

- A request's head (request line and headers) must arrive within `head_seconds` of the
  connection opening, or of the first byte of the next request on a kept-alive connection.
  A connection that sends nothing, or dribbles a header every few seconds, is closed then.
  (uvicorn's keep-alive timeout covers only the quiet time after a response.)
- A request's head may be at most `head_bytes` long: the HTTP parser has no limit of its
  own, and one head of a hundred megabytes held the event loop for seconds. Only the head
  counts: a body that follows it in the same read is the guard's to limit (a 413 answer,
  api/guard.py), not a reason to drop the connection.
- Its body, if it has one, must then arrive within `body_seconds` of the head: a client
  that announces a body and trickles it (a "slow POST") is closed too. The API's bodies
  are small JSON documents (`SPADES_MAX_BODY_BYTES`), so this takes nothing from anyone.
- One client address may hold at most `per_address` connections in the HTTP phase at once
  (from accept until the upgrade to a WebSocket, or the close); a further one is closed at
  once. WebSockets have their own cap (`SPADES_SOCKETS_PER_ADDRESS`, api/ws.py). Addresses
  of trusted proxies (`SPADES_FORWARDED_ALLOW_IPS`) are not capped: every client behind the
  proxy shares its address, and the proxy keeps its own timeouts (deploy/haproxy.cfg).

`http_protocol(settings)` makes the class `spades serve` gives uvicorn (its `http` setting).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections import Counter
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from spades.config import Settings

from .limits import limit_key

log = logging.getLogger(__name__)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(spec: str) -> tuple[list[Network], bool]:
    """The proxies of `SPADES_FORWARDED_ALLOW_IPS` as networks, and whether `*` (any)."""
    networks: list[Network] = []
    anyone = False
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        if part == "*":
            anyone = True
            continue
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            log.warning("SPADES_FORWARDED_ALLOW_IPS: %r is not an address or network", part)
    return networks, anyone


class GuardedHttpProtocol(HttpToolsProtocol):
    """See the module's docstring. The limits are class attributes (`http_protocol`)."""

    head_seconds: ClassVar[float] = 10.0
    body_seconds: ClassVar[float] = 10.0
    head_bytes: ClassVar[int] = 65_536
    per_address: ClassVar[int] = 0  # 0: no cap
    trusted: ClassVar[tuple[list[Network], bool]] = ([], False)
    open_per_address: ClassVar[Counter[str]] = Counter()  # HTTP-phase connections per address

    _timer: asyncio.TimerHandle | None = None  # the head's, then the body's deadline
    _counted: str | None = None  # the address this connection is counted under
    _head_read: int | None = 0  # bytes of the request head so far (None: its body is next)
    _upgraded = False  # a WebSocket now: its bytes are no longer HTTP's

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        peer = self.client[0] if self.client else None
        address = None if peer is None else limit_key(peer)
        if address is not None and self.per_address and not self._is_trusted(peer or ""):
            if self.open_per_address[address] >= self.per_address:
                log.debug("%s: too many HTTP connections from one address; closed", address)
                transport.close()
                return
            self.open_per_address[address] += 1
            self._counted = address
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:
        if self._head_read is None:  # a body: the guard limits it, and answers 413
            super().data_received(data)
            return
        room = self.head_bytes - self._head_read  # bytes the head may still take
        self._head_read += len(data)
        if len(data) <= room:
            super().data_received(data)
            return
        # Past the head's budget in this read, which may also carry the start of the body
        # (a client writes head and body at once): the head is too large only if it does
        # not end within the budget. The parser is given the budget's bytes alone, and the
        # rest once it has seen the head end.
        self._head_read = self.head_bytes
        if room > 0:
            super().data_received(data[:room])
        if self._head_read == self.head_bytes and not self._upgraded:
            log.debug("%s: request head too large; closed", self.client)
            self._head_read = None
            self.transport.close()
            return
        if not self._upgraded and not self.transport.is_closing():
            self.data_received(data[room:])

    def _is_trusted(self, address: str) -> bool:
        networks, anyone = self.trusted
        if anyone:
            return True
        if not networks:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in networks)

    def _release(self) -> None:
        address, self._counted = self._counted, None
        if address is not None:
            left = self.open_per_address[address] - 1
            if left > 0:
                self.open_per_address[address] = left
            else:
                del self.open_per_address[address]

    def _arm_head_timer(self) -> None:
        if self._timer is None and self.head_seconds > 0:
            self._timer = self.loop.call_later(self.head_seconds, self._head_too_slow)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _head_too_slow(self) -> None:
        self._timer = None
        # Still no whole request head: nothing is being answered on this connection.
        if not self.transport.is_closing():
            log.debug("%s: request head not complete in time; closed", self.client)
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm_head_timer()  # the next request of a kept-alive connection

    def _body_too_slow(self) -> None:
        self._timer = None
        # The head came, the body is still not whole: the app waits for it in vain.
        if not self.transport.is_closing():
            log.debug("%s: request body not complete in time; closed", self.client)
            self.transport.close()

    def on_headers_complete(self) -> None:
        self._cancel_timer()
        self._head_read = None
        super().on_headers_complete()
        # (An upgrade to a WebSocket has no body; handle_websocket_upgrade cancels this.)
        if self.body_seconds > 0 and not self.transport.is_closing():
            self._timer = self.loop.call_later(self.body_seconds, self._body_too_slow)

    def on_message_complete(self) -> None:
        self._cancel_timer()  # the whole request is in
        self._head_read = 0  # (a kept-alive connection's next request)
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        # From here on the socket is a WebSocket, which api/ws.py counts and limits.
        self._cancel_timer()
        self._release()
        self._upgraded = True
        super().handle_websocket_upgrade()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        self._release()
        super().connection_lost(exc)


def http_protocol(settings: Settings) -> type[GuardedHttpProtocol]:
    """A protocol class with `settings`' limits and a count of its own."""
    attrs: dict[str, Any] = {
        "head_seconds": float(settings.request_head_seconds),
        "body_seconds": float(settings.request_body_seconds),
        "head_bytes": settings.max_head_bytes,
        "per_address": settings.http_connections_per_address,
        "trusted": trusted_networks(settings.forwarded_allow_ips),
        "open_per_address": Counter(),
    }
    return type("SpadesHttpProtocol", (GuardedHttpProtocol,), attrs)
