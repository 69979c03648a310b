"""The gate in front of the app (pure ASGI): what a request may cost before any route runs.

- per-address limits (room creations, joins, socket opens, sockets held open), checked
  before a body is read, so a request refused by its validation is not free;
- a REST body size limit, enforced while the body arrives, before anything parses it;
- security headers on every HTTP answer (a Content-Security-Policy that allows only the
  app's own scripts and styles, nosniff, no referrer, no framing);
- `/metrics` only for allowed addresses (loopback by default), never through a proxy that
  is not trusted.

Which peer is "the client address" is decided before this runs: the peer itself, or, for
a proxy listed in `SPADES_FORWARDED_ALLOW_IPS`, the address it forwards (see app.py).
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from spades.codes import CloseCode

from .limits import Action, Limiter, limit_key
from .metrics import Metrics
from .models import Refusal

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# The web client is static files of this server: its scripts, its stylesheet, its own
# WebSocket. Inline style *attributes* are allowed (the client sets a few, e.g. a bar's
# width); inline <script> and <style> elements, other origins, plugins and framing are not.
APP_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# FastAPI's API pages (/docs, /redoc) load their viewer from a CDN with an inline script.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src 'self' https://fonts.gstatic.com; img-src 'self' data: https:; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})
COMMON_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)

_JOIN = re.compile(r"^/api/rooms/[^/]+/join$")
_LOOKUP = re.compile(r"^/api/rooms/[^/]+(/history)?$|^/api/games/[^/]+/record$")


def limited_action(method: str, path: str) -> Action | None:
    """The per-address limit a REST call counts against, if any."""
    if method == "GET" and _LOOKUP.match(path):
        return "lookup"  # a room by its code: the code is the only key to a private room
    if method != "POST":
        return None
    if path in ("/api/rooms", "/api/solo", "/api/players", "/api/account"):
        return "create"
    if _JOIN.match(path) or path == "/api/session/passkey/options":
        return "join"  # (a passkey challenge is a row in the database)
    if path == "/api/quickplay":  # joining quick play (its polls are not counted)
        return "join"
    return None


REFUSALS: dict[Action, str] = {
    "create": "too many rooms (or players) created from your address; wait a minute",
    "join": "too many join attempts from your address; wait a minute",
    "connect": "too many connections; wait a minute",
    "lookup": "too many rooms looked up from your address; wait a minute",
}


def parse_networks(text: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """Comma-separated addresses or networks ("127.0.0.1", "10.0.0.0/8", "::1")."""
    return [
        ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip()
    ]


def _in(address: str, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in networks)


class Guard:
    def __init__(
        self,
        app: ASGIApp,
        *,
        limiter: Limiter,
        max_body_bytes: int,
        metrics_allow: str,
        forwarded_trusted: bool,
        metrics: Metrics | None = None,
    ) -> None:
        self.app = app
        self.limiter = limiter
        self.max_body = max_body_bytes
        self.metrics_allow = parse_networks(metrics_allow)
        self.forwarded_trusted = forwarded_trusted
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    # --- HTTP ------------------------------------------------------------------------

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        policy = DOCS_CSP if path in DOCS_PATHS else APP_CSP
        extra = [(b"content-security-policy", policy.encode()), *COMMON_HEADERS]
        # HEAD is GET without the body (RFC 9110), for every route: FastAPI's routes answer
        # GET only, and health checks that send HEAD got 404. Counted as the GET would be.
        head = scope.get("method") == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}

        async def send_with_headers(message: Message) -> None:
            if head and message["type"] == "http.response.body":
                message = {**message, "body": b""}
            elif message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {bytes(name).lower() for name, _ in headers}
                headers.extend(h for h in extra if h[0] not in present)
                message["headers"] = headers
            await send(message)

        address = _client(scope)
        if path == "/metrics" and not self._may_read_metrics(scope, address):
            await self._refuse(send_with_headers, 403, "metrics are not served to this address")
            return
        action = limited_action(scope.get("method", ""), path)
        if action is not None and not await self.limiter.allow(action, limit_key(address)):
            await self._refuse(send_with_headers, 429, REFUSALS[action])
            return
        body = await self._read_body(scope, receive)
        if body is None:
            await self._refuse(
                send_with_headers, 413, f"request bodies are at most {self.max_body} bytes"
            )
            return
        await self.app(scope, _replay(body, receive), send_with_headers)

    def _may_read_metrics(self, scope: Scope, address: str) -> bool:
        if not self.forwarded_trusted:
            # Relayed by a proxy we do not trust: its peer address (often loopback) says
            # nothing about who asked.
            for name, _ in scope.get("headers", ()):
                if name in (b"x-forwarded-for", b"forwarded"):
                    return False
        return _in(address, self.metrics_allow)

    async def _read_body(self, scope: Scope, receive: Receive) -> list[Message] | None:
        """The request's body messages, or None once it is over the limit (then the
        connection is answered 413 and closed: `_drop_rest` says how much more is read)."""
        headers = dict(scope.get("headers", ()))
        try:
            announced = int(headers.get(b"content-length", b""))
        except ValueError:
            announced = None  # none (chunked), or malformed: the server refuses the latter
        if announced is not None and announced > self.max_body:
            if b"100-continue" not in headers.get(b"expect", b"").lower():
                await _drop_rest(receive, 0, announced)
            return None  # (a client that waits for "100 Continue" has sent no body)
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                return messages  # a disconnect: let the app see it
            size += len(message.get("body", b""))
            more = message.get("more_body", False)
            if size > self.max_body:
                if more:
                    await _drop_rest(receive, size, None)
                return None
            if not more:
                return messages

    async def _refuse(self, send: Send, status: int, detail: str) -> None:
        if self.metrics is not None:
            self.metrics.http_refused(status)
        body = json.dumps({"detail": detail}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        if status == 413:
            headers.append((b"connection", b"close"))
        elif status == 429:
            # The limits count a sliding minute: by then the oldest request has left it.
            headers.append((b"retry-after", b"60"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    # --- WebSocket -------------------------------------------------------------------

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        address = limit_key(_client(scope))
        if not await self.limiter.allow("connect", address):
            await _refuse_socket(receive, send, REFUSALS["connect"])
            return
        if not await self.limiter.hold(address):
            await _refuse_socket(receive, send, "too many open connections from your address")
            return
        try:
            await self.app(scope, receive, send)
        finally:
            await self.limiter.release(address)


# An over-long body is read on and thrown away, up to this many bytes in all, before its
# 413 is sent: a connection closed while bytes the client sent lie unread is reset by the
# kernel, and a client that is still sending then loses the answer (it sees a dropped
# connection). A longer body (or one that stalls: SPADES_REQUEST_BODY_SECONDS) is cut off.
DRAIN_BYTES = 1 << 20


async def _drop_rest(receive: Receive, size: int, announced: int | None) -> None:
    """Read and drop the rest of a refused body, `size` bytes of which were read; nothing
    when its announced length is past DRAIN_BYTES (it would be cut off anyway)."""
    if announced is not None and announced > DRAIN_BYTES:
        return
    while size <= DRAIN_BYTES:
        message = await receive()
        if message["type"] != "http.request":
            return
        size += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


def _replay(body: list[Message], receive: Receive) -> Receive:
    """A `receive` that hands out the body already read, then the server's own."""
    pending = list(body)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed


