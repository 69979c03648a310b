"""Quick play over REST: join the queue, poll it (the poll is the heartbeat that keeps your
place, and hands you your seat; it may wait for it, `?wait=`), leave it. The player is the
request's, found as `players.required_player` finds it (the `X-Spades-Player` credential,
or a signed-in session's cookie); a request with neither answers `player_required`."""

from __future__ import annotations

import contextlib
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request

from spades.codes import ErrorCode
from spades.rooms import BadPlayer, RoomError
from spades.rooms.quickplay import QuickPlayRefused, Seated, Waiting
from spades.rooms.quickplay_service import QuickPlay
from spades.store.protocol import PlayerRow

from ..guard import refusals
from ..http_errors import http_error, invalid
from ..models import QuickPlayJoin, QuickPlayState
from ..players import HEADER, CredentialHeader, required_player
from ..services import services_of
from ..sessions import COOKIE, Refused
from .rooms import not_banned

router = APIRouter()

# How often a waiting client that does not wait in its polls polls: often enough that a
# table is taken within a second or two of being made, and that a page closed leaves the
# queue within `quickplay_expire`. A client that asks `?wait=` polls again at once.
POLL_SECONDS = 1.5


async def queued_player(request: Request, credential: CredentialHeader = None) -> PlayerRow:
    """The request's player, as `Player` (players.py) finds it: the credential, or the
    session's; a request with neither is refused with its own code, `player_required`."""
    if credential is None and not request.cookies.get(COOKIE):
        raise BadPlayer(
            f"quick play needs your player: send {HEADER}, or sign in",
            code=ErrorCode.PLAYER_REQUIRED,
        )
    return await required_player(request, credential)


Player = Annotated[PlayerRow, Depends(queued_player)]


def _quickplay(request: Request) -> QuickPlay:
    return services_of(request).quickplay


def state_of(state: Waiting | Seated | str, now: float, wait: float) -> QuickPlayState:
    if isinstance(state, Seated):
        return QuickPlayState(
            status="matched", code=state.code, seat=state.seat, token=state.token, rated=state.rated
        )
    if isinstance(state, Waiting):
        mode, _, target = state.queue.partition(":")
        return QuickPlayState(
            status="seating" if state.seating else "waiting",
            mode=mode,
            target=int(target),
            waiting=state.waiting,
            waiting_mode=state.waiting_mode,
            waited=round(max(0.0, now - state.joined), 1),
            bots_in=None if state.bots_at is None else round(max(0.0, state.bots_at - now), 1),
            poll_seconds=POLL_SECONDS,
            wait_seconds=wait,
        )
    return QuickPlayState(status="left")


@router.post(
    "/api/quickplay",
    response_model=QuickPlayState,
    tags=["quick play"],
    responses=refusals(401, 403, 409, 429, 503),
)
async def join_queue(body: QuickPlayJoin, request: Request, player: Player) -> QuickPlayState:
    """Wait for a table: four players of similar rating (the window widens as you wait) are
    seated in a new rated room. Then poll GET /api/quickplay every `poll_seconds`."""
    await not_banned(request, player)  # 403 `banned`, saying why and until when
    quickplay = _quickplay(request)
    name = body.name if body.name is not None and body.name.strip() else player.name
    if not name:
        raise invalid("a player needs a name: send one, or give your player one", "name")
    try:
        state = await quickplay.join(player.id, name, body.mode, body.target, body.bots_after)
    except QuickPlayRefused:
        raise
    except RoomError as exc:
        raise http_error(exc) from exc
    return answer(quickplay, state)


def answer(quickplay: QuickPlay, state: Waiting | Seated | str) -> QuickPlayState:
    return state_of(state, quickplay.clock.now(), quickplay.config.max_wait)


@router.get(
    "/api/quickplay",
    response_model=QuickPlayState,
    tags=["quick play"],
    responses=refusals(401, 403, 404, 503),
)
async def poll_queue(
    request: Request,
    player: Player,
    wait: Annotated[
        float,
        Query(
            ge=0,
            le=600,
            description="seconds to wait for your seat before answering (at most the "
            "answer's `wait_seconds`, a longer wait is cut to it); 0: answer at once",
        ),
    ] = 0.0,
) -> QuickPlayState:
    """Your place in the queue (and it is kept: a poll is the heartbeat), or your seat once
    a table is made (`matched`, by whichever process you ask; asked again within two
    minutes, the same seat is answered again). With `wait`, the answer comes when your
    seat is made, or after `wait` seconds."""
    quickplay = _quickplay(request)
    try:
        await not_banned(request, player)
    except Refused:  # banned while waiting: out of the queue, and told why
        with contextlib.suppress(RoomError):
            await quickplay.leave(player.id)
        raise
    try:
        state = await quickplay.poll(player.id, wait)
    except QuickPlayRefused:
        raise
    except RoomError as exc:  # the queue is out of reach (503)
        raise http_error(exc) from exc
    return answer(quickplay, state)


@router.delete(
    "/api/quickplay",
    response_model=QuickPlayState,
    tags=["quick play"],
    responses=refusals(401, 404, 503),
)
async def leave_queue(request: Request, player: Player) -> QuickPlayState:
    """Leave the queue: `left`. A seat already made for you is answered instead
    (`matched`), and while your table is being made you cannot leave (`seating`)."""
    quickplay = _quickplay(request)
    try:
        state = await quickplay.leave(player.id)
    except QuickPlayRefused:
        raise
    except RoomError as exc:  # the queue is out of reach (503)
        raise http_error(exc) from exc
    return answer(quickplay, state)
