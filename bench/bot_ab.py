"""Paired per-hand comparison of strong-bot settings against `basic` (not part of the tests).

    python -m bench.bot_ab --variants '{"400": {"ITER": 400}, "800": {"ITER": 800}}' \
        --deals 100 400 [--mode partnership] [--workers 2] [--opponent rival]

Each deal is one hand from 0-0, played by strong (seats 0+2; individual: seat 0) against
basic (or `--opponent rival`: bench/rival.py, a player strong does not model), once per
rotation of the seats (partnership: 2, individual: 4), for every variant.
A variant sets module constants of the strong bot (e.g. `PRUNE`, `CARELESS`), or
`ITER` for the rollouts per decision. Printed per variant: the mean point difference per
deal (strong's side minus the other side, or minus the others' average) with its standard
error, the CPU per hand, and for every variant after the first the paired difference to the
first (the same deals and seeds, so most of the luck of the cards cancels). Games are long
and noisy; per-hand differences on the same deals tell settings apart far sooner.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import time
from typing import Any

from spades.bots import decide
from spades.engine import Game, Rules

# The module's own values of every constant a variant has set in this process: a worker plays
# the jobs of every variant in turn, so each job starts from the defaults, not from whatever
# the previous variant left behind.
_DEFAULTS: dict[str, Any] = {}


def _strong_modules() -> tuple[Any, ...]:
    """The strong bot's modules. A constant is set in every one that holds it: a module that
    imported it reads its own name."""
    from spades.bots import bid_search, card_search, outcome, strong, worlds

    return (strong, card_search, bid_search, worlds, outcome)


def _set(name: str, value: Any) -> None:
    for module in _strong_modules():
        if name in vars(module):
            setattr(module, name, value)


def _configure(variant: dict[str, Any]) -> None:
    for name, value in _DEFAULTS.items():
        _set(name, value)
    for name, value in variant.items():
        if name != "ITER":
            owners = [m for m in _strong_modules() if name in vars(m)]
            if not owners:
                raise ValueError(f"the strong bot has no constant {name!r}")
            _DEFAULTS.setdefault(name, getattr(owners[0], name))
            _set(name, tuple(value) if isinstance(value, list) else value)


def seat_action(level: str, view: dict[str, Any], seed: int, iterations: int) -> dict[str, Any]:
    """A level's move, with strong's search fixed by its iteration count (reproducible)."""
    if level == "strong":
        from spades.bots.strong import decide_strong

        return decide_strong(view, seed=seed, iterations=iterations)
    if level == "rival":
        from bench import rival

        return rival.decide(view, seed=seed)
    return decide(level, view, seed=seed)


def endgame_start(deal: int) -> tuple[list[int], list[int]]:
    """A late score for `--endgame` (strong's side first): 250-480 each, bags 0-9."""
    rng = random.Random(f"endgame:{deal}")
    scores: list[int] = []
    bags: list[int] = []
    for _ in range(2):
        b = rng.randrange(10)
        bags.append(b)
        scores.append(10 * rng.randrange(25, 48) + b)
    return scores, bags


def play_hand(
    job: tuple[str, dict[str, Any], int, int, str, str, bool],
) -> tuple[str, int, float, float]:
    """(variant name, deal, point difference or win for strong's side, CPU seconds)."""
    name, variant, deal, rotation, mode, opponent, endgame = job
    _configure(variant)
    from spades.bots.strong import DEFAULT_ITERATIONS

    iterations = int(variant.get("ITER", DEFAULT_ITERATIONS))
    rules = Rules.from_dict({"mode": mode, "target": 500})
    partnership = mode == "partnership"
    if endgame:
        # Strong's side is engine side (0 - rotation) % 2: it starts from the first score.
        start_scores, start_bags = endgame_start(deal)
        side = (0 - rotation) % 2
        if side == 1:
            start_scores.reverse()
            start_bags.reverse()
        game = Game(
            rules,
            seed=f"ab:{deal}",
            first_dealer=deal % 4,
            scores=start_scores,
            bags=start_bags,
        )
    else:
        game = Game.new(rules, seed=f"ab:{deal}", dealer=deal % 4)
    levels = ["strong", opponent] * 2 if partnership else ["strong"] + [opponent] * 3
    seat_level = [levels[(s + rotation) % 4] for s in range(4)]
    step = 0
    start = time.process_time()
    if endgame:
        while game.phase != "over" and game.hand_number <= 40:
            seat = game.to_act
            assert seat is not None
            step += 1
            view = game.view(seat)
            game.apply(seat, seat_action(seat_level[seat], view, deal * 7919 + step, iterations))
        side = (0 - rotation) % 2
        won = 1.0 if game.winner == side else 0.0 if game.winner is not None else 0.5
        return name, deal, won, time.process_time() - start
    while not game.history:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        step += 1
        game.apply(seat, seat_action(seat_level[seat], view, deal * 7919 + step, iterations))
    points = game.history[-1]["points"]
    if partnership:
        side = (0 - rotation) % 2
        diff = points[side] - points[1 - side]
    else:
        side = (0 - rotation) % 4
        diff = points[side] - (sum(points) - points[side]) / 3
    return name, deal, diff, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", required=True, help="JSON: name -> constants")
    parser.add_argument("--deals", type=int, nargs=2, default=[0, 200], metavar=("FROM", "TO"))
    parser.add_argument("--mode", choices=("partnership", "individual"), default="partnership")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--opponent", choices=("basic", "rival"), default="basic")
    parser.add_argument(
        "--endgame",
        action="store_true",
        help="partnership: play each deal from a late score (250-480 each) to the end of the "
        "game and print the share of games strong's side wins instead of points",
    )
    args = parser.parse_args()
    variants: dict[str, dict[str, Any]] = json.loads(args.variants)
    rotations = 2 if args.mode == "partnership" else 4
    deals = range(*args.deals)
    jobs = [
        (name, variant, deal, rotation, args.mode, args.opponent, args.endgame)
        for deal in deals
        for rotation in range(rotations)
        for name, variant in variants.items()
    ]
    per_deal: dict[str, dict[int, float]] = {name: {} for name in variants}
    cpu = dict.fromkeys(variants, 0.0)
    with multiprocessing.Pool(args.workers) as pool:
        for name, deal, diff, seconds in pool.imap_unordered(play_hand, jobs):
            per_deal[name][deal] = per_deal[name].get(deal, 0.0) + diff / rotations
            cpu[name] += seconds
    first = next(iter(variants))
    unit = "games won per deal" if args.endgame else "points per deal"
    per = "game" if args.endgame else "hand"
    for name in variants:
        values = [per_deal[name][d] for d in deals]
        line = (
            f"{name}: {statistics.mean(values):+.3f} {unit} "
            f"(se {statistics.stdev(values) / len(values) ** 0.5:.3f}), "
            f"CPU {cpu[name] / len(values) / rotations:.2f} s per {per}"
        )
        if name != first:
            paired = [per_deal[name][d] - per_deal[first][d] for d in deals]
            se = statistics.stdev(paired) / len(paired) ** 0.5
            line += f"; against {first}: {statistics.mean(paired):+.3f} (se {se:.3f})"
        print(line, flush=True)


if __name__ == "__main__":
    main()
