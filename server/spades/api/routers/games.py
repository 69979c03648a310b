"""Finished games: a room's history and a game's record (for the review page)."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi import Path as PathParam

from spades.rooms.lobby import game_players, without_names
from spades.rooms.manager import normalize_code, plausible_code
from spades.store.protocol import GameInProgress, NotFound, PlayerRow, Store

from ..guard import refusals
from ..models import MAX_ID, GameSummary, RoomHistory
from ..players import MaybePlayer
from ..review import with_deals
from ..services import services_of

log = logging.getLogger(__name__)

router = APIRouter()


@router.get(
    "/api/rooms/{code}/history",
    response_model=RoomHistory,
    tags=["games"],
    responses=refusals(404),
)
async def room_history(code: str, request: Request) -> RoomHistory:
    # Straight from the database: finished games need no live room, so no owner (in a
    # cluster, no lease and no Redis) and nothing loaded into memory.
    key = normalize_code(code)
    if not plausible_code(key):
        raise HTTPException(404, "no room with that code")
    store = services_of(request).store
    try:
        room_id = await store.room_id_for_code(key)
    except NotFound as exc:
        raise HTTPException(404, "no room with that code") from exc
    finished = await store.finished_games(room_id)
    return RoomHistory(
        games=[
            GameSummary(
                game_id=f.game.id,
                winner=f.game.winner,
                scores=f.game.final_scores,
                hands=[h.summary for h in f.hands],
            )
            for f in finished
        ]
    )


@router.get("/api/games/{game_id}/record", tags=["games"], responses=refusals(401, 404, 409))
async def game_record(
    game_id: Annotated[int, PathParam(ge=0, le=MAX_ID)], request: Request, viewer: MaybePlayer
) -> dict[str, Any]:
    """The game's record, for its review. A private room's record names its players only to
    a viewer who sat in the game (send your player credential)."""
    store = services_of(request).store
    try:
        record: dict[str, Any] = await store.export_game(game_id)
    except GameInProgress as exc:
        # The record holds the master seed, which would reveal every later deal; the
        # store decides, so every process of a cluster refuses it alike.
        raise HTTPException(409, "the game is still being played") from exc
    except NotFound as exc:
        raise HTTPException(404, f"no game {game_id}") from exc
    record = with_deals(record)
    try:
        # Not part of the engine's record: who sits in the game's room today, for the
        # review page's names (a seat may have changed hands since the game).
        players = game_players(await store.game_room(game_id))
        if players["room"] is None and not await _sat_in(store, game_id, viewer):
            players = without_names(players)
        record.update(players)
    except Exception:
        log.warning("game %s: its room's seats could not be read", game_id, exc_info=True)
    return record


async def _sat_in(store: Store, game_id: int, viewer: PlayerRow | None) -> bool:
    """Whether `viewer` was dealt into the game (its players are recorded at the deal)."""
    return viewer is not None and viewer.id in await store.game_seat_players(game_id)
