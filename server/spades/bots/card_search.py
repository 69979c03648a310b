"""The strong bot's card play: every candidate card played on the same sampled deals and
rolled out, the cards that fall clearly behind dropped from the race, the best average kept."""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from .basic import choose_card
from .outcome import NEAR_END, WIN_MODEL, Scorer, game_chance, game_swing
from .state import NIL, PlayState, bits
from .worlds import (
    CARELESS,
    bid_fit,
    choice,
    distinct_moves,
    nil_safe_moves,
    original_played,
    rollout,
    sample_world,
)

MIN_SAMPLES = 6
# A search cut by its time budget (the server's safety cap) before this many sampled deals
# plays the basic plan's card instead: fewer deals judge worse than the plan the rollouts
# follow (docs/bots.md, "Strong bots in the server").
THIN_SAMPLES = 16

# While the searching side's own nil stands, the rollouts per decision times NIL_SIDE_ITER: a
# nil is a 200-point swing, and a searching table sets the doubtful ones. On the same 667
# nils of `bench.nil_odds --against strong --nil-side strong --range 0 1200`, Hard's nil side
# made 63.6% against Hard's attack at 2, 60.6% at 1; in whole games against the frozen Hard
# 70.9% against the frozen side's 69.6%, for a decision CPU p99 half as high again
# (docs/bots.md, "Hard's nils against Hard"). So it is 1 (off). With NIL_HUNTERS_CAREFUL the
# hunting opponents of the rollouts play no careless cards (measured: 58.9%, so off).
NIL_SIDE_ITER = 1.0
NIL_HUNTERS_CAREFUL = False

PRUNE = True  # racing (below); False: every card gets every sample, with the early stop
PRUNE_FROM = 16  # samples before the first cut
PRUNE_EVERY = 8
PRUNE_GAP = 10.0  # points: a card leaves the race only when it is this much worse ...
PRUNE_SE = 3.0  # ... and worse by this many standard errors of the paired difference


@dataclass
class SearchStats:
    """What one decision's search did, for whoever asks (the server counts cut searches)."""

    rollouts: int = 0
    cut: bool = False  # stopped by its time budget before its iterations were done
    thin: bool = False  # cut before THIN_SAMPLES deals: the basic plan's card was played


def search(
    st: PlayState,
    seat: int,
    view: dict[str, Any],
    rng: random.Random,
    iterations: int,
    budget_ms: float,
    stats: SearchStats | None = None,
) -> int:
    moves = _candidates(st, seat)
    if len(moves) == 1:
        return moves[0]  # an obvious move costs no search
    deadline = time.perf_counter() + budget_ms / 1000.0 if budget_ms < math.inf else math.inf
    if budget_ms <= 0:  # the time was spent before the search began (a long queue)
        if stats is not None:
            stats.cut = stats.thin = True
        return choose_card(st, seat)
    playouts = _Playouts(st, seat, view)
    hunters = playouts.hunters
    if hunters is not None and NIL_SIDE_ITER != 1.0:
        iterations = int(iterations * NIL_SIDE_ITER)
    # Racing: every sample plays each card still in the race on the same deal (common random
    # numbers); a card whose paired difference to the leader is clearly negative leaves it,
    # so the rollouts go to the cards that are close.
    race = _Race(len(moves))
    rollouts = 0
    samples = 0
    while True:
        hands = sample_world(st, seat, playouts.sizes, rng)
        if hands is None:
            break
        weight = playouts.weight(hands)
        noise = [0.0 if s == seat else choice(rng, CARELESS) for s in range(4)]
        if hunters is not None and NIL_HUNTERS_CAREFUL:
            noise = [0.0 if hunters[s] >= 0 else noise[s] for s in range(4)]
        samples += 1
        for i in race.active:
            race.add(i, weight, playouts.value(hands, moves[i], noise, rng))
            rollouts += 1
        race.end_sample(weight)
        if rollouts >= iterations and samples >= MIN_SAMPLES:
            break
        if time.perf_counter() >= deadline and samples >= 2:
            if stats is not None:
                stats.cut = True
            if samples < THIN_SAMPLES:
                # Too few deals to judge by: the plan the rollouts follow plays better here.
                if stats is not None:
                    stats.rollouts = rollouts
                    stats.thin = True
                return choose_card(st, seat)
            break
        if race.settled(samples):
            break
    if stats is not None:
        stats.rollouts = rollouts
    if race.weight_sum <= 0:
        return choose_card(st, seat)
    return moves[race.best()]


def _candidates(st: PlayState, seat: int) -> list[int]:
    """The cards worth searching: legal, safe for a standing nil, one of each equal group."""
    legal = nil_safe_moves(st, seat, st.legal(seat))
    hidden = st.deck & ~st.played & ~st.hands[seat]
    on_table = 0
    for card in st.trick:
        on_table |= 1 << card
    return distinct_moves(bits(legal), st.hands[seat], hidden | on_table)


def _hunters(st: PlayState, seat: int) -> list[int] | None:
    """Per seat, the standing nil of the searching side it hunts in the rollouts (-1: none);
    None when that side has no standing nil."""
    for s in (seat, (seat + 2) & 3) if st.partnership else (seat,):
        if st.bids[s] == NIL and st.tricks_won[s] == 0:
            side = 1 if st.partnership else 3
            return [s if (other - s) & side else -1 for other in range(4)]
    return None


