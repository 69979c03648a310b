"""Decision CPU of Normal (`basic`) against the frozen basic (issue 61: p99 under 2 ms).

    python -m bench.normal_cpu [--games 20] [--repeat 3]

Both levels decide every view of the same self-play games (Normal's actions are played, both
modes alternately); CPU per decision is `time.thread_time`, the view build excluded. Printed
per level: p50 / p99 / max in ms, min / median / max over the runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from spades.bots import decide
from spades.bots.simulate import percentile
from spades.engine import Game, Rules

from . import frozen_basic


def one_run(games: int, run: int) -> dict[str, dict[str, float]]:
    cpu: dict[str, list[float]] = {"normal": [], "frozen": []}
    for g in range(games):
        mode = "partnership" if g % 2 == 0 else "individual"
        game = Game.new(Rules(mode=mode), seed=f"normal-cpu-{run}-{g}", dealer=g % 4)
        while game.phase != "over":
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            c0 = time.thread_time()
            frozen_basic.decide(view)
            c1 = time.thread_time()
            action = decide("basic", view)
            c2 = time.thread_time()
            cpu["frozen"].append(c1 - c0)
            cpu["normal"].append(c2 - c1)
            game.apply(seat, action)
    return {
        level: {
            "n": len(v),
            "p50_ms": 1000 * percentile(v, 50),
            "p99_ms": 1000 * percentile(v, 99),
            "max_ms": 1000 * max(v),
        }
        for level, v in cpu.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    runs = [one_run(args.games, r) for r in range(args.repeat)]
    out: dict[str, dict[str, object]] = {}
    for level in runs[0]:
        out[level] = {"decisions": runs[0][level]["n"]}
        for key in ("p50_ms", "p99_ms", "max_ms"):
            vals = sorted(run[level][key] for run in runs)
            out[level][key] = [
                round(vals[0], 3),
                round(statistics.median(vals), 3),
                round(vals[-1], 3),
            ]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
