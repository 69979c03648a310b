"""The project's bots against an independent opponent (`bench/rival.py`), not part of the tests.

    python -m bench.rival_match --seats strong,rival,strong,rival --games 200 --workers 2 \
        --strong-iterations 800 --json
    python -m bench.rival_match --mode individual --seats basic,rival,rival,rival --games 200

The same games and report as `spades simulate` (every option of it, duplicate deals by
default), with one more level at the table: `rival`, a conventional rule-based player
written apart from the project's bots, from general Spades practice and without reading
them. The project's own figures compare its bots with each other; a bot tuned against its
own kind can look better there than it is. This bench asks how `basic` and `strong` do
against a player that thinks differently, and how their nils and contracts hold up when
someone else defends and attacks them.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bench import rival
from spades.bots import LEVELS, simulate
from spades.bots import decide as project_decide


def decide(level: str, view: dict[str, Any], *, seed: int | None = None) -> dict[str, Any]:
    if level == "rival":
        return rival.decide(view, seed=seed)
    return project_decide(level, view, seed=seed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    simulate.configure(parser)
    args = parser.parse_args()
    # The simulator looks its levels and its decide up in its own module; worker processes
    # are forked from this one, so they see the same.
    simulate.LEVELS = (*LEVELS, "rival")
    simulate.decide = decide
    return simulate.run(args)


if __name__ == "__main__":
    sys.exit(main())
