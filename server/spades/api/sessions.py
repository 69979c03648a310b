"""Sign-in sessions over REST: the cookies, the CSRF defence, and the passwords.

A session is opened by any sign-in method through `open_session` (a password today, a
passkey later): a row in the store (the secret's hash) and two cookies:

- `spades_session` = `SESSION_ID.SECRET`: HttpOnly (no script reads it), SameSite=Lax,
  Path=/, Secure when the request came over TLS (directly, or from a proxy trusted by
  `SPADES_FORWARDED_ALLOW_IPS`, which sets the scheme it forwards).
- `spades_csrf`: readable by the page's own scripts, an HMAC of the session cookie's value
  (keyed by it), so it is bound to the session and no other site can know it. Every
  state-changing request the session cookie authenticates echoes it in `X-Spades-CSRF`
  (double submit), and its `Origin`, when sent, must be this server's host.

Each use is checked against the store (`rooms.players.verified_session`), so a revoked
session is refused at once by every process of a cluster.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from datetime import UTC, datetime
from functools import lru_cache
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import Request, Response
from starlette.datastructures import Headers

from spades.codes import ErrorCode
from spades.rooms.players import SESSION_IDLE, new_session, verified_session
from spades.store.protocol import PlayerRow, PlayerTaken, SessionRow

from .services import services_of

COOKIE = "spades_session"
CSRF_COOKIE = "spades_csrf"
CSRF_HEADER = "X-Spades-CSRF"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

# argon2id with argon2-cffi's defaults (RFC 9106's second recommended profile).
_HASHER = PasswordHasher()


class Refused(Exception):
    """A REST refusal with a code: answered `status` with `{"detail", "code"}`."""

    def __init__(
        self, status: int, code: ErrorCode, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers


class CsrfRefused(Refused):
    """A change authenticated by the session cookie without its CSRF token, or from another
    site: answered 403 (`csrf_failed`), nothing changed."""

    def __init__(self, message: str) -> None:
        super().__init__(403, ErrorCode.CSRF_FAILED, message)


# --- passwords ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _dummy_hash() -> str:  # (made once, on the first sign-in to no account)
    """A hash to check a password against when there is no account: the same work."""
    return _HASHER.hash("no account has this password")


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(_HASHER.hash, password)


async def password_matches(password: str, password_hash: str | None) -> bool:
    """Whether `password` is the one `password_hash` was made of; with no hash (no such
    account) the same work is done against a dummy hash, and the answer is False."""
    target = password_hash if password_hash is not None else _dummy_hash()

    def check() -> bool:
        try:
            return _HASHER.verify(target, password)
        except (VerificationError, InvalidHashError):
            return False

    return await asyncio.to_thread(check) and password_hash is not None


# --- cookies and CSRF --------------------------------------------------------------------


def csrf_token(cookie_value: str) -> str:
    """The CSRF token of a session: an HMAC keyed by its cookie's value."""
    return hmac.new(cookie_value.encode(), b"spades-csrf", hashlib.sha256).hexdigest()


def same_site(headers: Headers) -> bool:
    """No `Origin` (not a browser's cross-site request), or one whose host is this one's."""
    origin = headers.get("origin")
    if origin is None:
        return True
    return bool(origin) and urlsplit(origin).netloc.lower() == headers.get("host", "").lower()


def check_csrf(request: Request, cookie_value: str) -> None:
    if request.method in SAFE_METHODS:
        return
    if not same_site(request.headers):
        raise CsrfRefused("refused: the request came from another site")
    given = request.headers.get(CSRF_HEADER, "")
    if not hmac.compare_digest(given.encode(), csrf_token(cookie_value).encode()):
        raise CsrfRefused(f"refused: send the {CSRF_COOKIE} cookie's value as {CSRF_HEADER}")


async def request_session(request: Request) -> tuple[SessionRow, PlayerRow, str] | None:
    """The request's session (its row, its player, the cookie's value): None without a
    session cookie; BadPlayer when it is unknown, revoked or lapsed; CsrfRefused for a
    state-changing request without the session's CSRF token or from another site."""
    value = request.cookies.get(COOKIE)
    if not value:
        return None
    session, player = await verified_session(services_of(request).store, value)
    check_csrf(request, value)
    return session, player, value


def _set_cookies(request: Request, response: Response, value: str) -> None:
    secure = request.url.scheme == "https"
    age = int(SESSION_IDLE.total_seconds())
    for name, content, http_only in (
        (COOKIE, value, True),
        (CSRF_COOKIE, csrf_token(value), False),
    ):
        response.set_cookie(
            name,
            content,
            max_age=age,
            path="/",
            secure=secure,
            httponly=http_only,
            samesite="lax",
        )


def clear_cookies(request: Request, response: Response) -> None:
    secure = request.url.scheme == "https"
    for name, http_only in ((COOKIE, True), (CSRF_COOKIE, False)):
        response.delete_cookie(name, path="/", secure=secure, httponly=http_only, samesite="lax")


async def open_session(request: Request, response: Response, player_id: str) -> SessionRow:
    """Sign `player_id` in on this browser (any sign-in method ends here): a new session
    stored, and its cookies set on `response`."""
    store = services_of(request).store
    user_agent = request.headers.get("user-agent")
    for _attempt in range(3):  # a session id already used (96 random bits): draw again
        row, value = new_session(player_id, user_agent, datetime.now(UTC))
        try:
            await store.create_session(row)
        except PlayerTaken:
            continue
        _set_cookies(request, response, value)
        return row
    raise RuntimeError("no session id could be drawn")