async def _refuse_socket(receive: Receive, send: Send, reason: str) -> None:
    # Accept first, so the browser sees the close code and reason (a refused handshake
    # would only show 1006).
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": CloseCode.TOO_MANY, "reason": reason})


def safe_validation_errors(errors: Any) -> list[dict[str, Any]]:
    """FastAPI's validation errors without the input they quote: that input may be text
    no encoder can write (a lone surrogate), a NaN, or simply large. Each keeps the field
    it names (`loc`), the reason (`msg`) and the kind (`type`)."""
    out = []
    for error in errors:
        out.append(
            {
                "type": _printable(error.get("type", "")),
                "loc": [p if isinstance(p, int) else _printable(p) for p in error.get("loc", ())],
                "msg": _printable(error.get("msg", "")),
            }
        )
    return out


def _printable(value: Any) -> str:
    text = str(value)
    if len(text) > 200:
        text = text[:200] + "…"
    return text.encode("utf-8", "replace").decode("utf-8")


_MEANINGS = {
    400: "the body could not be read as JSON, or a passkey could not be checked "
    "(`code`: `bad_passkey`)",
    401: "the player credential (`X-Spades-Player` or the session cookie) is missing, "
    "unknown, wrong or signed out (`code`: `bad_player`; both missing on quick play: "
    "`player_required`), or a wrong username or password "
    "(`code`: `bad_login`); nothing changed",
    403: "refused: a change the session cookie authenticates without its CSRF token or "
    "from another site (`code`: `csrf_failed`), or /metrics to an address not allowed",
    404: "no such room or game",
    409: "not now: a full room, a taken seat, a game still being played, a username taken",
    413: "the request body is too large",
    429: "too many requests of this kind from your address (or failed sign-ins to an "
    "account); wait a minute (Retry-After)",
    503: "the database did not answer; nothing changed",
}


def refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for the refusals a route may answer (each a `{"detail"}`)."""
    return {code: {"model": Refusal, "description": _MEANINGS[code]} for code in codes}
