"""Players: a guest made on a device's first visit, known by a public id and a secret.

The secret is the player's credential, kept by the client and sent as `ID:SECRET` (the
`X-Spades-Player` header on REST, `sit`'s `player` on the socket); the store keeps only
its hash, as it does a seat token's, and it is compared in constant time.

A player who claimed an account has no guest secret any more: a browser signed in to it
holds a session (`SESSION_ID.SECRET`, in an HttpOnly cookie), whose credential form is
`session:SESSION_ID.SECRET`. The process holding a socket fills `sit`'s `player` with it,
so the room's owner checks either form here, against the store, wherever it runs.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from spades.store.protocol import NotFound, PlayerRow, SessionRow, Store

from .errors import BadPlayer
from .tokens import hash_token, new_token, token_matches

ID_LENGTH = 16  # new_player_id's: 12 bytes of randomness, URL-safe
MAX_CREDENTIAL = 128  # an `ID:SECRET` longer than this is refused before any lookup
UNKNOWN = "that player is not known here, or its secret is wrong"
SESSION_PREFIX = "session:"  # a session's credential form: `session:SESSION_ID.SECRET`
SESSION_IDLE = timedelta(days=30)  # a session unused this long is refused
SESSION_TOUCH = timedelta(hours=1)  # its last use is written at most this often
SIGNED_OUT = "you are not signed in (the session ended, or was signed out)"
DELETED_NAME = "Deleted player"  # what a deleted account's seats and games say instead


def new_player_id() -> str:
    return secrets.token_urlsafe(12)


def new_player(name: str | None) -> tuple[PlayerRow, str]:
    """A new guest's row (its secret hashed) and the secret, which only the client keeps."""
    secret = new_token()
    return PlayerRow(id=new_player_id(), secret_hash=hash_token(secret), name=name), secret


def shown_to(player: PlayerRow, viewer: PlayerRow | None) -> bool:
    """Whether `viewer` (None: nobody named) may see `player`'s page. A private player is
    shown only to themself: to anyone else they are answered as an unknown player is, so
    a private player's id does not even say that it exists."""
    if player.deleted_at is not None:
        return False  # a deleted account: as unknown to everyone
    return player.public or (viewer is not None and viewer.id == player.id)


def plausible_id(player_id: str) -> bool:
    """Whether `player_id` could be a player's id at all (URL-safe, not too long)."""
    return (
        0 < len(player_id) <= 32
        and player_id.isascii()
        and all(c.isalnum() or c in "-_" for c in player_id)
    )


def credential(text: str) -> tuple[str, str]:
    """`ID:SECRET` split, or BadPlayer."""
    player_id, colon, secret = text.strip().partition(":")
    if len(text) > MAX_CREDENTIAL or not colon or not secret or not plausible_id(player_id):
        raise BadPlayer("a player credential is ID:SECRET")
    return player_id, secret


def new_session(player_id: str, user_agent: str | None, now: datetime) -> tuple[SessionRow, str]:
    """A new session's row (its secret hashed) and the cookie value `ID.SECRET`."""
    session_id, secret = secrets.token_urlsafe(12), secrets.token_urlsafe(32)
    row = SessionRow(
        id=session_id,
        player_id=player_id,
        secret_hash=hash_token(secret),
        created_at=now,
        last_used_at=now,
        user_agent=(user_agent or "")[:200] or None,
    )
    return row, f"{session_id}.{secret}"


def session_parts(value: str) -> tuple[str, str]:
    """A session cookie's `ID.SECRET` split, or BadPlayer."""
    session_id, dot, secret = value.strip().partition(".")
    if len(value) > MAX_CREDENTIAL or not dot or not secret or not plausible_id(session_id):
        raise BadPlayer(SIGNED_OUT)
    return session_id, secret


async def verified_session(
    store: Store, value: str, *, now: datetime | None = None
) -> tuple[SessionRow, PlayerRow]:
    """The session a cookie's `ID.SECRET` names and its player, when the secret is right,
    the session not revoked (deleted) nor unused for SESSION_IDLE, and the account not
    deleted; else BadPlayer. Its last use is written (at most once per SESSION_TOUCH)."""
    session_id, secret = session_parts(value)
    now = now or datetime.now(UTC)
    try:
        session = await store.get_session(session_id)
    except NotFound:
        token_matches(secret, hash_token(""))  # the same work as a wrong secret
        raise BadPlayer(SIGNED_OUT) from None
    if not token_matches(secret, session.secret_hash) or now - session.last_used_at > SESSION_IDLE:
        raise BadPlayer(SIGNED_OUT)
    try:
        player = await store.get_player(session.player_id)
    except NotFound:
        raise BadPlayer(SIGNED_OUT) from None
    if player.deleted_at is not None:
        raise BadPlayer(SIGNED_OUT)
    if now - session.last_used_at > SESSION_TOUCH:
        await store.touch_session(session.id)
    return session, player


async def verified_player(store: Store, text: str) -> PlayerRow:
    """The player `text` (`ID:SECRET`, or a session's `session:ID.SECRET`) names, when its
    secret is right; else BadPlayer. An unknown id and a wrong secret are answered alike,
    in about the same time. A guest who claimed an account has no secret left."""
    if text.startswith(SESSION_PREFIX):
        return (await verified_session(store, text[len(SESSION_PREFIX) :]))[1]
    player_id, secret = credential(text)
    try:
        player = await store.get_player(player_id)
    except NotFound:
        token_matches(secret, hash_token(""))  # the same work as a wrong secret
        raise BadPlayer(UNKNOWN) from None
    if not player.secret_hash or not token_matches(secret, player.secret_hash):
        raise BadPlayer(UNKNOWN)
    return player
