"""Bot acceptance figures (long runs; not part of the test suite).

    python -m bench.bots [--workers 2] [--strong-iterations N] [--only NAME ...] [--quick]

Runs, in order (each is a `spades simulate` run, duplicate deals, sides swapped):
- `basic-random`: basic vs random, partnership, 200 games to 500 (basic must win >= 98%);
- `calibration`: basic self-play, partnership, 200 games to 500 (non-nil contracts made
  >= 75%, bags < 2.5 per side per hand);
- `strong-basic`: strong vs basic, partnership, 200 games to 500 (strong >= 60%);
- `individual`: strong vs three basic, individual, 300 games to 500 (strong >= 35%);
- `timing`: decision time of basic and of strong at its default budget, on views from
  basic self-play (basic p99 < 2 ms, strong p99 < 250 ms).
`--strong-iterations` fixes the strong bot's rollouts per decision for the two strong runs
(default: its own default iterations and time budget); say so when quoting the figures.
"""

from __future__ import annotations

import argparse
import json
import time

from spades.bots import decide
from spades.bots.simulate import percentile, simulate
from spades.engine import Game, Rules

RUNS = ("basic-random", "calibration", "strong-basic", "individual", "timing")


def _line(name: str, rep: dict, side: int, goal: str) -> str:
    lo, hi = rep["ci95"][side]
    return (
        f"{name:<13} {rep['sides'][side]:<14} won {rep['wins'][side]}/{rep['games']} "
        f"= {100 * rep['win_rate'][side]:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f})  "
        f"[goal {goal}]  {rep['seconds']} s"
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
    parser.add_argument("--timing-decisions", type=int, default=600)
    parser.add_argument("--json", action="store_true", help="also print each report as JSON")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    strong = {
        "strong_iterations": args.strong_iterations,
        "strong_budget_ms": args.strong_budget_ms,
    }
    p = Rules(mode="partnership", target=500)
    ind = Rules(mode="individual", target=500)
    out: dict[str, object] = {}
    if "basic-random" in args.only:
        rep = simulate(
            ["basic", "random", "basic", "random"], p, 200 // scale, args.seed, workers=args.workers
        )
        out["basic-random"] = rep
        print(_line("basic-random", rep, 0, ">= 98%"), flush=True)
    if "calibration" in args.only:
        rep = simulate(
            ["basic", "basic", "basic", "basic"], p, 200 // scale, args.seed, workers=args.workers
        )
        out["calibration"] = rep
        print(
            f"calibration   basic self-play {rep['games']} games, {rep['hands']} hands: "
            f"contracts made {rep['contracts_made_pct']} %, bags/side/hand "
            f"{rep['bags_per_hand']}, tricks/bid {rep['tricks_per_bid']}, nil "
            f"{rep['nil_attempts']} made {rep['nil_made_pct']} %, blind nil "
            f"{rep['blind_nil_attempts']} made {rep['blind_nil_made_pct']} %  "
            "[goal >= 75%, < 2.5]",
            flush=True,
        )
    if "strong-basic" in args.only:
        rep = simulate(
            ["strong", "basic", "strong", "basic"],
            p,
            200 // scale,
            args.seed,
            workers=args.workers,
            **strong,
        )
        out["strong-basic"] = rep
        print(_line("strong-basic", rep, 0, ">= 60%"), flush=True)
    if "individual" in args.only:
        rep = simulate(
            ["strong", "basic", "basic", "basic"],
            ind,
            300 // scale,
            args.seed,
            workers=args.workers,
            **strong,
        )
        out["individual"] = rep
        print(_line("individual", rep, 0, ">= 35%"), flush=True)
    if "timing" in args.only:
        t = timing(args.timing_decisions // scale, args.seed)
        out["timing"] = t
        for level, row in t.items():
            print(
                f"timing        {level:<7} n={row['n']} p50 {row['p50_ms']} ms  "
                f"p99 {row['p99_ms']} ms  max {row['max_ms']} ms  (CPU p50 "
                f"{row['cpu_p50_ms']} ms, p99 {row['cpu_p99_ms']} ms)  "
                f"[goal p99 < {'2' if level == 'basic' else '250'} ms]",
                flush=True,
            )
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
