"""Seats: who sits where (a human with a secret token, a bot, or nobody) and the host rule."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from spades.store.protocol import SeatRow

from .tokens import token_matches

SeatKind = Literal["human", "bot", "empty"]
BOT_NAMES = ("South Bot", "West Bot", "North Bot", "East Bot")


@dataclass
class Seat:
    index: int
    kind: SeatKind = "empty"
    name: str | None = None
    bot_level: str | None = None
    token_hash: str | None = None
    away: bool = False
    timed_out: bool = False
    timeouts_in_row: int = 0
    disconnected_at: float | None = None
    player_id: str | None = None  # the player who sat here, when their client named one

    def row(self, room_id: str) -> SeatRow:
        return SeatRow(
            room_id=room_id,
            seat=self.index,
            name=self.name,
            bot_level=self.bot_level if self.kind == "bot" else None,
            token_hash=self.token_hash if self.kind == "human" else None,
            player_id=self.player_id if self.kind == "human" else None,
        )

    @classmethod
    def from_row(cls, row: SeatRow) -> Seat:
        if row.bot_level:
            return cls(row.seat, "bot", row.name or "Bot", row.bot_level)
        if row.token_hash:
            return cls(row.seat, "human", row.name, None, row.token_hash, player_id=row.player_id)
        return cls(row.seat)

    @classmethod
    def bot(cls, index: int, level: str) -> Seat:
        return cls(index, "bot", BOT_NAMES[index], level)

    def reset_flags(self) -> None:
        if self.away or self.timed_out or self.timeouts_in_row:  # (mostly none: every action)
            self.away = self.timed_out = False
            self.timeouts_in_row = 0

    def timed_out_once(self, *, limit: int, connected: bool) -> None:
        """The turn timer ran out and the bot moved: `limit` in a row (or gone) is away."""
        self.timed_out = True
        self.timeouts_in_row += 1
        if self.timeouts_in_row >= limit or not connected:
            self.away = True


def seat_for_token(seats: Sequence[Seat], token: str) -> int | None:
    found = None
    for seat in seats:  # check every seat so the time taken says nothing
        if token_matches(token, seat.token_hash) and seat.kind == "human":
            found = seat.index
    return found


def host_gone(
    seats: Sequence[Seat], host_seat: int | None, *, connected: bool, now: float, grace: float
) -> bool:
    """The host left for good: no human host, or gone past the grace period. Then a present
    player who asks for a host's command takes over."""
    if host_seat is None:
        return True
    host = seats[host_seat]
    if host.kind != "human":
        return True
    until = None if connected else host_away_until(host, grace)
    return until is not None and now >= until


def host_away_until(host: Seat, grace: float) -> float | None:
    """When a disconnected human host's role passes on (None: not a host who dropped)."""
    if host.kind != "human" or host.disconnected_at is None:
        return None
    return host.disconnected_at + grace


def first_human(seats: Sequence[Seat]) -> int | None:
    humans = [s.index for s in seats if s.kind == "human"]
    return humans[0] if humans else None
