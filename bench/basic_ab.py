"""Whole games between two settings of the `basic` bot, duplicate (not part of the tests).

    python -m bench.basic_ab --b '{"SET_MARGIN": {"partnership": 1, "individual": 1}}' \
        --games 0 3000 [--mode partnership|individual] [--workers 2]

`--b frozen` makes B the frozen copy of today's `basic` (bench/frozen_basic.py): that is how
Normal is measured against it (issue 61). A setting names module constants of
`spades.bots.basic` or `spades.bots.bidding` and their values (JSON); `--a` defaults to the
constants as they are. Side A takes seats 0+2 (individual: seat 0, against
three B), then the game is played again from the same seed with the seats rotated
(partnership: twice, individual: four times), so both settings hold the same cards. Each
setting is in force only while its seats decide. Printed: A's share of the games won (an
equal share is 1/2 or 1/4) and its final score minus the other side's (individual: the
others' average) per hand, mean and standard error over the seeds. Games to 500 count the
bags as the game does, which one hand from 0-0 cannot (a bag costs only once ten of them
are reached); that is why settings about bags are judged here. `--preset NAME` plays a
named set of house rules (`spades.engine.RULE_PRESETS`, e.g. Jokers, Deuce-Deuce).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
from typing import Any

from spades.bots import basic, bidding, normal, normal_individual, normal_nil
from spades.engine import RULE_PRESETS, Game, Rules

from . import frozen_basic

FROZEN = "frozen"  # `--b frozen` / `--a frozen`: the frozen copy of today's basic


def _owner(name: str) -> Any:
    """The module whose code reads the constant: bidding's own, else play's (None: neither)."""
    return next(
        (m for m in (bidding, basic, normal, normal_nil, normal_individual) if hasattr(m, name)),
        None,
    )


def _decide(setting: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    if FROZEN in setting:
        return frozen_basic.decide(view)
    saved = {name: getattr(_owner(name), name) for name in setting}
    try:
        for name, value in setting.items():
            setattr(_owner(name), name, value)
        return normal.decide(view)
    finally:
        for name, value in saved.items():
            setattr(_owner(name), name, value)


Job = tuple[int, int, str, dict[str, Any], dict[str, Any], int, str]


Result = tuple[int, bool, float, int, int]


def play_game(job: Job) -> Result:
    """(seed index, whether A won, A's score difference per hand, A's nils bid and made)."""
    index, rotation, mode, a, b, target, preset = job
    rules = Rules.from_dict({**RULE_PRESETS[preset], "mode": mode, "target": target})
    game = Game.new(rules, seed=f"basic-ab:{index}", dealer=index % 4)
    partnership = mode == "partnership"
    order = [a, b] * 2 if partnership else [a, b, b, b]
    settings = [order[(seat + rotation) % 4] for seat in range(4)]
    while game.phase != "over":
        seat = game.to_act
        assert seat is not None
        game.apply(seat, _decide(settings[seat], game.view(seat)))
    side = (0 - rotation) % (2 if partnership else 4)
    scores = game.scores
    others = scores[1 - side] if partnership else (sum(scores) - scores[side]) / 3
    a_seats = [seat for seat in range(4) if settings[seat] is a]
    nils = made = 0
    for hand in game.history:
        for seat in a_seats:
            if hand["bids"][seat] in ("nil", "blind nil"):
                nils += 1
                made += hand["nil_made"][seat] is True
    diff = (scores[side] - others) / len(game.history)
    return index, game.winner == side, diff, nils, made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", default="{}", help="JSON: constant -> value (default: as is)")
    parser.add_argument("--b", required=True, help='JSON: constant -> value, or "frozen"')
    parser.add_argument("--games", type=int, nargs=2, default=[0, 1000], metavar=("FROM", "TO"))
    parser.add_argument("--mode", choices=("partnership", "individual"), default="partnership")
    parser.add_argument("--target", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--preset", choices=list(RULE_PRESETS), default="Classic")
    args = parser.parse_args()
    a, b = ({FROZEN: True} if text == FROZEN else json.loads(text) for text in (args.a, args.b))
    for name in (*a, *b):
        if name == FROZEN:
            continue
        if _owner(name) is None:
            parser.error(f"spades.bots.basic and spades.bots.bidding have no constant {name!r}")
    rotations = 2 if args.mode == "partnership" else 4
    jobs = [
        (i, r, args.mode, a, b, args.target, args.preset)
        for i in range(*args.games)
        for r in range(rotations)
    ]
    with multiprocessing.Pool(args.workers) as pool:
        results = pool.map(play_game, jobs, chunksize=10)
    per_seed: dict[int, list[float]] = {}
    for index, _, diff, _, _ in results:
        per_seed.setdefault(index, []).append(diff)
    means = [statistics.mean(v) for v in per_seed.values()]
    se = statistics.stdev(means) / len(means) ** 0.5 if len(means) > 1 else 0.0
    print(
        json.dumps(
            {
                "mode": args.mode,
                "preset": args.preset,
                "games": len(results),
                "a_win_share": round(sum(r[1] for r in results) / len(results), 4),
                "equal_share": 1 / rotations,
                "a_points_per_hand": round(statistics.mean(means), 2),
                "se": round(se, 2),
                "ci95": [round(statistics.mean(means) + k * 1.96 * se, 2) for k in (-1, 1)],
                "a_nils": sum(r[3] for r in results),
                "a_nils_made": sum(r[4] for r in results),
            }
        )
    )


if __name__ == "__main__":
    main()
