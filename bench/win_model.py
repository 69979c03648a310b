"""Fit strong's chance-to-win model for partnership games (not part of the tests).

    python -m bench.win_model [--games 10000] [--workers 2]

Plays basic against basic to 500 (partnership), records every hand's starting scores and
bags with the game's winner, and fits `spades.bots.outcome.win_chance`'s constants by
maximum likelihood (a coordinate search over a logistic in the bag-adjusted lead divided
by the square root of the hands left). Prints the fitted constants, the log loss against
a coin's 0.693, and the model's calibration for positions with a side within 150 of the
target.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
from typing import Any

from spades.bots import decide, outcome
from spades.engine import Game, Rules

TARGET = 500


def play(game_no: int) -> list[tuple[int, int, int, int, float]]:
    """(score, other score, bags, other bags, won) from side 0's seat at each hand's start."""
    rules = Rules.from_dict({"mode": "partnership", "target": TARGET})
    game = Game.new(rules, seed=f"win-model:{game_no}", dealer=game_no % 4)
    starts: list[tuple[int, int, int, int]] = []
    hand = -1
    step = 0
    while game.phase != "over" and game.hand_number < 200:
        if game.hand_number != hand:
            hand = game.hand_number
            starts.append((game.scores[0], game.scores[1], game.bags[0], game.bags[1]))
        seat = game.to_act
        assert seat is not None
        step += 1
        game.apply(seat, decide("basic", game.view(seat), seed=game_no * 100_003 + step))
    if game.winner is None:
        return []
    won = 1.0 if game.winner == 0 else 0.0
    rows = []
    for a, b, ba, bb in starts:  # both sides' points of view
        rows.append((a, b, ba, bb, won))
        rows.append((b, a, bb, ba, 1.0 - won))
    return rows


def chance(params: list[float], a: int, b: int, ba: int, bb: int) -> float:
    bag, per_hand, spread, min_hands = params
    return outcome.win_chance(a, b, ba, bb, TARGET, (bag, per_hand, spread, min_hands))


def log_loss(params: list[float], rows: list[tuple[int, int, int, int, float]]) -> float:
    total = 0.0
    for a, b, ba, bb, won in rows:
        p = min(1 - 1e-6, max(1e-6, chance(params, a, b, ba, bb)))
        total -= math.log(p) if won else math.log(1 - p)
    return total / len(rows)


def fit(rows: list[tuple[int, int, int, int, float]]) -> tuple[list[float], float]:
    params = [10.0, 70.0, 100.0, 1.0]
    steps = [2.0, 10.0, 10.0, 0.25]
    best = log_loss(params, rows)
    for _ in range(6):
        improved = True
        while improved:
            improved = False
            for i in range(len(params)):
                for sign in (1, -1):
                    trial = params[:]
                    trial[i] += sign * steps[i]
                    if trial[i] <= 0:
                        continue
                    value = log_loss(trial, rows)
                    if value < best:
                        best, params, improved = value, trial, True
        steps = [s / 2 for s in steps]
    return params, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows: list[Any] = []
    with multiprocessing.Pool(args.workers) as pool:
        for game_rows in pool.imap_unordered(play, range(args.games), chunksize=8):
            rows.extend(game_rows)
    params, loss = fit(rows)
    names = ("WIN_BAG", "WIN_HAND", "WIN_SPREAD", "WIN_MIN_HANDS")
    print(f"{len(rows)} positions from {args.games} games")
    print(", ".join(f"{n} = {v:.2f}" for n, v in zip(names, params, strict=True)))
    print(f"log loss {loss:.4f} (a coin: {math.log(2):.4f})")
    current = [outcome.WIN_BAG, outcome.WIN_HAND, outcome.WIN_SPREAD, outcome.WIN_MIN_HANDS]
    print(f"outcome.py's constants {current}: log loss {log_loss(current, rows):.4f}")
    near = [r for r in rows if max(r[0], r[1]) >= TARGET - 150]
    print(f"calibration, a side within 150 of the target ({len(near)} positions):")
    for lo in range(10):
        group = [r for r in near if lo / 10 <= chance(params, *r[:4]) < (lo + 1) / 10]
        if group:
            share = sum(r[4] for r in group) / len(group)
            print(f"  predicted {lo / 10:.1f}-{(lo + 1) / 10:.1f}: won {share:.3f} of {len(group)}")


if __name__ == "__main__":
    main()
