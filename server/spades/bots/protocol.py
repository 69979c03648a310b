"""`spades bot --level L`: the external bot protocol.

One JSON seat view per line on stdin (the engine's `Game.view(seat)`, exactly what the server
sends that seat), one JSON action per line on stdout (an element of the view's `legal`),
flushed after every line. A line that is not a usable view gets
`{"error": "..."}` on stdout instead, and the bot keeps reading. Blank lines are skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from . import LEVELS, decide
from .args import non_negative_float, positive_int


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--level", choices=LEVELS, default="basic", help="bot level")
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="base seed; line n is decided with seed + n (default: derived from each view)",
    )
    parser.add_argument(
        "--budget-ms",
        type=non_negative_float,
        default=None,
        help="strong level: time budget per decision in ms",
    )
    parser.add_argument(
        "--iterations",
        type=positive_int,
        default=None,
        help="strong level: rollouts per decision (fixed, for reproducible answers)",
    )


def answer(line: str, level: str, seed: int | None, **strong: Any) -> dict[str, Any]:
    try:
        view = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"error": f"not JSON: {exc.msg}"}
    if not isinstance(view, dict):
        return {"error": "a view is a JSON object"}
    legal = view.get("legal")
    if not isinstance(legal, list) or not legal:
        return {"error": "the view has no legal actions: nothing to decide"}
    try:
        if level == "strong" and any(v is not None for v in strong.values()):
            from .strong import decide_strong

            return decide_strong(view, seed=seed, **strong)
        return decide(level, view, seed=seed)
    except (KeyError, TypeError, ValueError) as exc:
        return {"error": f"unusable view: {exc}"}


def serve(
    level: str,
    stdin: IO[str],
    stdout: IO[str],
    *,
    seed: int | None = None,
    budget_ms: float | None = None,
    iterations: int | None = None,
) -> int:
    n = 0
    for line in stdin:
        if not line.strip():
            continue
        action = answer(
            line,
            level,
            None if seed is None else seed + n,
            budget_ms=budget_ms,
            iterations=iterations,
        )
        n += 1
        stdout.write(json.dumps(action) + "\n")
        stdout.flush()
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        return serve(
            args.level,
            sys.stdin,
            sys.stdout,
            seed=args.seed,
            budget_ms=args.budget_ms,
            iterations=args.iterations,
        )
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
