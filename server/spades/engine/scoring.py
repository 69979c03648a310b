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
            if counted >= contract:
                made[side] = True
                points[side] += 10 * contract
                side_bags += counted - contract
            else:
                made[side] = False
                points[side] -= 10 * contract
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
    )


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
