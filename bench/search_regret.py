"""Points a cheaper card search loses per decision, replayed offline (not part of the tests).

    python -m bench.search_regret [--hands 6] [--deals 600] [--trials 4] [--mode partnership]

On `bench.strong_cpu`'s views (card plays with more than one legal card), every candidate
card of the strong search is played out on `--deals` sampled deals (as the search samples,
weights and rolls out), and the values kept. Then each search variant below is replayed on
the first half of those deals (in `--trials` shuffled orders) with the racing rules of
`card_search`, and charged the points its card loses against the best card by the weighted
mean over the other half. The reference is noisy, so part of every figure is its noise; the
variants are paired (the same deals and orders). Printed per variant: points lost per
decision (mean, standard error) and the cost in rollouts times the cards left to play.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
from typing import Any

from spades.bots import card_search
from spades.bots.state import from_view
from spades.bots.worlds import CARELESS, choice, sample_world

from .strong_cpu import views

BASE = {"iters": 800, "pfrom": 16, "pevery": 8, "gap": 10.0, "se": 3.0, "indiff": -1.0}
VARIANTS: dict[str, dict[str, float]] = {
    "800 rollouts, racing as now": {},
    "400 rollouts": {"iters": 400},
    "200 rollouts": {"iters": 200},
    "100 rollouts": {"iters": 100},
    "stop when every card left is within 2 points (2 se)": {"indiff": 2.0},
    "prune from 8 deals, every 4": {"pfrom": 8, "pevery": 4},
    "prune at 2.5 standard errors": {"se": 2.5},
}


def played_out(view: dict[str, Any], deals: int, seed: int) -> dict[str, Any] | None:
    st = from_view(view)
    seat = int(view["seat"])
    moves = card_search._candidates(st, seat)
    if len(moves) < 2:
        return None
    playouts = card_search._Playouts(st, seat, view)
    rng = random.Random(seed)
    weights: list[float] = []
    values: list[list[float]] = []
    for _ in range(deals):
        hands = sample_world(st, seat, playouts.sizes, rng)
        if hands is None:
            break
        weights.append(playouts.weight(hands))
        noise = [0.0 if s == seat else choice(rng, CARELESS) for s in range(4)]
        values.append([playouts.value(hands, m, noise, rng) for m in moves])
    return {"k": len(moves), "w": weights, "v": values, "left": len(view.get("hand") or [])}


def replay(w: list[float], v: list[list[float]], k: int, p: dict[str, float]) -> tuple[int, int]:
    """The card a racing search picks on these deals, and its rollouts."""
    active = list(range(k))
    hist: list[list[float]] = [[] for _ in range(k)]
    ws: list[float] = []
    rollouts = 0
    for n, (weight, vals) in enumerate(zip(w, v, strict=True), start=1):
        ws.append(weight)
        for i in active:
            hist[i].append(vals[i])
            rollouts += 1
        if rollouts >= p["iters"] and n >= card_search.MIN_SAMPLES:
            break
        if n >= p["pfrom"] and n % p["pevery"] == 0:
            total = sum(ws)
            means = {
                i: sum(a * b for a, b in zip(ws, hist[i], strict=True)) / total for i in active
            }
            lead = max(active, key=lambda i: means[i])
            kept, close = [lead], True
            for i in active:
                if i == lead:
                    continue
                d = [b - x for b, x in zip(hist[lead], hist[i], strict=True)]
                gap = means[lead] - means[i]
                var = max(0.0, sum(a * x * x for a, x in zip(ws, d, strict=True)) / total - gap**2)
                if gap > p["gap"] and gap * gap > p["se"] ** 2 * var / n:
                    continue
                kept.append(i)
                close = close and gap - 2.0 * math.sqrt(var / n) >= -p["indiff"]
            active = sorted(kept)
            if len(active) == 1 or (p["indiff"] >= 0 and close):
                break
    best = max(active, key=lambda i: sum(a * b for a, b in zip(ws, hist[i], strict=True)))
    return best, rollouts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=6)
    parser.add_argument("--deals", type=int, default=600)
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--mode", choices=("partnership", "individual"), default="partnership")
    args = parser.parse_args()
    data = [
        played_out(v, args.deals, 10_000 + i) for i, v in enumerate(views(args.hands, args.mode))
    ]
    cases = [d for d in data if d is not None and len(d["w"]) >= 100]
    out = {}
    for name, change in VARIANTS.items():
        p = {**BASE, **change}
        lost: list[float] = []
        cost = 0
        for trial in range(args.trials):
            for index, d in enumerate(cases):
                half = len(d["w"]) // 2
                order = list(range(half))
                random.Random(trial * 1000 + index).shuffle(order)
                ref_w, ref_v = d["w"][half:], d["v"][half:]
                ref = [
                    sum(a * b[i] for a, b in zip(ref_w, ref_v, strict=True)) for i in range(d["k"])
                ]
                best, rollouts = replay(
                    [d["w"][j] for j in order], [d["v"][j] for j in order], d["k"], p
                )
                lost.append((max(ref) - ref[best]) / sum(ref_w))
                cost += rollouts * d["left"]
        se = statistics.stdev(lost) / len(lost) ** 0.5
        out[name] = {
            "lost": round(statistics.mean(lost), 3),
            "se": round(se, 3),
            "cost_k": round(cost / args.trials / 1000),
        }
        print(json.dumps({name: out[name]}), flush=True)


if __name__ == "__main__":
    main()
