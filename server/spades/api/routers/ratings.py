"""Ratings over REST (docs/rules.md "Ratings"): a player's ratings and their history, and
each mode's leaderboard, paged, with the asker's own place.

A private player's ratings are shown only to themself (to anyone else: 404, as their
statistics). On a leaderboard a private player keeps their place, shown anonymised (rank,
rating and games, no id or name), except to themself: hiding them would give everyone
below them a place they did not earn.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam

from spades.rooms.rating import PROVISIONAL_GAMES, Rating, shown_rating
from spades.store.protocol import PlayerRow, Store

from ..guard import refusals
from ..models import Leaderboard, PlayerRatings
from ..players import MaybePlayer
from ..services import services_of
from .players import _shown_player

router = APIRouter()

MIN_GAMES = PROVISIONAL_GAMES  # rated games to be on a leaderboard: no longer provisional
PAGE, MAX_PAGE = 25, 100
MODES: tuple[Literal["partnership", "individual"], ...] = (
    "partnership",
    "individual",
)  # the leaderboard page's order
ModeQuery = Annotated[
    Literal["partnership", "individual"], Query(description="the leaderboard's mode")
]


def _shown(player: PlayerRow) -> dict[str, Any]:
    return {"id": player.id, "name": player.name, "public": player.public}


async def _rating_out(store: Store, player_id: str, mode: str, rating: Rating) -> dict[str, Any]:
    rank = await store.leaderboard_rank(player_id, mode, min_games=MIN_GAMES)
    return {
        "mode": mode,
        "rating": rating.shown,
        "mu": round(rating.mu, 4),
        "sigma": round(rating.sigma, 4),
        "games": rating.games,
        "provisional": rating.provisional,
        "rank": rank,
    }


@router.get(
    "/api/players/{player_id}/ratings",
    response_model=PlayerRatings,
    tags=["players"],
    responses=refusals(401, 404),
)
async def player_ratings(
    player_id: Annotated[str, PathParam(max_length=32)], request: Request, viewer: MaybePlayer
) -> dict[str, Any]:
    """A player's rating per mode and its history (the last 200 rated games). A private
    player's are shown only to themself (to anyone else: 404, as for an unknown player)."""
    store = services_of(request).store
    player = await _shown_player(store, player_id, viewer)
    stored = await store.player_ratings(player.id)
    modes = []
    for mode in MODES:
        r = stored.get(mode)
        rating = Rating() if r is None else Rating(r.mu, r.sigma, r.games)
        modes.append(await _rating_out(store, player.id, mode, rating))
    history = [
        {
            "game_id": h.game_id,
            "mode": h.mode,
            "at": int(h.at.timestamp() * 1000),
            "before": shown_rating(h.mu_before, h.sigma_before),
            "after": shown_rating(h.mu_after, h.sigma_after),
            "quit": h.quit,
        }
        for h in await store.rating_history(player.id)
    ]
    return {"player": _shown(player), "modes": modes, "history": history}


@router.get(
    "/api/leaderboard", response_model=Leaderboard, tags=["players"], responses=refusals(401)
)
async def leaderboard(
    request: Request,
    viewer: MaybePlayer,
    mode: ModeQuery = MODES[0],  # partnership
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
) -> dict[str, Any]:
    """The best players of `mode` (at least MIN_GAMES rated games), `limit` from `offset`;
    with your credential, your own rating and place. Private players are anonymised."""
    store = services_of(request).store
    total, rows = await store.leaderboard(mode, min_games=MIN_GAMES, offset=offset, limit=limit)
    me = viewer.id if viewer is not None else None
    entries = [
        {
            "rank": row.rank,
            "player": (
                {"id": row.player_id, "name": row.name, "public": row.public}
                if row.public or row.player_id == me
                else None
            ),
            "rating": shown_rating(row.rating.mu, row.rating.sigma),
            "games": row.rating.games,
        }
        for row in rows
    ]
    you = None
    if viewer is not None:
        r = (await store.ratings([viewer.id], mode)).get(viewer.id)
        rating = Rating() if r is None else Rating(r.mu, r.sigma, r.games)
        you = await _rating_out(store, viewer.id, mode, rating)
    return {
        "mode": mode,
        "min_games": MIN_GAMES,
        "total": total,
        "offset": offset,
        "entries": entries,
        "you": you,
    }
