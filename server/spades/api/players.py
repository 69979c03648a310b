"""The player credential on REST: the `X-Spades-Player` header (`ID:SECRET`, a guest's), or
else the session cookie of a signed-in account (sessions.py).

A header is never sent by a browser on its own, so no other site can make a request in a
guest's name (no CSRF to defend against). The cookie is: a state-changing request it
authenticates must carry the session's CSRF token (sessions.check_csrf).
`spades.rooms.players` checks both.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request, Response

from spades.rooms import BadPlayer
from spades.rooms.players import verified_player
from spades.store.protocol import PlayerRow, SessionRow

from .services import services_of
from .sessions import clear_cookies, request_session

HEADER = "X-Spades-Player"

CredentialHeader = Annotated[
    str | None,
    Header(
        alias=HEADER,
        description="your guest player credential `ID:SECRET` (from POST /api/players); "
        "without it, the session cookie of a signed-in account is used. An unknown id, a "
        "wrong secret or a signed-out session is refused with 401, code `bad_player`",
    ),
]


async def optional_player(
    request: Request, response: Response, credential: CredentialHeader = None
) -> PlayerRow | None:
    """The player the request's credential names (None without one); BadPlayer (401) for an
    unknown id or a wrong secret. A session cookie that no longer opens a session counts
    as none, and is cleared."""
    if credential is not None:
        return await verified_player(services_of(request).store, credential)
    try:
        found = await request_session(request)
    except BadPlayer:
        clear_cookies(request, response)
        return None
    return None if found is None else found[1]


async def required_player(request: Request, credential: CredentialHeader = None) -> PlayerRow:
    if credential is not None:
        return await verified_player(services_of(request).store, credential)
    found = await request_session(request)
    if found is None:
        raise BadPlayer(f"send your player credential in {HEADER}, or sign in")
    return found[1]


async def required_session(request: Request) -> tuple[SessionRow, PlayerRow, str]:
    """The signed-in session (row, player, cookie value), or BadPlayer (401)."""
    found = await request_session(request)
    if found is None:
        raise BadPlayer("you are not signed in")
    return found


MaybePlayer = Annotated[PlayerRow | None, Depends(optional_player)]
Player = Annotated[PlayerRow, Depends(required_player)]
SignedIn = Annotated[tuple[SessionRow, PlayerRow, str], Depends(required_session)]
