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
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from spades.engine.cards import FULL_DECK, SPADES, SUIT_MASKS, card_text, parse_card
from spades.engine.rules import DEFAULT_RULES

from .basic import (
    BidContext,
    _number,
    bid_number,
    choose_bid,
    choose_card,
    count_tricks,
    estimate_tricks,
    nil_danger,
)
from .state import NIL, UNKNOWN, PlayState, from_view, winning_index

Action = dict[str, Any]

# Rollouts per decision (split over the cards in the race). 800 against 400: +6.0 points per
# hand (SE 2.5) against basic over 300 duplicate deals, for 1.85 times the CPU. 1,600 against
# 800: +7.2 (SE 3.0) over 200 single deals from 0-0, for 1.97 times the CPU, but no better
# in 400 whole games against basic (docs/bots.md, "Search size"): 800 stays the default, and
# SPADES_STRONG_ITERATIONS gives a server more.
DEFAULT_ITERATIONS = 800
DEFAULT_BUDGET_MS = math.inf  # no wall-clock cap: iterations and the seed fix a decision
MIN_SAMPLES = 6
# A card search cut by its time budget (the server's safety cap) before this many sampled
# deals plays the basic plan's card instead: measured with bench.bot_ab (200 deals against
# basic), 8 samples per card lost 17 points per deal to basic, 16 broke even, 32 won 12.
THIN_SAMPLES = 16
MC_BIDDING = True  # bid by sampling deals and playing them out (False: the basic bid)


@dataclass
class SearchStats:
    """What one decision's search did, for whoever asks (the server counts cut searches)."""

    rollouts: int = 0
    cut: bool = False  # stopped by its time budget before its iterations were done
    thin: bool = False  # cut before THIN_SAMPLES deals: the basic plan's card was played


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
        return choose_bid_by_sampling(view, rng, iterations, budget_ms, stats)
    st = from_view(view)
    seat = int(view["seat"])
    card = search(st, seat, view, rng, iterations, budget_ms, stats)
    action = {"type": "play", "card": card_text(card)}
    if action not in legal:
        return dict(legal[0])
    return action


def _view_key(view: dict[str, Any]) -> str:
    played = sum(len(t["cards"]) for t in view.get("tricks") or [])
    cur = view.get("current_trick") or {}
    return f"{view.get('seat')}|{view.get('hand_number')}|{played}|{cur}|{view.get('hand')}"


# --- scoring a finished rollout --------------------------------------------------------------


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
        if contract > 0:
            if counted >= contract:
                points += 10 * contract
                bags += counted - contract
            else:
                points -= 10 * contract
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


# --- sampling the hidden cards ---------------------------------------------------------------


def _original_played(view: dict[str, Any]) -> list[int]:
    """Cards each seat has played this hand (to rebuild the hands they bid on)."""
    out = [0, 0, 0, 0]
    for trick in view.get("tricks") or []:
        for e in trick["cards"]:
            out[int(e["seat"])] |= 1 << parse_card(e["card"])
    cur = view.get("current_trick")
    if cur:
        for e in cur.get("cards") or []:
            out[int(e["seat"])] |= 1 << parse_card(e["card"])
    return out


