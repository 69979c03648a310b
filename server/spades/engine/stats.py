"""A finished game's statistics per seat (docs/rules.md "Statistics"): what a player's
totals add up, game by game. Pure: computed from the game's hand history and winner, so
a game replayed from its log gives the same figures as the game that was played.

Scores are kept per side (a team in partnership, a player in individual play), so the
side's figures are each of its seats': a contract is the side's, and so are its bags and
points.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from .game import Game
from .rules import Mode, Rules

# The counters of a seat's game and of a player's totals, in this order everywhere (the
# store's columns, the wire's fields).
COUNTERS: tuple[str, ...] = (
    "games",
    "won",
    "hands",
    "contracts_bid",
    "contracts_made",
    "sets",
    "nils_bid",
    "nils_made",
    "blind_nils_bid",
    "blind_nils_made",
    "bags",
    "points",
)


@dataclass(frozen=True, slots=True)
class Counts:
    """Counters over one game of one seat, or summed over many games.

    `contracts_bid`: hands the seat's contract (its side's) was there to make: not when
    every seat of the side bid nil. `sets`: those of them the side was set on. `bags`: the
    side's bags taken (overtricks and tricks taken by nil bidders). `points`: the side's
    points over the hands, bag penalties included."""

    games: int = 0
    won: int = 0
    hands: int = 0
    contracts_bid: int = 0
    contracts_made: int = 0
    sets: int = 0
    nils_bid: int = 0
    nils_made: int = 0
    blind_nils_bid: int = 0
    blind_nils_made: int = 0
    bags: int = 0
    points: int = 0

    def values(self) -> tuple[int, ...]:
        """The counters in `COUNTERS` order."""
        return tuple(getattr(self, name) for name in COUNTERS)

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(a + b for a, b in zip(self.values(), other.values(), strict=True)))

    def to_dict(self) -> dict[str, int]:
        return dict(zip(COUNTERS, self.values(), strict=True))


assert tuple(f.name for f in fields(Counts)) == COUNTERS


@dataclass(frozen=True, slots=True)
class SeatStats:
    """One seat's counters for one finished game, under the game's mode."""

    seat: int
    mode: Mode
    counts: Counts


def seat_stats(
    rules: Rules, history: Sequence[Mapping[str, Any]], winner: int | None
) -> tuple[SeatStats, ...]:
    """Each seat's statistics of a game from its hand summaries (`Game.history`'s
    entries) and its winning side (None: nobody won, as for a game not over)."""
    return tuple(
        SeatStats(seat, rules.mode, _counts(rules, history, winner, seat)) for seat in range(4)
    )


def _counts(
    rules: Rules, history: Sequence[Mapping[str, Any]], winner: int | None, seat: int
) -> Counts:
    side = rules.side_of(seat)
    made = bid = sets = nils = nils_made = blinds = blinds_made = bags = points = 0
    for hand in history:
        contract = hand["contract_made"][side]
        if contract is not None:
            bid += 1
            made += contract is True
            sets += contract is False
        said = hand["bids"][seat]
        if said == "nil":
            nils += 1
            nils_made += hand["nil_made"][seat] is True
        elif said == "blind nil":
            blinds += 1
            blinds_made += hand["nil_made"][seat] is True
        bags += hand["bags_added"][side]
        points += hand["points"][side]
    return Counts(
        games=1,
        won=int(winner is not None and winner == side),
        hands=len(history),
        contracts_bid=bid,
        contracts_made=made,
        sets=sets,
        nils_bid=nils,
        nils_made=nils_made,
        blind_nils_bid=blinds,
        blind_nils_made=blinds_made,
        bags=bags,
        points=points,
    )


def game_stats(game: Game) -> tuple[SeatStats, ...]:
    """Each seat's statistics of a game that is over. Raises ValueError for one that is
    not (its figures would change)."""
    if game.phase != "over":
        raise ValueError("statistics are those of a finished game")
    return seat_stats(game.rules, game.history, game.winner)


def record_stats(record: dict[str, Any]) -> tuple[SeatStats, ...]:
    """`game_stats` of a game record (`Game.to_record`, `record.game_record`) replayed.
    Raises RecordError for a broken record, ValueError for a game not over."""
    return game_stats(Game.from_record(record))


def totals(stats: Iterable[Counts]) -> Counts:
    """The sum of counters (a player's games under one mode)."""
    total = Counts()
    for counts in stats:
        total = total + counts
    return total


def rates(counts: Counts) -> dict[str, float | None]:
    """What a player page shows of totals: shares and averages (None where nothing was
    counted to divide by). Percentages are 0..100."""

    def share(part: int, whole: int, scale: float = 1.0) -> float | None:
        return None if whole == 0 else round(scale * part / whole, 2)

    return {
        "won_pct": share(counts.won, counts.games, 100.0),
        "contracts_made_pct": share(counts.contracts_made, counts.contracts_bid, 100.0),
        "nils_made_pct": share(counts.nils_made, counts.nils_bid, 100.0),
        "blind_nils_made_pct": share(counts.blind_nils_made, counts.blind_nils_bid, 100.0),
        "bags_per_hand": share(counts.bags, counts.hands),
        "points_per_hand": share(counts.points, counts.hands),
    }