class _Playouts:
    """What stays fixed over one search: how a sampled deal is weighted, how a card on it is
    played out and valued."""

    def __init__(self, st: PlayState, seat: int, view: dict[str, Any]) -> None:
        self.st = st
        self.seat = seat
        self.scorer = Scorer(view, st, seat)
        self.blind = st.blind
        self.sizes = list(view.get("hand_sizes") or [0, 0, 0, 0])
        self.played_by = original_played(view)
        self.use_bids = st.tricks_done < 10
        # Score-aware: near the target a card is judged by the chance to win the game now (a
        # swing of 1,000 points) as well as the hand's points; bags near the limit and sets of
        # the other side are priced by the scorer.
        self.scores = scores = list(st.scores)
        n_sides = 2 if st.partnership else 4
        self.near_end = len(scores) == n_sides and max(scores) >= st.target - NEAR_END
        self.game_term = game_chance if WIN_MODEL and st.partnership else game_swing
        self.hunters = _hunters(st, seat)
        self.world = PlayState()  # every rollout's, dealt again each time

    def weight(self, hands: list[int]) -> float:
        if not self.use_bids:
            return 1.0
        log_w = 0.0
        for s in range(4):
            if s != self.seat:
                log_w += bid_fit(hands[s] | self.played_by[s], self.st.bids[s])
        return math.exp(max(log_w, -30.0))

    def value(self, hands: list[int], card: int, noise: list[float], rng: random.Random) -> float:
        world = self.world
        world.deal_from(self.st, hands)
        world.play(card)
        rollout(world, self.seat, noise, rng, self.hunters)
        tricks = world.tricks_won
        value = self.scorer.value(tricks, self.blind)
        if self.near_end:
            term = self.game_term(self.scorer, tricks, self.blind, self.scores, self.st.target)
            value += 1000.0 * term
        return value


class _Race:
    """The weighted results of the cards still in the race, sample by sample."""

    def __init__(self, k: int) -> None:
        self.active = list(range(k))
        self.totals = [0.0] * k
        self.sq = [0.0] * k
        self.history: list[list[float]] = [[] for _ in range(k)]
        self.weights: list[float] = []
        self.weight_sum = 0.0

    def add(self, i: int, weight: float, value: float) -> None:
        totals = self.totals  # (item by item: `a[i] += x` runs generic when compiled)
        totals[i] = totals[i] + weight * value
        sq = self.sq
        sq[i] = sq[i] + weight * value * value
        if PRUNE:
            self.history[i].append(value)

    def end_sample(self, weight: float) -> None:
        self.weights.append(weight)
        self.weight_sum += weight

    def settled(self, samples: int) -> bool:
        """Narrow the race when its turn comes; True once one card is left or clearly best."""
        if PRUNE:
            if samples >= PRUNE_FROM and samples % PRUNE_EVERY == 0:
                self.active = _race(
                    self.active, self.history, self.weights, self.totals, self.weight_sum
                )
                return len(self.active) == 1
            return False
        return (
            samples >= 12
            and samples % 4 == 0
            and _clear_winner(self.totals, self.sq, self.weight_sum, samples)
        )

    def best(self) -> int:
        return max(self.active, key=lambda i: self.totals[i])


def _race(
    active: list[int],
    history: list[list[float]],
    weights: list[float],
    totals: list[float],
    w_sum: float,
) -> list[int]:
    """The cards still in the race: those not clearly worse than the leader.

    Every card in the race has been played on every sample so far, so each pair of them is
    compared sample by sample (weighted like the search), which cancels most of the luck
    of the deal. `totals` and `w_sum` are the weighted sums of the values and the weights,
    added sample by sample in the order of `history` and `weights` (the sums written out
    as plain loops, which a compiled build runs natively)."""
    if w_sum <= 0 or len(active) < 2:
        return active
    lead = active[0]
    lead_mean = totals[lead] / w_sum
    for i in active:
        mean = totals[i] / w_sum
        if mean > lead_mean:  # the first of the best, as max() picks it
            lead = i
            lead_mean = mean
    base = history[lead]
    n = len(weights)
    kept = []
    for i in active:
        if i == lead:
            kept.append(i)
            continue
        values = history[i]
        square = 0.0
        for k in range(n):
            d = base[k] - values[k]
            square += weights[k] * d * d
        gap = lead_mean - totals[i] / w_sum
        var = square / w_sum - gap * gap
        if not var > 0.0:  # max(0.0, var)
            var = 0.0
        if gap > PRUNE_GAP and gap * gap > PRUNE_SE * PRUNE_SE * var / n:
            continue
        kept.append(i)
    return kept


def _clear_winner(totals: list[float], sq: list[float], w: float, n: int) -> bool:
    """Stop early when the best move leads every other by far more than the noise."""
    means = [t / w for t in totals]
    order = sorted(range(len(means)), key=lambda i: -means[i])
    best, second = order[0], order[1]
    spread = 0.0
    for i in (best, second):
        var = max(0.0, sq[i] / w - means[i] * means[i])
        spread += var
    gap = means[best] - means[second]
    return gap > 10.0 and gap * gap > 9.0 * spread / n
