"""What a played-out hand is worth to the searching seat: its points as the rules score
them, and near the end of a game the chance to win it (the strong bot's rollouts end here)."""

from __future__ import annotations

import math
from typing import Any

from spades.engine.rules import DEFAULT_RULES

from .state import NIL, PlayState

NEAR_END = 150  # within this of the target, a hand is judged by the chance to win as well


class Scorer:
    """Points of a finished hand for the searching seat: its side minus the others."""

    __slots__ = (
        "bag_limit",
        "bag_penalty",
        "bag_value",
        "bags",
        "bids",
        "blind_value",
        "nil_counts",
        "nil_value",
        "partnership",
        "seat",
        "weights_of",
    )

    def __init__(self, view: dict[str, Any], st: PlayState, seat: int) -> None:
        rules = view.get("rules") or {}
        self.nil_value = int(rules.get("nil_value", DEFAULT_RULES.nil_value))
        self.blind_value = int(rules.get("blind_nil_value", DEFAULT_RULES.blind_nil_value))
        self.bag_value = int(rules.get("bag_value", DEFAULT_RULES.bag_value))
        self.bag_limit = int(rules.get("bag_limit", DEFAULT_RULES.bag_limit))
        self.bag_penalty = int(rules.get("bag_penalty", DEFAULT_RULES.bag_penalty))
        self.nil_counts = st.nil_counts
        self.partnership = st.partnership
        self.bids = st.bids
        self.seat = seat
        n = 2 if st.partnership else 4
        self.bags = list(st.bags) if len(st.bags) == n else [0] * n

    def side_points(self, side: int, tricks: list[int], blind: list[bool]) -> float:
        points, added = self.side_result(side, tricks, blind)
        # A bag also brings the next penalty closer: charge its share.
        return (
            points - added * 0.5 * self.bag_penalty / self.bag_limit if self.bag_limit else points
        )

    def side_result(self, side: int, tricks: list[int], blind: list[bool]) -> tuple[int, int]:
        """The hand's points for `side` as the rules score them, and the bags it added."""
        seats = (side, side + 2) if self.partnership else (side,)
        points = 0
        contract = 0
        counted = 0
        bags = 0
        worth = 10  # a trick of the contract (20: a blind number in it, Blind 6+)
        for s in seats:
            b = self.bids[s]
            if b == NIL:
                value = self.blind_value if blind[s] else self.nil_value
                points += value if tricks[s] == 0 else -value
                if self.nil_counts:
                    counted += tricks[s]
                else:
                    bags += tricks[s]
            else:
                contract += b
                counted += tricks[s]
                if blind[s]:
                    worth = 20
        if contract > 0:
            if counted >= contract:
                points += worth * contract
                bags += counted - contract
            else:
                points -= worth * contract
        else:
            bags += counted
        points += bags * self.bag_value
        if self.bag_limit > 0 and bags:
            before = self.bags[side]
            crossed = (before + bags) // self.bag_limit - before // self.bag_limit
            points -= crossed * self.bag_penalty
        return points, bags

    def value(self, tricks: list[int], blind: list[bool]) -> float:
        if self.partnership:
            mine = self.seat & 1
            return self.side_points(mine, tricks, blind) - self.side_points(1 - mine, tricks, blind)
        own = self.side_points(self.seat, tricks, blind)
        others = sum(self.side_points(s, tricks, blind) for s in range(4) if s != self.seat)
        return own - others / 3.0


def game_swing(
    scorer: Scorer, tricks: list[int], blind: list[bool], scores: list[int], target: int
) -> float:
    """+1 if this hand wins the game for the seat's side, -1 if another side wins it."""
    n = len(scores)
    after = [scores[i] + scorer.side_points(i, tricks, blind) for i in range(n)]
    best = max(after)
    if best < target:
        return 0.0
    mine = scorer.seat & 1 if scorer.partnership else scorer.seat
    leaders = [i for i, v in enumerate(after) if v == best]
    if len(leaders) > 1:
        return 0.0
    return 1.0 if leaders[0] == mine else -1.0


# The chance that a partnership side wins from a score, fitted (`bench/win_model.py`) on
# 10,000 games of basic against basic to 500: a logistic in the lead, bags counted against
# a side's score, over the square root of the hands left to the target (docs/bots.md has
# the fit; `bench.bot_ab --endgame` measures what it buys in play).
WIN_MODEL = True
WIN_BAG = 11.9  # points a bag in hand is worth against the side holding it
WIN_HAND = 76.0  # points per hand the leader comes nearer the target
WIN_SPREAD = 103.5  # spread of the lead per hand, in points
WIN_MIN_HANDS = 1.25


def win_chance(
    mine: float,
    theirs: float,
    my_bags: int,
    their_bags: int,
    target: int,
    params: tuple[float, float, float, float] | None = None,
) -> float:
    """The chance that the side at `mine` beats the side at `theirs`, neither at the target.

    `params` (bag, points per hand, spread, least hands) replaces the fitted constants;
    `bench/win_model.py` fits them with it.
    """
    bag, per_hand, spread, min_hands = params or (WIN_BAG, WIN_HAND, WIN_SPREAD, WIN_MIN_HANDS)
    a = mine - bag * my_bags
    b = theirs - bag * their_bags
    hands = max(min_hands, (target * 1.0 - max(a, b)) / per_hand)
    z = 1.7 * (a - b) / (spread * math.sqrt(hands))
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def game_chance(
    scorer: Scorer, tricks: list[int], blind: list[bool], scores: list[int], target: int
) -> float:
    """Partnership: +1 for a game this hand wins, -1 for one it loses, else 2 * chance - 1."""
    mine = scorer.seat & 1
    after = [0, 0]
    bags = [0, 0]
    for side in (0, 1):
        points, added = scorer.side_result(side, tricks, blind)
        after[side] = scores[side] + points
        bags[side] = scorer.bags[side] + added
        if scorer.bag_limit > 0:
            bags[side] %= scorer.bag_limit
    best = max(after)
    if best >= target:
        if after[0] == after[1]:
            return 0.0
        return 1.0 if after[mine] == best else -1.0
    p = win_chance(after[mine], after[1 - mine], bags[mine], bags[1 - mine], target)
    return 2.0 * p - 1.0
