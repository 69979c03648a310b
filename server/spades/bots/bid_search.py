"""The strong bot's bid: the basic count and one either side, each played out on the same
sampled deals, and another bid than the count only when it is clearly better."""

from __future__ import annotations

import math
import random
import time
from typing import Any

from .bidding import (
    BidContext,
    bid_for_count,
    bid_number,
    blind_partner_shift,
    choose_bid,
    count_tricks,
    deck_shift,
    hand_for_bids,
    nil_odds,
    nil_pays,
    suicide_nil_first,
)
from .card_search import THIN_SAMPLES, SearchStats
from .outcome import NEAR_END, WIN_MODEL, Scorer, game_chance, game_swing
from .state import NIL, UNKNOWN, PlayState, from_view
from .worlds import CARELESS, bid_fit, choice, rollout, sample_world

Action = dict[str, Any]

# Sampled deals per bid decision (every candidate bid is played on each): at least
# BID_SAMPLES, and one per 4 rollouts of a card search per candidate (docs/bots.md).
BID_SAMPLES = 64
# Hard's nils: the fitted odds (`bidding.nil_odds`) are a nil's against basic's attack, and a
# searching table sets more of the doubtful ones. Hard's nil side against Hard's attack
# (`bench.nil_odds --against strong --nil-side strong`, 667 nils): odds 0.6-0.7 made 53%,
# 0.7-0.8 made 72%, 0.8-0.9 made 83% (against basic's attack 68%, 84%, 89%). With NIL_SLOPE
# above 1, Hard takes the nil basic chose only while it still pays at the odds stretched
# away from NIL_PIVOT by NIL_SLOPE (1.6: 0.65 -> 0.55, 0.75 -> 0.71, 0.82 unchanged), and
# otherwise bids its count. Measured at 1.6 in whole games against the frozen Hard, it cost
# 2.5 points a hand for 72% of nils made instead of 70% (docs/bots.md, "Hard's nils"), so
# it is off: 1.0 keeps basic's nils as they are.
NIL_PIVOT = 0.82
NIL_SLOPE = 1.0


