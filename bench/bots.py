"""Bot acceptance figures (long runs; not part of the test suite).

    python -m bench.bots [--workers 2] [--strong-iterations N] [--only NAME ...]
                         [--quick | --games-scale F]

Runs, in order (each is a `spades simulate` run, duplicate deals):
- `basic-random`: basic vs random, partnership, 200 games to 500 (basic must win >= 98%);
- `calibration`: basic self-play in both modes, 200 games to 500 each (nil made >= 75%,
  blind nil made >= 50% or never bid, non-nil contracts made >= 85%, bags < 1.2 per side
  per hand);
- `easy-basic`: easy vs basic, partnership, 200 games to 500 (basic wins >= 80%, easy never
  bids blind nil);
- `strong-basic`: strong vs basic, partnership, 400 games to 500 (strong >= 80%);
- `individual`: strong vs three basic, individual, 300 games to 500 (strong >= 40%);
- `timing`: decision time of basic and of strong at its defaults, on views from basic
  self-play (wall clock and CPU time separately).
The strong bot's decisions are fixed by its iterations (default `strong.DEFAULT_ITERATIONS`,
or `--strong-iterations`) and the seed; no wall-clock cap applies unless
`--strong-budget-ms` is given. `--quick` plays a tenth of the games, `--games-scale F` a
share F of them; quote the game counts with the figures.
"""

from __future__ import annotations

import argparse
import json
import time

from spades.bots import decide
from spades.bots.simulate import percentile, simulate
from spades.engine import Game, Rules

RUNS = ("basic-random", "calibration", "easy-basic", "strong-basic", "individual", "timing")


def _line(name: str, rep: dict, side: int, goal: str) -> str:
    lo, hi = rep["ci95"][side]
    d = rep["point_diff_per_hand"][side]
    return (
        f"{name:<13} {rep['sides'][side]:<14} won {rep['wins'][side]}/{rep['games']} "
        f"= {100 * rep['win_rate'][side]:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f})  "
        f"[goal {goal}]  points/hand {d['mean']:+} (CI {d['lo']:+} to {d['hi']:+})  "
        f"{_side_figures(rep, side)}  {rep['seconds']} s"
    )


def _side_figures(rep: dict, side: int) -> str:
    return (
        f"nil {rep['nil_attempts'][side]} made {rep['nil_made_pct'][side]}%, blind nil "
        f"{rep['blind_nil_attempts'][side]} made {rep['blind_nil_made_pct'][side]}%, "
        f"contracts {rep['contracts_made_pct'][side]}%, bags/hand {rep['bags_per_hand'][side]}"
    )


def timing(decisions: int, seed: int) -> dict[str, dict[str, float]]:
    """Time basic and default-budget strong on the same views from basic self-play."""
    wall: dict[str, list[float]] = {"basic": [], "strong": []}
    cpu: dict[str, list[float]] = {"basic": [], "strong": []}
    game_no = 0
    while len(wall["strong"]) < decisions:
        mode = "partnership" if game_no % 2 == 0 else "individual"
        game = Game.new(Rules(mode=mode), seed=f"timing-{seed}-{game_no}")
        game_no += 1
        while game.phase != "over" and len(wall["strong"]) < decisions:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            action = None
            for level in ("basic", "strong"):
                t0, c0 = time.perf_counter(), time.thread_time()
                chosen = decide(level, view, seed=len(wall[level]))
                wall[level].append(time.perf_counter() - t0)
                cpu[level].append(time.thread_time() - c0)
                if level == "basic":
                    action = chosen
            game.apply(seat, action)
    return {
        level: {
            "n": len(wall[level]),
            "p50_ms": round(1000 * percentile(wall[level], 50), 3),
            "p99_ms": round(1000 * percentile(wall[level], 99), 3),
            "max_ms": round(1000 * max(wall[level]), 3),
            "cpu_p50_ms": round(1000 * percentile(cpu[level], 50), 3),
            "cpu_p99_ms": round(1000 * percentile(cpu[level], 99), 3),
        }
        for level in wall
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strong-iterations", type=int, default=None)
    parser.add_argument("--strong-budget-ms", type=float, default=None)
    parser.add_argument("--only", nargs="*", choices=RUNS, default=list(RUNS))
    parser.add_argument("--quick", action="store_true", help="a tenth of the games")
    parser.add_argument("--games-scale", type=float, default=None, help="share of the games")
    parser.add_argument("--timing-decisions", type=int, default=600)
    parser.add_argument("--json", action="store_true", help="also print each report as JSON")
    args = parser.parse_args()
    share = args.games_scale if args.games_scale else (0.1 if args.quick else 1.0)

    def games(n: int) -> int:
        return max(2, int(n * share) // 4 * 4 or 4)

    strong = {
        "strong_iterations": args.strong_iterations,
        "strong_budget_ms": args.strong_budget_ms,
    }
    p = Rules(mode="partnership", target=500)
    ind = Rules(mode="individual", target=500)
    out: dict[str, object] = {}
    if "basic-random" in args.only:
        rep = simulate(
            ["basic", "random", "basic", "random"], p, games(200), args.seed, workers=args.workers
        )
        out["basic-random"] = rep
        print(_line("basic-random", rep, 0, ">= 98%"), flush=True)
    if "calibration" in args.only:
        for rules in (p, ind):
            rep = simulate(["basic"] * 4, rules, games(200), args.seed, workers=args.workers)
            out[f"calibration-{rules.mode}"] = rep
            print(
                f"calibration   basic self-play, {rules.mode}, {rep['games']} games, "
                f"{rep['hands']} hands: {_side_figures(rep, 0)}, tricks/bid "
                f"{rep['tricks_per_bid'][0]}  [goal nil >= 75%, blind nil >= 50% or none, "
                "contracts >= 85%, bags < 1.2]",
                flush=True,
            )
    if "easy-basic" in args.only:
        rep = simulate(
            ["easy", "basic", "easy", "basic"], p, games(200), args.seed, workers=args.workers
        )
        out["easy-basic"] = rep
        print(_line("easy-basic", rep, 1, ">= 80%"), flush=True)
    if "strong-basic" in args.only:
        rep = simulate(
            ["strong", "basic", "strong", "basic"],
            p,
            games(400),
            args.seed,
            workers=args.workers,
            **strong,
        )
        out["strong-basic"] = rep
        print(_line("strong-basic", rep, 0, ">= 80%"), flush=True)
    if "individual" in args.only:
        rep = simulate(
            ["strong", "basic", "basic", "basic"],
            ind,
            games(300),
            args.seed,
            workers=args.workers,
            **strong,
        )
        out["individual"] = rep
        print(_line("individual", rep, 0, ">= 40%"), flush=True)
    if "timing" in args.only:
        t = timing(max(20, int(args.timing_decisions * share)), args.seed)
        out["timing"] = t
        for level, row in t.items():
            print(
                f"timing        {level:<7} n={row['n']} p50 {row['p50_ms']} ms  "
                f"p99 {row['p99_ms']} ms  max {row['max_ms']} ms  (CPU p50 "
                f"{row['cpu_p50_ms']} ms, p99 {row['cpu_p99_ms']} ms)",
                flush=True,
            )
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
