"""Ratings (docs/rules.md "Ratings"): OpenSkill's Plackett-Luce model over a finished rated
game, computed in the room process from the ratings read just before the game's end, and
written by the statement that finishes the game (store: once per game).

Partnership is two teams ranked by the game's winner (or their scores); individual play is
four players ranked by final score. A seat counts with the share of its actions its player
made (the bot made the rest for them): its change is scaled by that share. A player who
left before the end (gone past the grace period, the bot finishing for them) takes the
loss: the last place, whatever the score. A seat with no player (a person who named
none) plays as a default rating that is never stored.

The shown rating is conservative, `SHOWN_BASE + SCALE * (mu - 3 sigma)` (a new player:
1000), and a player is provisional for their first `PROVISIONAL_GAMES` rated games. Quick
play matches by the estimate itself, `SHOWN_BASE + SCALE * mu` (a new player: 1500).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from spades.engine.rules import Mode

MU = 25.0  # OpenSkill's defaults
SIGMA = MU / 3
SCALE = 20.0  # rating points per unit of mu
SHOWN_BASE = 1000.0
PROVISIONAL_GAMES = 10
MIN_WEIGHT = 0.01  # a seat whose player made (almost) nothing still counts a little

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating in one mode, as stored (the default for one never rated)."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def shown(self) -> int:
        return shown_rating(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


def shown_rating(mu: float, sigma: float) -> int:
    """The conservative rating people see (never below 0)."""
    return max(0, round(SHOWN_BASE + SCALE * (mu - 3 * sigma)))


def matching_rating(mu: float) -> float:
    """The rating quick play matches by (the estimate, on the shown scale)."""
    return SHOWN_BASE + SCALE * mu


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """A seat of a finished rated game: its player (None: nobody to rate), its share of
    the seat's actions made by that player (0..1) and whether the player left."""

    seat: int
    player_id: str | None
    weight: float = 1.0
    quit: bool = False


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One seat's change by one game (what the store writes)."""

    seat: int
    player_id: str
    mode: Mode
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    weight: float
    quit: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "player_id": self.player_id,
            "mu_before": self.mu_before,
            "sigma_before": self.sigma_before,
            "mu_after": self.mu_after,
            "sigma_after": self.sigma_after,
            "weight": self.weight,
            "quit": self.quit,
        }


def _places(mode: Mode, scores: Sequence[int], winner: int | None) -> list[int]:
    """Each side's place (1 best; equal scores share one): partnership sides 0 and 1,
    individual seats 0..3."""
    if mode == "partnership" and winner is not None:
        return [1 if side == winner else 2 for side in range(2)]
    return [1 + sum(other > mine for other in scores) for mine in scores]


def rate_game(
    mode: Mode,
    seats: Sequence[RatedSeat],
    scores: Sequence[int],
    winner: int | None,
    current: Mapping[str, Rating],
) -> list[RatingChange]:
    """Each rated seat's change (seats with a player, each player once). `scores` are per
    side (two in partnership, four in individual), `winner` the winning side."""
    places = _places(mode, scores, winner)
    seen: set[str] = set()
    rated = []
    for s in sorted(seats, key=lambda s: s.seat):
        if s.player_id is not None and s.player_id not in seen:
            seen.add(s.player_id)
            rated.append(s)
    by_seat = {s.seat: s for s in rated}
    changes = []
    for s in rated:
        # Each player's change as seen from their place: a leaver's side is last.
        after = _rate_from(mode, by_seat, places, current, s)
        before = current.get(s.player_id, Rating())  # type: ignore[arg-type]
        changes.append(
            RatingChange(
                seat=s.seat,
                player_id=s.player_id,  # type: ignore[arg-type]
                mode=mode,
                mu_before=before.mu,
                sigma_before=before.sigma,
                mu_after=after[0],
                sigma_after=after[1],
                weight=s.weight,
                quit=s.quit,
            )
        )
    return changes


def _rate_from(
    mode: Mode,
    by_seat: Mapping[int, RatedSeat],
    places: Sequence[int],
    current: Mapping[str, Rating],
    me: RatedSeat,
) -> tuple[float, float]:
    """`me`'s new (mu, sigma): the game rated by its places, except that a player who left
    sees their side last. Then `me`'s change is scaled by their weight (partial play: a
    seat they played half of moves them half as far). A leaver counts whole: leaving early
    must not lessen the loss.

    (OpenSkill's own `weights` share a team's change among its members, relative to each
    other: they cannot make a lone player's game count less, nor a team's.)"""

    def rating(seat: int) -> Any:
        s = by_seat.get(seat)
        r = Rating() if s is None else current.get(s.player_id or "", Rating())
        return _MODEL.rating(mu=r.mu, sigma=r.sigma)

    sides = [[0, 2], [1, 3]] if mode == "partnership" else [[0], [1], [2], [3]]
    mine = next(i for i, side in enumerate(sides) if me.seat in side)
    ranks: list[float] = list(places)
    if me.quit:
        ranks[mine] = len(sides) + 1
    new = _MODEL.rate([[rating(seat) for seat in side] for side in sides], ranks=ranks)
    r = new[mine][sides[mine].index(me.seat)]
    before = current.get(me.player_id or "", Rating())
    weight = 1.0 if me.quit else max(MIN_WEIGHT, min(1.0, me.weight))
    return (
        before.mu + weight * (float(r.mu) - before.mu),
        before.sigma + weight * (float(r.sigma) - before.sigma),
    )
