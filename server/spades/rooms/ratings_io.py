"""What a room gives the rating of a finished game (rating.py): its rated seats as the
room saw them, and the changes from the ratings stored just before the finish."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spades.engine.rules import Mode
from spades.store.protocol import Store

from .rating import RatedSeat, Rating, rate_game
from .table import Table


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
) -> list[dict[str, Any]]:
    """Each rated seat's change (RatingChange.to_dict()), from the stored ratings."""
    ids = [s.player_id for s in seats if s.player_id is not None]
    stored = await store.ratings(ids, mode)
    current = {p: Rating(r.mu, r.sigma, r.games) for p, r in stored.items()}
    return [c.to_dict() for c in rate_game(mode, seats, scores, winner, current)]
