"""Players: a guest made on a device's first visit, known by a public id and a secret.

The secret is the player's credential, kept by the client and sent as `ID:SECRET` (the
`X-Spades-Player` header on REST, `sit`'s `player` on the socket); the store keeps only
its hash, as it does a seat token's, and it is compared in constant time.
"""

from __future__ import annotations

import secrets

from spades.store.protocol import NotFound, PlayerRow, Store

from .errors import BadPlayer
from .tokens import hash_token, new_token, token_matches

ID_LENGTH = 16  # new_player_id's: 12 bytes of randomness, URL-safe
MAX_CREDENTIAL = 128  # an `ID:SECRET` longer than this is refused before any lookup
UNKNOWN = "that player is not known here, or its secret is wrong"


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


async def verified_player(store: Store, text: str) -> PlayerRow:
    """The player `text` (`ID:SECRET`) names, when its secret is right; else BadPlayer.
    An unknown id and a wrong secret are answered alike, in about the same time."""
    player_id, secret = credential(text)
    try:
        player = await store.get_player(player_id)
    except NotFound:
        token_matches(secret, hash_token(""))  # the same work as a wrong secret
        raise BadPlayer(UNKNOWN) from None
    if not token_matches(secret, player.secret_hash):
        raise BadPlayer(UNKNOWN)
    return player
