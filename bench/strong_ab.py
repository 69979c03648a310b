"""Whole games of today's Hard (`strong`) against its frozen copy, duplicate (not in the tests).

    python -m bench.strong_ab --games 0 200 [--mode partnership|individual] [--workers 2] \
        [--a '{"CONSTANT": value}'] [--out FILE.jsonl]

Side A is the live `spades.bots.strong` (with `--a`, some of its module constants set as
`bench.bot_ab` sets them); side B is the frozen copy of strong as it was before issue 61's
work on its cost (`bench/frozen_strong/`). A takes seats 0+2 (individual: seat 0, against
three B), then the game is played again from the same seed with the seats rotated
(partnership: twice, individual: four times), so both hold the same cards. Each decision
has its own seed, the same for both sides at the same step. Printed: A's share of the games
won with a 95% (Wilson) interval, A's score minus the other side's per hand (individual:
minus the others' average) with a 95% interval over the seeds, both sides' nils bid and
made (also by the fitted odds `bidding.nil_odds` gave the bid, in steps of 0.05), and A's
and B's decision CPU (thread time, every decision of the side: p50 / p99).
With `--out`, every game is also written as a JSON line when it ends, so a run cut short
still counts (`--report FILE` prints the summary of such a file; seeds with a seating
not played are left out).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import time
from typing import Any

from spades.bots.bidding import hand_for_bids, nil_odds
from spades.bots.state import UNKNOWN, bid_value, from_view
from spades.bots.strong import decide_strong
from spades.engine import Game, Rules

from . import frozen_strong
from .bot_ab import _configure

Job = tuple[int, int, str, dict[str, Any], int]


def play_game(job: Job) -> dict[str, Any]:
    index, rotation, mode, variant, target = job

    _configure(variant)
    rules = Rules.from_dict({"mode": mode, "target": target})
    game = Game.new(rules, seed=f"strong-ab:{index}", dealer=index % 4)
    partnership = mode == "partnership"
    order = ["a", "b"] * 2 if partnership else ["a", "b", "b", "b"]
    sides = [order[(seat + rotation) % 4] for seat in range(4)]
    cpu: dict[str, list[float]] = {"a": [], "b": []}
    step = 0
    odds: dict[tuple[int, int], float] = {}  # (hand, seat) -> the fitted odds of a nil bid
    while game.phase != "over" and game.hand_number <= 60:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        step += 1
        seed = index * 1_000_003 + step
        start = time.thread_time()
        if sides[seat] == "a":
            action = decide_strong(view, seed=seed)
        else:
            action = frozen_strong.decide_strong(view, seed=seed)
        cpu[sides[seat]].append(1000 * (time.thread_time() - start))
        if action.get("bid") == "nil":
            odds[(game.hand_number, seat)] = _nil_odds(view, seat, partnership)
        game.apply(seat, action)
    a_side = (0 - rotation) % (2 if partnership else 4)
    scores = game.scores
    others = scores[1 - a_side] if partnership else (sum(scores) - scores[a_side]) / 3
    nils = {"a": [0, 0], "b": [0, 0]}
    nil_list = []  # [side, fitted odds, made] of every nil bid
    for hand in game.history:
        for seat in range(4):
            if hand["bids"][seat] in ("nil", "blind nil"):
                made = hand["nil_made"][seat] is True
                nils[sides[seat]][0] += 1
                nils[sides[seat]][1] += made
                p = odds.get((hand["hand"], seat), -1.0)
                nil_list.append([sides[seat], round(p, 3), made])
    return {
        "index": index,
        "rotation": rotation,
        "a_won": game.winner == a_side,
        "diff_per_hand": (scores[a_side] - others) / max(1, len(game.history)),
        "hands": len(game.history),
        "nils": nils,
        "nil_list": nil_list,
        "cpu": cpu,
    }


def _nil_odds(view: dict[str, Any], seat: int, partnership: bool) -> float:
    hand = hand_for_bids(view, from_view(view).hands[seat])
    bids = view.get("bids") or [None] * 4
    partner = bid_value(bids[(seat + 2) % 4]) if partnership else UNKNOWN
    return nil_odds(hand, partnership, partner)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def _wilson(k: int, n: int) -> list[float]:
    if n == 0:
        return [0.0, 1.0]
    z = 1.96
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(mid - half, 4), round(mid + half, 4)]


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures over the seeds whose every seating has been played (a run cut short leaves
    some seeds half done: counted in `left_out`)."""
    rotations = 1 + max((r["rotation"] for r in results), default=0)
    played: dict[int, int] = {}
    for r in results:
        played[r["index"]] = played.get(r["index"], 0) + 1
    left_out = sum(1 for r in results if played[r["index"]] < rotations)
    results = [r for r in results if played[r["index"]] == rotations]
    per_seed: dict[int, list[float]] = {}
    for r in results:
        per_seed.setdefault(r["index"], []).append(r["diff_per_hand"])
    means = [statistics.mean(v) for v in per_seed.values()]
    mean = statistics.mean(means) if means else 0.0
    se = statistics.stdev(means) / len(means) ** 0.5 if len(means) > 1 else 0.0
    wins = sum(r["a_won"] for r in results)
    out: dict[str, Any] = {
        "games": len(results),
        "seeds": len(per_seed),
        "a_wins": wins,
        "a_win_share": round(wins / max(1, len(results)), 4),
        "a_win_ci95": _wilson(wins, len(results)),
        "a_points_per_hand": round(mean, 2),
        "ci95": [round(mean - 1.96 * se, 2), round(mean + 1.96 * se, 2)],
        "hands": sum(r["hands"] for r in results),
        "left_out": left_out,
    }
    for side in ("a", "b"):
        bid = sum(r["nils"][side][0] for r in results)
        made = sum(r["nils"][side][1] for r in results)
        cpu = [t for r in results for t in r["cpu"][side]]
        out[f"{side}_nils"] = f"{made} of {bid}" + (f" = {100 * made / bid:.1f}%" if bid else "")
        out[f"{side}_cpu_ms"] = {
            "p50": round(_pct(cpu, 50), 2),
            "p99": round(_pct(cpu, 99), 2),
            "mean": round(statistics.mean(cpu), 2) if cpu else 0.0,
            "decisions": len(cpu),
        }
        by_odds: dict[str, list[int]] = {}
        for r in results:
            for s, p, made in r.get("nil_list", []):
                if s == side:
                    key = f"{math.floor(p * 20) / 20:.2f}" if p >= 0 else "?"
                    cell = by_odds.setdefault(key, [0, 0])
                    cell[0] += 1
                    cell[1] += made
        out[f"{side}_nils_by_odds"] = {k: f"{m} of {n}" for k, (n, m) in sorted(by_odds.items())}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, nargs=2, default=[0, 200], metavar=("FROM", "TO"))
    parser.add_argument("--mode", choices=("partnership", "individual"), default="partnership")
    parser.add_argument("--target", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--a", default="{}", help="JSON: live strong constant -> value")
    parser.add_argument("--out", default=None, help="append every game here as a JSON line")
    parser.add_argument("--report", default=None, help="only print the summary of this file")
    args = parser.parse_args()
    if args.report:
        with open(args.report) as f:
            results = [json.loads(line) for line in f if line.strip()]
        print(json.dumps(summary(results)))
        return
    variant = json.loads(args.a)
    rotations = 2 if args.mode == "partnership" else 4
    jobs = [
        (i, r, args.mode, variant, args.target)
        for i in range(*args.games)
        for r in range(rotations)
    ]
    results = []
    out = open(args.out, "a") if args.out else None  # noqa: SIM115 (closed below)
    try:
        with multiprocessing.Pool(args.workers) as pool:
            for result in pool.imap_unordered(play_game, jobs):
                results.append(result)
                if out is not None:
                    out.write(json.dumps(result) + "\n")
                    out.flush()
    finally:
        if out is not None:
            out.close()
    print(json.dumps({"mode": args.mode, **summary(results)}))


if __name__ == "__main__":
    main()
