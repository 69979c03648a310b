"""CPU per `strong` decision on a fixed set of card-play views (not part of the tests).

    python -m bench.strong_cpu [--hands 6] [--iterations N] [--repeat 3] [--mode partnership]

Deals `--hands` hands from fixed seeds and plays them with `basic`, keeping every view of a
card play with more than one legal card; then decides each of those views with `strong` at a
fixed iteration count and seed, `--repeat` times, and prints the process CPU per decision
(min / median / max over the repeats) and a digest of the answers. The search is
reproducible, so a change meant only to make it faster must leave the digest as it was.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from typing import Any

from spades.bots import decide
from spades.bots.strong import DEFAULT_ITERATIONS, decide_strong
from spades.engine import Game, Rules


def views(hands: int, mode: str) -> list[dict[str, Any]]:
    out = []
    rules = Rules.from_dict({"mode": mode, "target": 500})
    for deal in range(hands):
        game = Game.new(rules, seed=f"strong-cpu:{deal}", dealer=deal % 4)
        while not game.history:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            if game.phase == "playing" and len(view["legal"]) > 1:
                out.append(view)
            game.apply(seat, decide("basic", view, seed=deal))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=6)
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mode", choices=("partnership", "individual"), default="partnership")
    args = parser.parse_args()
    todo = views(args.hands, args.mode)
    per_decision = []
    answers: list[dict[str, Any]] = []
    for _ in range(args.repeat):
        start = time.process_time()
        answers = [decide_strong(v, seed=i, iterations=args.iterations) for i, v in enumerate(todo)]
        per_decision.append(1000 * (time.process_time() - start) / len(todo))
    digest = hashlib.sha256(json.dumps(answers).encode()).hexdigest()[:16]
    print(
        json.dumps(
            {
                "decisions": len(todo),
                "iterations": args.iterations,
                "cpu_ms_per_decision": {
                    "min": round(min(per_decision), 2),
                    "median": round(statistics.median(per_decision), 2),
                    "max": round(max(per_decision), 2),
                },
                "answers_digest": digest,
            }
        )
    )


if __name__ == "__main__":
    main()
