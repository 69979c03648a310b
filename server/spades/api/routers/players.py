"""Players over REST: a guest on a device's first visit, its name and privacy, its live
rooms, and a player's finished games (a private player's only to themself). The credential
is the `X-Spades-Player` header (../players.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi import Path as PathParam

from spades.rooms import BadRequest
from spades.rooms.lobby import my_room, played_game
from spades.rooms.players import new_player, plausible_id, shown_to
from spades.rooms.settings import clean_name
from spades.store.protocol import NotFound, PlayerRow, PlayerTaken, Store

from ..guard import refusals
from ..http_errors import http_error
from ..models import (
    MAX_ID,
    MeOut,
    MyRooms,
    NewPlayer,
    PlayerCreated,
    PlayerGames,
    PlayerOut,
    UpdateMe,
)
from ..players import MaybePlayer, Player
from ..services import services_of
from .accounts import player_out

router = APIRouter()

PAGE = 20  # games per page unless `limit` says otherwise
MAX_PAGE = 50
NO_PLAYER = "no such player"  # an unknown player's answer, and a private one's to others


def _name(request: Request, given: str) -> str:
    try:
        return clean_name(given, services_of(request).settings.name_length)
    except BadRequest as exc:
        raise http_error(exc) from exc


@router.post(
    "/api/players",
    response_model=PlayerCreated,
    status_code=201,
    tags=["players"],
    responses=refusals(429),
)
async def create_player(body: NewPlayer, request: Request) -> PlayerCreated:
    """A new guest player. Its secret is in this answer only: the client keeps it (the
    server keeps its hash) and sends `ID:SECRET` as `X-Spades-Player` from then on."""
    name = _name(request, body.name) if body.name is not None and body.name.strip() else None
    store = services_of(request).store
    for _attempt in range(3):  # an id already used (96 random bits): draw again
        player, secret = new_player(name)
        try:
            await store.create_player(player)
        except PlayerTaken:
            continue
        return PlayerCreated(
            id=player.id, secret=secret, credential=f"{player.id}:{secret}", name=name
        )
    raise HTTPException(503, "no player could be made; try again")


@router.get("/api/me", response_model=MeOut, tags=["players"], responses=refusals(401))
async def me(player: Player, request: Request) -> MeOut:
    """You: a guest (`X-Spades-Player`) or a signed-in account (the session cookie);
    `account` and `username` say which, `admin` whether you are an administrator."""
    admin = await services_of(request).store.is_admin(player.id)
    return MeOut(**player_out(player).model_dump(), admin=admin)


@router.patch("/api/me", response_model=PlayerOut, tags=["players"], responses=refusals(401, 403))
async def update_me(body: UpdateMe, player: Player, request: Request) -> PlayerOut:
    """Your display name, kept for the next visit (rooms already joined keep theirs), and
    whether others may see your player page; each optional, both in one write."""
    name = _name(request, body.name) if body.name is not None else None
    try:
        await services_of(request).store.update_player(player.id, name=name, public=body.public)
    except NotFound as exc:  # deleted since the credential was checked
        raise HTTPException(401, "that player is not known here") from exc
    return PlayerOut(
        id=player.id,
        name=player.name if name is None else name,
        public=player.public if body.public is None else body.public,
        username=player.username,
        account=player.has_account,
    )


@router.get("/api/me/rooms", response_model=MyRooms, tags=["players"], responses=refusals(401))
async def my_rooms(player: Player, request: Request) -> dict[str, Any]:
    """The live rooms (open or playing) where you have a seat, newest first: "Return to your
    game". The seat token for each stays on the device that took the seat."""
    stored = await services_of(request).store.player_rooms(player.id)
    return {"rooms": [r for r in (my_room(s, player.id) for s in stored) if r is not None]}


@router.get(
    "/api/players/{player_id}/games",
    response_model=PlayerGames,
    tags=["players"],
    responses=refusals(401, 404),
)
async def player_games(
    player_id: Annotated[str, PathParam(max_length=32)],
    request: Request,
    viewer: MaybePlayer,
    before: Annotated[
        int | None, Query(ge=1, le=MAX_ID, description="older than this game id")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
) -> dict[str, Any]:
    """A player's finished games, newest first, `limit` at a time. A private player's are
    shown only to themself (to anyone else: 404, as for an unknown player); a private
    room's game names its players only to a viewer who sat in it (send your credential)."""
    store = services_of(request).store
    player = await _shown_player(store, player_id, viewer)
    games = await store.player_games(player_id, before=before, limit=limit + 1)
    page, more = games[:limit], len(games) > limit
    viewer_id = viewer.id if viewer is not None else None
    return {
        "player": {"id": player.id, "name": player.name, "public": player.public},
        "games": [
            played_game(g, names=viewer_id in {p["player_id"] for p in g.players} - {None})
            for g in page
        ],
        "next_before": page[-1].game_id if more else None,
    }


async def _shown_player(store: Store, player_id: str, viewer: PlayerRow | None) -> PlayerRow:
    """The player `player_id` names, when `viewer` may see them; else 404, the same answer
    for an unknown player and a private one (every route showing a player to others)."""
    if not plausible_id(player_id):
        raise HTTPException(404, NO_PLAYER)
    try:
        player = await store.get_player(player_id)
    except NotFound as exc:
        raise HTTPException(404, NO_PLAYER) from exc
    if not shown_to(player, viewer):
        raise HTTPException(404, NO_PLAYER)
    return player
