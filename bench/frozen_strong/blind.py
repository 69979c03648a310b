"""Blind bids of a number (Blind 6+, `blind_bid_deficit`): bid one only when it pays.

A blind bid is made before the cards are seen, so it rests on the score alone: the chance
the contract is made from where this seat bids (measured, `BLIND_BID_ODDS`) and what it
does to the chance of winning the game (`outcome.win_chance`, fitted on whole games). The
seat bids the least blind number offered when the game is clearly likelier won with it than
with a look and an ordinary bid (`BLIND_GAIN`, `BLIND_MARGIN`); else it looks. A blind bid
loses points on average (`bench.blind_odds`: +2 a hand against +56 for a look), so it pays
only far behind, when ordinary hands leave too little chance to catch up.
"""

from __future__ import annotations

from typing import Any

from spades.engine.rules import DEFAULT_RULES

from .outcome import win_chance
from .state import NIL, UNKNOWN, bid_value

# The share of blind contracts made, by where the blind bidder is and the number bid
# (`python -m bench.blind_odds`; docs/bots.md): the blind seat bids first of its side and its
# partner bids after it knowing it (`first`), or its partner bid a number before it
# (`second`), or individual play (`alone`). Numbers beyond the table are not bid.
BLIND_BID_ODDS: dict[str, dict[int, float]] = {
    "first": {6: 0.50, 7: 0.36},
    "second": {6: 0.19},
    "alone": {6: 0.14},
}
# What the partner bids after a blind number on average (`bench.blind_odds`, `first`).
PARTNER_AFTER_BLIND = 1.25
# An ordinary hand's result for a side, looked at and bid (`bench.blind_odds`, `look`): made
# this often, and the points won made or lost set that give its average (+55.7 a side in
# partnership, +22.6 a player alone).
LOOK_MADE = 0.88
LOOK_POINTS = {"partnership": 73.0, "individual": 28.0}
# How much likelier the game must be won with the blind bid than without it: this many times
# as likely, and by at least BLIND_MARGIN (the win model is rough in its far tails).
BLIND_GAIN = 1.1
BLIND_MARGIN = 0.002


def blind_bid_choice(view: dict[str, Any], offered: set[Any]) -> int:
    """The blind number to bid (0: look instead), from the blind bids `offered`."""
    numbers = sorted(
        int(k.removeprefix("blind "))
        for k in offered
        if isinstance(k, str) and k.startswith("blind ") and k.removeprefix("blind ").isdigit()
    )
    if not numbers:
        return 0
    number = numbers[0]
    seat = int(view["seat"])
    partnership = view.get("mode") == "partnership"
    side = seat % 2 if partnership else seat
    scores = list(view.get("scores") or [])
    if side >= len(scores) or len(scores) < 2:
        return 0
    odds, contract = _odds_and_contract(view, seat, number, partnership)
    if not odds:
        return 0
    rules = view.get("rules") or {}
    target = int(rules.get("target", DEFAULT_RULES.target))
    bags = list(view.get("bags") or [0] * len(scores))
    mine = scores[side]
    other = max((i for i in range(len(scores)) if i != side), key=scores.__getitem__)
    theirs = scores[other]
    my_bags, their_bags = bags[side], bags[other]
    look = LOOK_POINTS["partnership" if partnership else "individual"]
    blind_points = 20.0 * contract
    with_blind = _chance_after(
        [(odds, blind_points + 1.0), (1.0 - odds, -blind_points)],
        mine,
        theirs,
        my_bags,
        their_bags,
        target,
        look,
    )
    with_look = _chance_after(
        [(LOOK_MADE, look), (1.0 - LOOK_MADE, -look)],
        mine,
        theirs,
        my_bags,
        their_bags,
        target,
        look,
    )
    pays = with_blind > with_look * BLIND_GAIN and with_blind > with_look + BLIND_MARGIN
    return number if pays else 0


def _odds_and_contract(
    view: dict[str, Any], seat: int, number: int, partnership: bool
) -> tuple[float, float]:
    """The chance the blind contract is made and its size in tricks (0, 0: do not bid it)."""
    if not partnership:
        return BLIND_BID_ODDS["alone"].get(number, 0.0), float(number)
    if (view.get("rules") or {}).get("suicide", DEFAULT_RULES.suicide):
        return 0.0, 0.0  # the partner must then bid nil: the unseen hand would be alone
    partner = (seat + 2) % 4
    bids = [bid_value(b) for b in view.get("bids") or [None] * 4]
    blind = list(view.get("blind") or [False] * 4)
    if bids[partner] == UNKNOWN:
        return BLIND_BID_ODDS["first"].get(number, 0.0), number + PARTNER_AFTER_BLIND
    if bids[partner] == NIL or blind[partner]:
        return 0.0, 0.0  # a nil leaves the unseen hand alone; two blind bids, too much
    return BLIND_BID_ODDS["second"].get(number, 0.0), float(number + bids[partner])


def _chance_after(
    outcomes: list[tuple[float, float]],
    mine: int,
    theirs: int,
    my_bags: int,
    their_bags: int,
    target: int,
    their_points: float,
) -> float:
    """The chance to win the game after this hand: the side's `outcomes` (probability,
    points) against the leading other side's ordinary hand."""
    total = 0.0
    for p, points in outcomes:
        for q, gain in ((LOOK_MADE, their_points), (1.0 - LOOK_MADE, -their_points)):
            a, b = mine + points, theirs + gain
            if a >= target or b >= target:
                chance = 0.5 if a == b else float(a > b)
            else:
                chance = win_chance(a, b, my_bags, their_bags, target)
            total += p * q * chance
    return total
