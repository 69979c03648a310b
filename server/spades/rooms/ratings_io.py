"""What a room gives the rating of a finished game (rating.py): its rated seats as the
room saw them, and the changes from the ratings stored just before the finish; and what it
shows of ratings (a rated room's seated players' ratings, and the last game's changes)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from spades.engine.rules import Mode
from spades.store.protocol import Store

from .rating import RatedSeat, Rating, rate_game, shown_rating
from .table import SeatRating, Table

log = logging.getLogger(__name__)


def rated_seats(
    table: Table, moves: Sequence[Sequence[int]], now: float, grace: float
) -> list[RatedSeat] | None:
    """The seats of the game that just ended, when the room is rated (else None): each
    person's player, the share of the seat's actions they made, and whether they left (gone
    past the grace period at the end, the bot finishing for them)."""
    if not table.settings.rated:
        return None
    seats = []
    for seat in table.seats:
        if seat.kind != "human" or seat.player_id is None:
            continue
        own, bot = moves[seat.index]
        gone = seat.disconnected_at
        seats.append(
            RatedSeat(
                seat=seat.index,
                player_id=seat.player_id,
                weight=own / (own + bot) if own + bot else 1.0,
                quit=gone is not None and now >= gone + grace and bot > 0,
            )
        )
    return seats or None


async def rating_changes(
    store: Store, mode: Mode, seats: Sequence[RatedSeat], scores: list[int], winner: int | None
) -> tuple[list[dict[str, Any]], dict[str, Rating]]:
    """Each rated seat's change (RatingChange.to_dict()), from the stored ratings; and
    those ratings (a player never rated is absent)."""
    ids = [s.player_id for s in seats if s.player_id is not None]
    stored = await store.ratings(ids, mode)
    current = {p: Rating(r.mu, r.sigma, r.games) for p, r in stored.items()}
    return [c.to_dict() for c in rate_game(mode, seats, scores, winner, current)], current


async def load_ratings(store: Store, table: Table) -> None:
    """A rated room's seated players' ratings, read into `table.ratings` (what the seats
    show). A failed read is logged and shows none: it takes nothing else from the room."""
    if not table.settings.rated:
        return
    ids = [s.player_id for s in table.seats if s.kind == "human" and s.player_id is not None]
    if not ids:
        return
    try:
        stored = await store.ratings(ids, table.settings.mode)
    except Exception as exc:
        log.warning("room %s: the players' ratings could not be read (%r)", table.code, exc)
        return
    for player_id in ids:
        r = stored.get(player_id)
        rating = Rating() if r is None else Rating(r.mu, r.sigma, r.games)
        table.ratings[player_id] = SeatRating(rating.shown, rating.provisional)


def show_changes(
    table: Table, changes: Sequence[dict[str, Any]], current: Mapping[str, Rating]
) -> None:
    """A rated game's changes, as its room shows them once the finish is stored: each seat's
    shown rating before and after, and each player's rating now."""
    shown = []
    for c in changes:
        player_id = c["player_id"]
        before = shown_rating(c["mu_before"], c["sigma_before"])
        after = shown_rating(c["mu_after"], c["sigma_after"])
        shown.append((c["seat"], before, after))
        games = current.get(player_id, Rating()).games + 1
        table.ratings[player_id] = SeatRating(after, Rating(games=games).provisional)
    table.rating_changes = tuple(shown)
