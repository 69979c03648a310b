"""The `strong` bot: determinized search over the hidden cards.

For a card play: sample where the hidden cards are, consistently with everything the view shows
(the seat's own hand, the cards played, the suits each player has shown out of, how many cards
each holds), and weight each sample by how well the hands fit the bids. On every sample, every
legal card is played and the rest of the hand is rolled out with the `basic` policy for all four
seats (ints and bit masks only), the others with a share of careless cards, and the opponents
of the searching side's standing nil hunting it (`hunt_card`). The card with the best weighted
average score difference wins.

The search stops after `iterations` rollouts or when the time budget runs out, whichever
comes first; with a fixed iteration count (and a budget that does not bind) a seed gives the
same decision on any machine.

The parts: `worlds` (sampled deals, rollouts), `outcome` (what a played-out hand is worth),
`card_search` (the card) and `bid_search` (the bid).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from spades.engine.cards import card_text

from .bid_search import choose_bid_by_sampling
from .bidding import choose_bid, hand_for_bids, suicide_nil_first
from .card_search import SearchStats, search
from .nil_search import nil_chance
from .normal_individual import own_nil_card
from .state import from_view
from .worlds import sample_world

Action = dict[str, Any]

# Rollouts per decision (split over the cards in the race): twice as many buys nothing
# measurable in whole games (docs/bots.md, "Search size"); SPADES_STRONG_ITERATIONS gives a
# server more.
DEFAULT_ITERATIONS = 800
DEFAULT_BUDGET_MS = math.inf  # no wall-clock cap: iterations and the seed fix a decision
MC_BIDDING = True  # bid by sampling deals and playing them out (False: the basic bid)
# Nil by rollouts against a hunting table (`nil_search.nil_chance`, docs/bots.md "Hard's nils
# against Hard"): the nil basic bids is kept only when the share of NIL_SEARCH_SAMPLES sampled
# deals on which it survives every opponent hunting it is at least NIL_SEARCH_MIN (partnership;
# NIL_SEARCH_MIN_ALONE in individual play); otherwise the count is bid (by the bid search, nil
# left out). 0 switches a bar off. At 0.7, 400 partnership games against the frozen Hard: nils
# made 76.6% (the frozen side 70.2%), +0.37 points a hand.
NIL_SEARCH_MIN = 0.7
# Alone the estimate flatters a nil: three seats hunt it with Hard's search, not the rollouts'
# rule. Over 1,374 of Hard's own nils in individual games (`bench.nil_screen collect --mode
# individual --games`, Hard playing every seat), those the estimate put at 0.7-0.8 were made
# 60%, 0.8-0.9 77%, 0.9 and over 84%: a bar of 0.8 keeps nils made 80.5% where 0.7 kept 75.1%.
NIL_SEARCH_MIN_ALONE = 0.8
NIL_SEARCH_SAMPLES = 300
# Alone, Hard plays its own standing nil by rule (`normal_individual.own_nil_card`: shed the
# highest card that cannot take the trick, throw the card likeliest to be forced later), not
# by the search: on the same 387 of its nils in whole games (every other seat Hard), the rule
# made 81.7% where the search made 75.7% (docs/bots.md, "Hard's own nil alone, by rule").
# The search judges a card by the hand's points and, near the target, by the game, and a
# nil's small risks drown in that noise; alone no partner's cover needs planning with it.
OWN_NIL_RULE_ALONE = True


def decide_strong(
    view: dict[str, Any],
    *,
    seed: int | None = None,
    iterations: int | None = None,
    budget_ms: float | None = None,
    stats: SearchStats | None = None,
) -> Action:
    legal = view["legal"]
    if len(legal) == 1:
        return dict(legal[0])
    if iterations is None:
        iterations = DEFAULT_ITERATIONS
    if budget_ms is None:
        budget_ms = DEFAULT_BUDGET_MS
    rng = random.Random(seed if seed is not None else _view_key(view))
    if legal[0]["type"] != "play":
        if not MC_BIDDING or view.get("hand") is None:
            return choose_bid(view)
        action = choose_bid_by_sampling(view, rng, iterations, budget_ms, stats)
        if action.get("bid") == "nil" and _nil_bar(view) > 0:
            return _checked_nil(view, action, rng, iterations, budget_ms, stats)
        return action
    st = from_view(view)
    seat = int(view["seat"])
    if (
        OWN_NIL_RULE_ALONE
        and not st.partnership
        and seat in st.nil_seats
        and st.tricks_won[seat] == 0
    ):
        card = own_nil_card(st, seat)
    else:
        card = search(st, seat, view, rng, iterations, budget_ms, stats)
    action = {"type": "play", "card": card_text(card)}
    if action not in legal:
        return dict(legal[0])
    return action


def _checked_nil(
    view: dict[str, Any],
    action: Action,
    rng: random.Random,
    iterations: int,
    budget_ms: float,
    stats: SearchStats | None,
) -> Action:
    """Basic's nil if it survives the hunting rollouts often enough (`NIL_SEARCH_MIN`, alone
    `NIL_SEARCH_MIN_ALONE`), or the bid the search makes without nil. A nil the suicide rule
    asks for stays."""
    st = from_view(view)
    seat = int(view["seat"])
    offered = {a.get("bid") for a in view["legal"] if a["type"] == "bid"}
    if suicide_nil_first(view, hand_for_bids(view, st.hands[seat]), offered):
        return action
    start = time.perf_counter()
    if nil_chance(view, st, rng, NIL_SEARCH_SAMPLES) >= _nil_bar(view):
        return action
    no_nil = dict(view)
    no_nil["legal"] = [a for a in view["legal"] if a.get("bid") != "nil"]
    left = budget_ms - 1000.0 * (time.perf_counter() - start)  # (inf stays inf)
    return choose_bid_by_sampling(no_nil, rng, iterations, left, stats)


def _nil_bar(view: dict[str, Any]) -> float:
    return NIL_SEARCH_MIN if view.get("mode") == "partnership" else NIL_SEARCH_MIN_ALONE


def _view_key(view: dict[str, Any]) -> str:
    played = sum(len(t["cards"]) for t in view.get("tricks") or [])
    cur = view.get("current_trick") or {}
    return f"{view.get('seat')}|{view.get('hand_number')}|{played}|{cur}|{view.get('hand')}"


__all__ = [
    "DEFAULT_BUDGET_MS",
    "DEFAULT_ITERATIONS",
    "SearchStats",
    "decide_strong",
    "sample_world",
    "search",
]
