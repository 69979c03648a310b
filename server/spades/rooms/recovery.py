"""Bringing a room back after a restart: its seats as stored, and its game's actions
replayed from the log (match.Match.load and resume finish what the crash interrupted)."""

from __future__ import annotations

from spades.engine import Game, Rules
from spades.store.protocol import StoredRoom

from .seats import Seat


def stored_seats(stored: StoredRoom, now: float) -> list[Seat]:
    """The room's four seats as stored, everyone disconnected since `now`."""
    seats = [Seat(i) for i in range(4)]
    for seat_row in stored.seats:
        if seat_row.seat in range(4):
            seats[seat_row.seat] = Seat.from_row(seat_row)
    for seat in seats:
        seat.disconnected_at = now
    return seats


def replay(stored: StoredRoom) -> Game:
    """The stored unfinished game, its logged actions applied in order."""
    g = stored.game
    assert g is not None
    game = Game(Rules.from_dict(g.rules), seed=g.seed, first_dealer=g.first_dealer)
    for expected, action in enumerate(stored.actions, start=1):
        if action.seq != expected:
            raise RuntimeError(f"game {g.id}: action {expected} missing from the log")
        game.apply(action.seat, action.action)
    return game


def stored_elapsed(stored: StoredRoom) -> float:
    """Seconds of game clock used before a restart: from the start to the last stored action."""
    game = stored.game
    if game is None or game.started_at is None or not stored.actions:
        return 0.0
    last = stored.actions[-1].at
    if last is None:
        return 0.0
    return max(0.0, (last - game.started_at).total_seconds())
