"""Players' statistics over REST: per mode, from the totals the store keeps up to date as
each game finishes (a private player's only to themself, as their games)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi import Path as PathParam

from spades.engine.rules import MODES
from spades.engine.stats import Counts, rates
from spades.store.protocol import PlayerRow

from ..guard import refusals
from ..models import PlayerStats
from ..players import MaybePlayer, Player
from ..services import services_of
from .players import _shown_player

router = APIRouter()


async def _stats(request: Request, player: PlayerRow) -> dict[str, Any]:
    totals = await services_of(request).store.player_stats(player.id)
    modes = []
    for mode in MODES[::-1]:  # partnership first, the default game
        counts = totals.get(mode, Counts())
        modes.append({"mode": mode, **counts.to_dict(), **rates(counts)})
    return {
        "player": {"id": player.id, "name": player.name, "public": player.public},
        "modes": modes,
    }


@router.get("/api/me/stats", response_model=PlayerStats, tags=["players"], responses=refusals(401))
async def my_stats(player: Player, request: Request) -> dict[str, Any]:
    """Your statistics per mode."""
    return await _stats(request, player)


@router.get(
    "/api/players/{player_id}/stats",
    response_model=PlayerStats,
    tags=["players"],
    responses=refusals(401, 404),
)
async def player_stats(
    player_id: Annotated[str, PathParam(max_length=32)], request: Request, viewer: MaybePlayer
) -> dict[str, Any]:
    """A player's statistics per mode. A private player's are shown only to themself (to
    anyone else: 404, as for an unknown player)."""
    store = services_of(request).store
    return await _stats(request, await _shown_player(store, player_id, viewer))