def sample_world(
    st: PlayState, seat: int, sizes: list[int], rng: random.Random
) -> list[int] | None:
    """Deal the hidden cards to the other seats: right counts, no card in a shown-out suit."""
    hidden = FULL_DECK & ~st.played & ~st.hands[seat]
    cards = []
    m = hidden
    while m:
        low = m & -m
        cards.append(low.bit_length() - 1)
        m ^= low
    others = [s for s in range(4) if s != seat]
    voids = st.voids
    # Who may hold a card depends only on its suit (the seats that have not shown out).
    by_suit = [[s for s in others if not voids[s] >> suit & 1] for suit in range(4)]
    for _attempt in range(20):
        rng.shuffle(cards)
        # Most constrained cards first: those fewer seats can hold.
        allowed = [by_suit[c // 13] for c in cards]
        order = sorted(range(len(cards)), key=lambda i: len(allowed[i]))
        room = [sizes[s] if s != seat else 0 for s in range(4)]
        hands = [0, 0, 0, 0]
        ok = True
        for i in order:
            options = [s for s in allowed[i] if room[s] > 0]
            if not options:
                ok = False
                break
            total = sum(room[s] for s in options)
            pick = rng.random() * total
            for s in options:
                pick -= room[s]
                if pick < 0:
                    break
            hands[s] |= 1 << cards[i]
            room[s] -= 1
        if ok:
            hands[seat] = st.hands[seat]
            return hands
    return None


# How far a player's bid strays from the trick estimate of the hand it bid on (tricks), and
# how much a nil bidder's sampled hand loses per point of nil danger (log weight).
BID_SIGMA = 1.4
NIL_WEIGHT = 0.8


def _fit(hand: int, bid: int) -> float:
    """Log-likelihood-ish weight of a 13-card hand given its bid."""
    if bid < 0:
        return 0.0
    if bid == NIL:
        danger = nil_danger(hand)
        return -NIL_WEIGHT * min(danger, 6.0)
    diff = estimate_tricks(hand) - bid
    return -(diff * diff) / (2 * BID_SIGMA * BID_SIGMA)


# --- the search ------------------------------------------------------------------------------


def _moves_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def nil_safe_moves(st: PlayState, seat: int, legal: int) -> int:
    """For a seat whose nil still stands: the legal cards that do not win the trick so far.

    When every legal card wins (or the seat leads), all of them; a nil bidder never takes a
    trick it could have ducked.
    """
    if st.bids[seat] != NIL or st.tricks_won[seat] or not st.trick:
        return legal
    trick = st.trick
    win = trick[winning_index(trick)]
    losing = 0
    for card in _moves_of(legal):
        suit = card // 13
        beats = (suit == win // 13 and card > win) or (suit == SPADES and win // 13 != SPADES)
        if not beats:
            losing |= 1 << card
    return losing or legal


def distinct_moves(moves: list[int], hand: int, hidden: int) -> list[int]:
    """One card per group of equal effect: touching cards of a suit (no hidden card between
    them) win and lose the same tricks, so only the lowest of each group is searched."""
    out: list[int] = []
    for card in moves:
        if out and out[-1] // 13 == card // 13:
            between = SUIT_MASKS[card // 13] & ((1 << card) - 1) & ~((2 << out[-1]) - 1)
            if not between & hidden:
                continue
        out.append(card)
    return out


# Opponent models: every other seat of a sampled world plays the basic plan, with a share of
# careless cards drawn per sample (the table is not four copies of `basic`); a seat whose nil
# stands always plays it safely, and partners and opponents of a nil cover and attack it.
CARELESS = (0.0, 0.0, 0.08, 0.15)


# When the searching side's own nil stands, every opponent in a sampled world hunts it as a
# determined attacker does, whatever its own contract needs: low in front of the nil bidder,
# and under the nil bidder's card when it is winning (basic attacks only while its own
# contract is safe). Covering choices tuned to basic's attack left nils caught by other
# players. bench.nil_odds, strong's nil side on deals 600-1800 (299 nils): made 85.6% against
# basic's attack and 75.3% against bench/rival.py's with basic's model, 85.3% and 82.6% with
# the hunters. (Hunters on half the samples, or with low leads into the nil too, did worse.)


def hunt_card(world: PlayState, actor: int, target: int) -> int:
    """A hunter's card against the standing nil of `target`, or -1 to play basic's card."""
    trick = world.trick
    if not trick:
        return -1  # leads as basic does
    legal = world.legal(actor)
    led = trick[0] // 13
    follow = legal & SUIT_MASKS[led]
    if not follow:
        return -1
    at = winning_index(trick)
    win = trick[at]
    if win // 13 != led:
        return -1  # trumped: the nil bidder's card of the suit cannot win
    if (world.leader + at) & 3 == target:
        under = follow & ((1 << win) - 1)  # the highest card that still loses to the nil's
        return under.bit_length() - 1 if under else -1
    if 0 < (target - actor) & 3 <= 3 - len(trick):
        return (follow & -follow).bit_length() - 1  # low in front of the nil
    return -1


def rollout(
    world: PlayState,
    seat: int,
    noise: list[float],
    rng: random.Random,
    hunters: list[int] | None = None,
) -> None:
    """Play the hand out: basic's plan for every seat, the others careless now and then, and
    with `hunters`, seat s hunting the standing nil `hunters[s]` (-1: basic's attack)."""
    while world.tricks_done < 13:
        actor = (world.leader + len(world.trick)) & 3  # world.to_act, without the property
        if hunters is not None:
            target = hunters[actor]
            if target >= 0 and world.tricks_won[target] == 0:
                card = hunt_card(world, actor, target)
                if card >= 0:
                    world.play(card)
                    continue
        eps = noise[actor]
        if eps and rng.random() < eps:
            legal = nil_safe_moves(world, actor, world.legal(actor))
            cards = _moves_of(legal)
            world.play(cards[int(rng.random() * len(cards))])
        else:
            world.play(choose_card(world, actor))


def search(
    st: PlayState,
    seat: int,
    view: dict[str, Any],
    rng: random.Random,
    iterations: int,
    budget_ms: float,
    stats: SearchStats | None = None,
) -> int:
    legal = nil_safe_moves(st, seat, st.legal(seat))
    hidden = FULL_DECK & ~st.played & ~st.hands[seat]
    on_table = 0
    for card in st.trick:
        on_table |= 1 << card
    moves = distinct_moves(_moves_of(legal), st.hands[seat], hidden | on_table)
    if len(moves) == 1:
        return moves[0]  # an obvious move costs no search
    deadline = time.perf_counter() + budget_ms / 1000.0 if budget_ms < math.inf else math.inf
    if budget_ms <= 0:  # the time was spent before the search began (a long queue)
        if stats is not None:
            stats.cut = stats.thin = True
        return choose_card(st, seat)
    scorer = Scorer(view, st, seat)
    blind = st.blind
    sizes = list(view.get("hand_sizes") or [0, 0, 0, 0])
    played_by = _original_played(view)
    k = len(moves)
    totals = [0.0] * k
    weight_sum = 0.0
    sq = [0.0] * k
    # Racing: every sample plays each card still in the race on the same deal (common random
    # numbers); a card whose paired difference to the leader is clearly negative leaves it,
    # so the rollouts go to the cards that are close.
    active = list(range(k))
    history: list[list[float]] = [[] for _ in range(k)]
    weights: list[float] = []
    rollouts = 0
    samples = 0
    use_bids = st.tricks_done < 10
    # Score-aware: near the target a card is judged by the chance to win the game now (a
    # swing of 1,000 points) as well as the hand's points; bags near the limit and sets of
    # the other side are priced by the scorer.
    scores = list(st.scores)
    target = st.target
    near_end = len(scores) == (2 if st.partnership else 4) and max(scores) >= target - NEAR_END
    game_term = _game_chance if WIN_MODEL and st.partnership else _game_swing
    own_nil = -1  # a standing nil of the searching side (its opponents are modelled as hunters)
    for s in (seat, (seat + 2) & 3) if st.partnership else (seat,):
        if st.bids[s] == NIL and st.tricks_won[s] == 0:
            own_nil = s
            break
    hunters: list[int] | None = None  # per seat: the standing nil it hunts in the rollouts
    if own_nil >= 0:
        side = 1 if st.partnership else 3
        hunters = [own_nil if (s - own_nil) & side else -1 for s in range(4)]
    while True:
        hands = sample_world(st, seat, sizes, rng)
        if hands is None:
            break
        weight = 1.0
        if use_bids:
            log_w = 0.0
            for s in range(4):
                if s != seat:
                    log_w += _fit(hands[s] | played_by[s], st.bids[s])
            weight = math.exp(max(log_w, -30.0))
        noise = [0.0 if s == seat else rng.choice(CARELESS) for s in range(4)]
        samples += 1
        for i in active:
            world = st.copy()
            world.hands = hands[:]
            world.play(moves[i])
            rollout(world, seat, noise, rng, hunters)
            value = scorer.value(world.tricks_won, blind)
            if near_end:
                value += 1000.0 * game_term(scorer, world.tricks_won, blind, scores, target)
            totals[i] += weight * value
            sq[i] += weight * value * value
            if PRUNE:
                history[i].append(value)
            rollouts += 1
        weights.append(weight)
        weight_sum += weight
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
        if PRUNE:
            if samples >= PRUNE_FROM and samples % PRUNE_EVERY == 0:
                active = _race(active, history, weights)
                if len(active) == 1:
                    break
        elif samples >= 12 and samples % 4 == 0 and _clear_winner(totals, sq, weight_sum, samples):
            break
    if stats is not None:
        stats.rollouts = rollouts
    if weight_sum <= 0:
        return choose_card(st, seat)
    best = max(active, key=lambda i: totals[i])
    return moves[best]


PRUNE = True  # racing (below); False: every card gets every sample, with the early stop
PRUNE_FROM = 16  # samples before the first cut
PRUNE_EVERY = 8
PRUNE_GAP = 10.0  # points: a card leaves the race only when it is this much worse ...
PRUNE_SE = 3.0  # ... and worse by this many standard errors of the paired difference


def _wsum(weights: list[float], values: list[float]) -> float:
    return sum(w * v for w, v in zip(weights, values, strict=True))


def _race(active: list[int], history: list[list[float]], weights: list[float]) -> list[int]:
    """The cards still in the race: those not clearly worse than the leader.

    Every card in the race has been played on every sample so far, so each pair of them is
    compared sample by sample (weighted like the search), which cancels most of the luck
    of the deal."""
    w_sum = sum(weights)
    if w_sum <= 0 or len(active) < 2:
        return active
    means = {
        i: sum(w * v for w, v in zip(weights, history[i], strict=True)) / w_sum for i in active
    }
    lead = max(active, key=lambda i: means[i])
    base = history[lead]
    n = len(weights)
    kept = []
    for i in active:
        if i == lead:
            kept.append(i)
            continue
        diffs = [b - v for b, v in zip(base, history[i], strict=True)]
        gap = means[lead] - means[i]
        var = max(
            0.0, sum(w * d * d for w, d in zip(weights, diffs, strict=True)) / w_sum - gap * gap
        )
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


__all__ = [
    "DEFAULT_BUDGET_MS",
    "DEFAULT_ITERATIONS",
    "SearchStats",
    "decide_strong",
    "sample_world",
    "search",
]


# --- bidding by sampling ---------------------------------------------------------------------

# Sampled deals per bid decision (every candidate bid is played on each): at least
# BID_SAMPLES, and one per 4 rollouts of a card search per candidate (66 or 100 at 800). At
# 800 rollouts, 256 deals: +2.5 points per hand (SE 1.7) over 200 deals, for 19% more CPU a
# hand; with 1,600 rollouts (and 266 deals) no better in whole games (above).
BID_SAMPLES = 64
NEAR_END = 150  # within this of the target, a bid is judged by the chance to win


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
    legal = view["legal"]
    basic_action = choose_bid(view)
    offered = {a.get("bid") for a in legal if a["type"] == "bid"}
    st = from_view(view)
    seat = int(view["seat"])
    hand = st.hands[seat]
    partnership = st.partnership
    ctx = BidContext.of(view)
    bags = list(view.get("bags") or [])
    side = seat % 2 if partnership else seat
    my_bags = bags[side] if side < len(bags) else 0
    base = _number(count_tricks(hand, partnership), seat, st.bids, partnership, my_bags)
    cands: list[int] = []
    for n in (base, base - 1, base + 1):
        if n >= 1 and n in offered and n not in cands:
            cands.append(n)
    if basic_action.get("bid") == "nil":
        # Nil by its fitted odds and expected value (`basic.nil_pays`): rollouts against
        # sampled, partly careless opponents judged nils too kindly (66% made in a test).
        return basic_action
    if len(cands) <= 1:
        return basic_action
    if budget_ms <= 0:  # the time was spent before the search began (a long queue)
        if stats is not None:
            stats.cut = stats.thin = True
        return basic_action
    dealer = int(view.get("dealer", 0))
    first = (dealer + 1) & 3
    order = [(first + k) & 3 for k in range(4)]
    later = order[order.index(seat) + 1 :]
    scorer = Scorer(view, st, seat)
    scores = list(st.scores)
    near_end = bool(scores) and max(scores) >= ctx.target - NEAR_END
    game_term = _game_chance if WIN_MODEL and partnership and len(scores) == 2 else _game_swing
    blind = list(st.blind)
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
        log_w = 0.0
        for s in range(4):
            if s != seat and st.bids[s] != UNKNOWN:
                log_w += _fit(hands[s], st.bids[s])
        weight = math.exp(max(log_w, -30.0))
        noise = [0.0 if s == seat else rng.choice(CARELESS) for s in range(4)]
        state = rng.getstate()
        samples += 1
        values = []
        for cand in cands:
            rng.setstate(state)  # the same careless cards for every candidate
            bids = list(st.bids)
            bids[seat] = cand
            for s in later:
                s_side = s % 2 if partnership else s
                s_bags = bags[s_side] if s_side < len(bags) else 0
                bids[s] = bid_number(hands[s], s, bids, partnership, s_bags, "nil" in offered, ctx)
            world = st.copy()
            world.hands = hands[:]
            world.bids = bids
            world.prepare()
            world.leader = first
            rollout(world, seat, noise, rng)
            scorer.bids = bids
            value = scorer.value(world.tricks_won, blind)
            if near_end:
                value += 1000.0 * game_term(scorer, world.tricks_won, blind, scores, ctx.target)
            values.append(value)
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
    best = 0
    if weight_sum > 0 and samples > 1:
        for i in range(1, len(cands)):
            gap = (totals[i] - totals[0]) / weight_sum
            var = max(0.0, diff_sq[i] / weight_sum - gap * gap)
            if gap > 2.0 * math.sqrt(var / samples) and totals[i] > totals[best]:
                best = i
    n = cands[best]
    return {"type": "bid", "bid": "nil" if n == NIL else n}


def _game_swing(
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
# a side's score, over the square root of the hands left to the target. The optimum is
# flat (the bench's own refit on other games: log loss 0.5710, these constants 0.5712,
# a coin 0.6931); what it buys in play is measured by `bench.bot_ab --endgame`.
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


def _game_chance(
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
