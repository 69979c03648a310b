"""The player credential on REST: the `X-Spades-Player` header (`ID:SECRET`).

A header, not a cookie: a browser never sends it on its own, so no other site can make a
request in the player's name (no CSRF to defend against). `spades.rooms.players` checks it.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from spades.codes import ErrorCode
from spades.rooms import BadPlayer
from spades.rooms.players import verified_player
from spades.store.protocol import PlayerRow

from .services import services_of

HEADER = "X-Spades-Player"

CredentialHeader = Annotated[
    str | None,
    Header(
        alias=HEADER,
        description="your player credential `ID:SECRET` (from POST /api/players); "
        "an unknown id or a wrong secret is refused with 401, code `bad_player`",
    ),
]


async def optional_player(
    request: Request, credential: CredentialHeader = None
) -> PlayerRow | None:
    """The player the request's credential names (None without one); BadPlayer (401) for an
    unknown id or a wrong secret."""
    if credential is None:
        return None
    return await verified_player(services_of(request).store, credential)


async def required_player(request: Request, credential: CredentialHeader = None) -> PlayerRow:
    if credential is None:
        raise BadPlayer(f"send your player credential in {HEADER}", code=ErrorCode.PLAYER_REQUIRED)
    return await verified_player(services_of(request).store, credential)


MaybePlayer = Annotated[PlayerRow | None, Depends(optional_player)]
Player = Annotated[PlayerRow, Depends(required_player)]