def choose_bid_by_sampling(
    view: dict[str, Any],
    rng: random.Random,
    iterations: int,
    budget_ms: float,
    stats: SearchStats | None = None,
) -> Action:
    """The bid with the best expected value over sampled deals, each played out.

    Candidates: the basic count and one either side (nil is decided by its fitted odds).
    The hidden hands are dealt at random, weighted by how well they fit the bids already
    made; the seats after this one bid as basic would; the hand is played out by the
    rollout policy (basic, the others with their careless share). Each candidate is scored
    as the hand's points for this side minus the others', or near the end of the game as
    the chance to win it (a swing of 1,000 points) plus those points.
    """
    basic_action = choose_bid(view)
    offered = {a.get("bid") for a in view["legal"] if a["type"] == "bid"}
    st = from_view(view)
    seat = int(view["seat"])
    cands = _candidates(view, st, seat, offered)
    if basic_action.get("bid") == "nil" and (not cands or _keeps_nil(view, st, seat, cands[0])):
        # Nil by its fitted odds and expected value (`bidding.nil_pays`): rollouts against
        # sampled, partly careless opponents judge nils too kindly.
        return basic_action
    if len(cands) <= 1:
        return basic_action
    if budget_ms <= 0:  # the time was spent before the search began (a long queue)
        if stats is not None:
            stats.cut = stats.thin = True
        return basic_action
    deals = BidDeals(view, st, seat, "nil" in offered)
    deadline = time.perf_counter() + budget_ms / 1000.0 if budget_ms < math.inf else math.inf
    want = max(BID_SAMPLES, iterations // (4 * len(cands)))
    totals = [0.0] * len(cands)
    # Paired differences against the basic count (common random numbers): another bid is
    # taken only when it beats that count by more than twice its standard error.
    diff_sq = [0.0] * len(cands)
    weight_sum = 0.0
    samples = 0
    sizes = [13, 13, 13, 13]
    while samples < want:
        hands = sample_world(st, seat, sizes, rng)
        if hands is None:
            break
        weight = deals.weight(hands)
        noise = [0.0 if s == seat else choice(rng, CARELESS) for s in range(4)]
        state = rng.getstate()
        samples += 1
        values = []
        for cand in cands:
            rng.setstate(state)  # the same careless cards for every candidate
            values.append(deals.value(hands, cand, noise, rng))
        for i, value in enumerate(values):
            totals[i] += weight * value
            diff_sq[i] += weight * (value - values[0]) ** 2
        weight_sum += weight
        if time.perf_counter() >= deadline and samples >= 2:
            if stats is not None:
                stats.cut = samples < want
            if samples < THIN_SAMPLES:  # too few deals to move off the basic count
                if stats is not None:
                    stats.rollouts = samples * len(cands)
                    stats.thin = True
                return basic_action
            break
    if stats is not None:
        stats.rollouts = samples * len(cands)
    n = cands[_best(totals, diff_sq, weight_sum, samples)]
    return {"type": "bid", "bid": "nil" if n == NIL else n}


def _candidates(view: dict[str, Any], st: PlayState, seat: int, offered: set[Any]) -> list[int]:
    """The basic count and one either side, as far as they are offered."""
    partnership = st.partnership
    bags = list(view.get("bags") or [])
    side = seat % 2 if partnership else seat
    my_bags = bags[side] if side < len(bags) else 0
    count = count_tricks(hand_for_bids(view, st.hands[seat]), partnership)
    count -= blind_partner_shift(view, seat) + deck_shift(view)
    base = bid_for_count(count, seat, st.bids, partnership, my_bags)
    cands: list[int] = []
    for n in (base, base - 1, base + 1):
        if n >= 1 and n in offered and n not in cands:
            cands.append(n)
    return cands


def _keeps_nil(view: dict[str, Any], st: PlayState, seat: int, count_bid: int) -> bool:
    """Does the nil basic chose still pay at the odds against a searching table
    (`NIL_PIVOT`, `NIL_SLOPE`)? A nil the suicide rule asks of the first of the team stays."""
    if NIL_SLOPE == 1.0:
        return True
    hand = hand_for_bids(view, st.hands[seat])
    offered = {a.get("bid") for a in view["legal"] if a["type"] == "bid"}
    if suicide_nil_first(view, hand, offered):
        return True
    partnership = st.partnership
    partner = (seat + 2) & 3 if partnership else -1
    partner_bid = st.bids[partner] if partner >= 0 else UNKNOWN
    side = seat % 2 if partnership else seat
    p = NIL_PIVOT + NIL_SLOPE * (nil_odds(hand, partnership, partner_bid) - NIL_PIVOT)
    return nil_pays(p, count_bid, partnership, side, partner_bid, BidContext.of(view))


def _best(totals: list[float], diff_sq: list[float], weight_sum: float, samples: int) -> int:
    """The index of the bid taken: the basic count (0) unless another beats it clearly."""
    best = 0
    if weight_sum > 0 and samples > 1:
        for i in range(1, len(totals)):
            gap = (totals[i] - totals[0]) / weight_sum
            var = max(0.0, diff_sq[i] / weight_sum - gap * gap)
            if gap > 2.0 * math.sqrt(var / samples) and totals[i] > totals[best]:
                best = i
    return best


class BidDeals:
    """What stays fixed over one bid decision: how a sampled deal is weighted, how the later
    seats bid on it, and how a candidate bid is played out and valued (also the nil's
    estimate's, `nil_search.nil_chance`)."""

    def __init__(self, view: dict[str, Any], st: PlayState, seat: int, nil_allowed: bool):
        self.st = st
        self.seat = seat
        self.partnership = st.partnership
        self.nil_allowed = nil_allowed
        self.ctx = BidContext.of(view)
        self.bags = list(view.get("bags") or [])
        dealer = int(view.get("dealer", 0))
        self.first = (dealer + 1) & 3
        order = [(self.first + k) & 3 for k in range(4)]
        self.later = order[order.index(seat) + 1 :]
        self.scorer = Scorer(view, st, seat)
        self.scores = scores = list(st.scores)
        self.near_end = bool(scores) and max(scores) >= self.ctx.target - NEAR_END
        sides = len(scores) == 2
        self.game_term = game_chance if WIN_MODEL and st.partnership and sides else game_swing
        self.blind = list(st.blind)
        self.world = PlayState()  # every rollout's, dealt again each time

    def weight(self, hands: list[int]) -> float:
        log_w = 0.0
        for s in range(4):  # (a blind bid says nothing of the hand)
            if s != self.seat and self.st.bids[s] != UNKNOWN and not self.blind[s]:
                log_w += bid_fit(hands[s], self.st.bids[s])
        return math.exp(max(log_w, -30.0))

    def play(
        self,
        hands: list[int],
        cand: int,
        noise: list[float],
        rng: random.Random,
        hunters: list[int] | None = None,
    ) -> list[int]:
        """Deal `hands` on `self.world`, let the later seats bid after `cand` as basic would,
        play the hand out (`worlds.rollout`, with `hunters`) and return the four bids."""
        partnership = self.partnership
        bids = list(self.st.bids)
        bids[self.seat] = cand
        for s in self.later:
            s_side = s % 2 if partnership else s
            s_bags = self.bags[s_side] if s_side < len(self.bags) else 0
            bids[s] = bid_number(hands[s], s, bids, partnership, s_bags, self.nil_allowed, self.ctx)
        world = self.world
        world.deal_from(self.st, hands)  # = self.st.copy() with the hands dealt
        world.bids = bids
        world.prepare()
        world.leader = self.first
        rollout(world, self.seat, noise, rng, hunters)
        return bids

    def value(self, hands: list[int], cand: int, noise: list[float], rng: random.Random) -> float:
        bids = self.play(hands, cand, noise, rng)
        world = self.world
        self.scorer.bids = bids
        value = self.scorer.value(world.tricks_won, self.blind)
        if self.near_end:
            term = self.game_term(
                self.scorer, world.tricks_won, self.blind, self.scores, self.ctx.target
            )
            value += 1000.0 * term
        return value
