"""How well strong's sampled deals guess where the hidden cards are (not part of the tests).

    python -m bench.inference [--hands 300] [--opponent basic|rival] [--samples 200]

Plays partnership hands from 0-0 (seat 0 and its partner `basic`, the other side
`--opponent`), and at every card seat 0 chooses (trick 1 to 9) it deals the hidden cards
`--samples` times the way `strong` does (`sample_world`). Each way of weighting those deals
by the bids (a variant below) is judged on the same deals by how much weight it puts on the
truth: for every hidden card, the weighted share of deals that give it to the seat that
really holds it. Printed per variant: the mean log of that share (higher is better; no
weighting at all is the baseline), the mean share itself, and the effective sample size
(how many equally weighted deals the weights are worth, out of `--samples`). Better
guesses are what the card search stands on; this measures them without the noise of
playing the hands out.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections.abc import Callable
from typing import Any

from spades.bots.bidding import (
    bid_for_count,
    count_tricks,
    estimate_tricks,
    nil_danger,
    nil_odds,
)
from spades.bots.state import NIL, UNKNOWN, from_view
from spades.bots.worlds import original_played, sample_world
from spades.engine import Game, Rules
from spades.engine.cards import FULL_DECK, parse_card

from .bot_ab import seat_action

Fit = Callable[[int, int, int, list[int], list[int]], float]


def _gauss(diff: float, sigma: float) -> float:
    return -(diff * diff) / (2 * sigma * sigma)


def _nil_danger(hand: int) -> float:
    return -0.8 * min(nil_danger(hand), 6.0)


def fit_estimate(sigma: float) -> Fit:
    def fit(hand: int, seat: int, bid: int, before: list[int], bags: list[int]) -> float:
        if bid == NIL:
            return _nil_danger(hand)
        return _gauss(estimate_tricks(hand) - bid, sigma)

    return fit


def fit_count(sigma: float, nil: str = "danger") -> Fit:
    """The partnership count with the position rules basic bids by (`bid_for_count`)."""

    def fit(hand: int, seat: int, bid: int, before: list[int], bags: list[int]) -> float:
        if bid == NIL:
            if nil == "odds":
                return 2.0 * math.log(max(nil_odds(hand, True), 1e-3))
            return _nil_danger(hand)
        n = bid_for_count(count_tricks(hand, True), seat, before, True, bags[seat % 2])
        return _gauss(n - bid, sigma)

    return fit


def fit_raw_count(sigma: float) -> Fit:
    def fit(hand: int, seat: int, bid: int, before: list[int], bags: list[int]) -> float:
        if bid == NIL:
            return _nil_danger(hand)
        return _gauss(count_tricks(hand, True) + 0.3 - bid, sigma)

    return fit


VARIANTS: dict[str, Fit | None] = {
    "none": None,
    "estimate 1.4 (now)": fit_estimate(1.4),
    "estimate 1.0": fit_estimate(1.0),
    "count 1.4": fit_raw_count(1.4),
    "count 1.0": fit_raw_count(1.0),
    "basic's number 1.0": fit_count(1.0),
    "basic's number 0.7": fit_count(0.7),
    "basic's number 1.0, nil odds": fit_count(1.0, "odds"),
}


def bids_before(view: dict[str, Any]) -> list[list[int]]:
    """Per seat: the bids on the table when that seat bid (UNKNOWN for the later ones)."""
    dealer = int(view.get("dealer", 0))
    order = [(dealer + 1 + k) & 3 for k in range(4)]
    st = from_view(view)
    out = []
    for s in range(4):
        known = [UNKNOWN] * 4
        for earlier in order[: order.index(s)]:
            known[earlier] = st.bids[earlier]
        out.append(known)
    return out


def judge(
    view: dict[str, Any], truth: dict[int, int], samples: int, rng: random.Random
) -> dict[str, tuple]:
    """(mean log share, mean share, effective sample size) per variant for one view."""
    st = from_view(view)
    seat = int(view["seat"])
    sizes = list(view["hand_sizes"])
    played_by = original_played(view)
    before = bids_before(view)
    bags = list(view.get("bags") or [0, 0])
    hidden = FULL_DECK & ~st.played & ~st.hands[seat]
    cards = [c for c in range(52) if hidden >> c & 1]
    deals = []
    for _ in range(samples):
        hands = sample_world(st, seat, sizes, rng)
        if hands is None:
            break
        deals.append(hands)
    out: dict[str, tuple] = {}
    for name, fit in VARIANTS.items():
        weights = []
        for hands in deals:
            if fit is None:
                weights.append(1.0)
                continue
            log_w = 0.0
            for s in range(4):
                if s != seat and st.bids[s] >= 0:
                    log_w += fit(hands[s] | played_by[s], s, st.bids[s], before[s], bags)
            weights.append(math.exp(max(log_w, -30.0)))
        total = sum(weights)
        ess = total * total / sum(w * w for w in weights)
        logs = []
        shares = []
        for c in cards:
            owner = truth[c]
            share = sum(w for w, h in zip(weights, deals, strict=True) if h[owner] >> c & 1) / total
            shares.append(share)
            logs.append(math.log(max(share, 1e-3)))
        out[name] = (statistics.mean(logs), statistics.mean(shares), ess)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--opponent", choices=("basic", "rival"), default="basic")
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    results: dict[str, list[tuple]] = {name: [] for name in VARIANTS}
    rng = random.Random(5)
    levels = ["basic", args.opponent, "basic", args.opponent]
    for hand_no in range(args.hands):
        game = Game.new(
            Rules.from_dict({"mode": "partnership"}), seed=f"inf:{hand_no}", dealer=hand_no % 4
        )
        # Who holds each card, from the deal (a played card is never hidden, so the deal
        # answers for every card a view can ask about).
        truth = {parse_card(c): owner for owner in range(4) for c in game.view(owner)["hand"]}
        step = 0
        while not game.history:
            s = game.to_act
            assert s is not None
            view = game.view(s)
            step += 1
            if s == 0 and view["phase"] == "playing" and len(view.get("tricks") or []) < 9:
                for name, row in judge(view, truth, args.samples, rng).items():
                    results[name].append(row)
            game.apply(s, seat_action(levels[s], view, hand_no * 100 + step, 0))
    base = [r[0] for r in results["none"]]
    for name, rows in results.items():
        logs = [r[0] for r in rows]
        diffs = [a - b for a, b in zip(logs, base, strict=True)]
        se = statistics.stdev(diffs) / len(diffs) ** 0.5 if name != "none" else 0.0
        print(
            f"{name:32s} log share {statistics.mean(logs):+.4f} "
            f"(vs none {statistics.mean(diffs):+.4f}, se {se:.4f}), "
            f"share {statistics.mean(r[1] for r in rows):.4f}, "
            f"ESS {statistics.mean(r[2] for r in rows):.0f}, views {len(rows)}",
            flush=True,
        )


if __name__ == "__main__":
    main()
