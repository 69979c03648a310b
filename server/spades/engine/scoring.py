"""Scoring one hand (docs/rules.md "Scoring a hand"). Pure arithmetic on bids and tricks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .rules import Rules

NIL = 0  # a bid of 0 tricks is nil; whether it was blind is a separate flag


@dataclass(frozen=True, slots=True)
class HandScore:
    """The result of one hand, per side. `bag_penalty` is the (negative) points lost to bags."""

    points: tuple[int, ...]
    bags_added: tuple[int, ...]
    bag_penalty: tuple[int, ...]
    scores: tuple[int, ...]
    bags: tuple[int, ...]
    contract_made: tuple[bool | None, ...]  # None where the side had no contract (all nil)
    nil_made: tuple[bool | None, ...]  # per seat: None where the seat did not bid nil
    moon: int | None = None  # the side that took all 13 tricks and made its contract


def score_hand(
    rules: Rules,
    bids: Sequence[int],
    blind: Sequence[bool],
    tricks: Sequence[int],
    scores: Sequence[int],
    bags: Sequence[int],
) -> HandScore:
    """Score a finished hand. `bids[seat]` is tricks bid, 0 meaning nil; `tricks[seat]` taken."""
    n_sides = rules.sides
    points = [0] * n_sides
    added = [0] * n_sides
    penalty = [0] * n_sides
    made: list[bool | None] = [None] * n_sides
    nil_made: list[bool | None] = [None] * 4
    new_bags = list(bags)
    moon: int | None = None

    for side in range(n_sides):
        contract = 0
        counted = 0  # tricks that count toward the contract
        side_bags = 0
        for seat in rules.seats_of(side):
            if bids[seat] == NIL:
                value = rules.blind_nil_value if blind[seat] else rules.nil_value
                ok = tricks[seat] == 0
                nil_made[seat] = ok
                points[side] += value if ok else -value
                if rules.nil_tricks_count_for_partner:
                    counted += tricks[seat]
                else:
                    side_bags += tricks[seat]
            else:
                contract += bids[seat]
                counted += tricks[seat]
        if contract > 0:
            big = rules.big_bid_value if 0 < rules.big_bid <= contract else 10 * contract
            if any(blind[seat] and bids[seat] != NIL for seat in rules.seats_of(side)):
                big *= 2  # a blind bid of a number: the contract counts double
            if counted >= contract:
                made[side] = True
                points[side] += big
                side_bags += counted - contract
                if sum(tricks[seat] for seat in rules.seats_of(side)) == 13:
                    moon = side
                    points[side] += rules.moon_bonus
            else:
                made[side] = False
                points[side] -= big
        else:
            # No contract (every seat of the side bid nil): every trick taken is a bag.
            side_bags += counted
        points[side] += side_bags * rules.bag_value
        added[side] = side_bags
        running = new_bags[side] + side_bags
        if rules.bag_limit > 0:
            while running >= rules.bag_limit:
                running -= rules.bag_limit
                penalty[side] -= rules.bag_penalty
        points[side] += penalty[side]
        new_bags[side] = running

    return HandScore(
        points=tuple(points),
        bags_added=tuple(added),
        bag_penalty=tuple(penalty),
        scores=tuple(s + p for s, p in zip(scores, points, strict=True)),
        bags=tuple(new_bags),
        contract_made=tuple(made),
        nil_made=tuple(nil_made),
        moon=moon,
    )


def sets_in_row_after(previous: Sequence[int], made: Sequence[bool | None]) -> tuple[int, ...]:
    """Each side's count of hands set in a row once a hand is scored: a set adds one, a
    contract made (or no contract) starts the count again."""
    return tuple(n + 1 if ok is False else 0 for n, ok in zip(previous, made, strict=True))


def game_winner(
    rules: Rules,
    scores: Sequence[int],
    sets_in_row: Sequence[int],
    moon: int | None,
    time_up: bool,
) -> int | None:
    """The winning side once a hand is scored under the house rules, or None to play on.

    A moon under `moon_wins` wins outright; a side set out (`set_out_after` sets in a row,
    or at or below -`mercy_score`) loses, so the other side wins (both out: the higher score
    wins, a tie plays on); otherwise `winner_after`.
    """
    if moon is not None and rules.moon_wins:
        return moon
    out = [
        side
        for side in range(rules.sides)
        if (rules.set_out_after and sets_in_row[side] >= rules.set_out_after)
        or (rules.mercy_score and scores[side] <= -rules.mercy_score)
    ]
    if out:
        standing = [side for side in range(rules.sides) if side not in out]
        if len(standing) == 1:
            return standing[0]
        return winner_after(rules, scores, True)
    return winner_after(rules, scores, time_up)


def winner_after(rules: Rules, scores: Sequence[int], time_up: bool) -> int | None:
    """The winning side once a hand is scored, or None to play on.

    The game ends when a side reaches the target (or the clock has run out); the highest
    score wins, and a tie for the highest plays another hand.
    """
    if not time_up and max(scores) < rules.target:
        return None
    best = max(scores)
    leaders = [side for side, s in enumerate(scores) if s == best]
    return leaders[0] if len(leaders) == 1 else None
