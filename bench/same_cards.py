"""The same cards in two players' hands: `basic` against another player, hand by hand (not
part of the tests).

    python -m bench.same_cards --opponent rival --mode individual --deals 0 5000 [--workers 2]

Each deal is one hand from 0-0, played once per rotation of the seats: `basic` in one seat
against three of the opponent (partnership: basic on one side), so every seat's cards are
held once by basic and, in the other rotations, by the opponent, with the same cards around
them. Printed:

- basic's points per hand minus the others' average (partnership: minus the other side),
  mean and standard error over the hands;
- for every seat's cards, basic's outcome next to the opponent's on the same cards: the bid
  difference, and where both bid the same number, the share of contracts each made. A bid
  that is the same but made less often points at the play, not the bidding; this is how
  basic's old ruffing rule was found (docs/bots.md, "Ruffing low").
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
from collections import Counter
from typing import Any

from bench.bot_ab import seat_action
from spades.engine import Game, Rules

Job = tuple[int, int, str, str]
ROTATIONS = {"partnership": 2, "individual": 4}  # seatings per deal: basic's seat or side


def play(job: Job) -> tuple[int, int, dict[str, Any]]:
    """(deal, rotation, the hand's record) for one rotation of one deal."""
    deal, rotation, mode, opponent = job
    rules = Rules.from_dict({"mode": mode, "target": 500})
    game = Game.new(rules, seed=f"same-cards:{deal}", dealer=deal % 4)
    levels = [opponent] * 4
    for seat in basic_seats(mode, rotation):
        levels[seat] = "basic"
    hand = game.hand_number
    while game.phase != "over" and game.hand_number == hand:
        seat = game.to_act
        assert seat is not None
        game.apply(seat, seat_action(levels[seat], game.view(seat), deal * 4 + seat, 100))
    return deal, rotation, game.history[-1]


def basic_seats(mode: str, rotation: int) -> tuple[int, ...]:
    return (rotation, rotation + 2) if mode == "partnership" else (rotation,)


def report(mode: str, results: list[tuple[int, int, dict[str, Any]]]) -> dict[str, Any]:
    rotations = ROTATIONS[mode]
    by_deal: dict[int, dict[int, dict[str, Any]]] = {}
    diffs: list[float] = []
    for deal, rotation, record in results:
        by_deal.setdefault(deal, {})[rotation] = record
        points = record["points"]
        if mode == "partnership":
            diffs.append(points[rotation] - points[1 - rotation])
        else:
            diffs.append(points[rotation] - (sum(points) - points[rotation]) / 3)
    bid_diff: Counter[int] = Counter()
    same = [0, 0, 0]  # pairs with equal numeric bids, basic made, opponent made
    for rotations_of in by_deal.values():
        for seat in range(4):
            held_by_basic = [r for r in range(rotations) if seat in basic_seats(mode, r)]
            held_by_other = [r for r in range(rotations) if seat not in basic_seats(mode, r)]
            for rb in held_by_basic:
                for ro in held_by_other:
                    b, o = rotations_of[rb], rotations_of[ro]
                    bid_b, bid_o = b["bids"][seat], o["bids"][seat]
                    if not (isinstance(bid_b, int) and isinstance(bid_o, int)):
                        continue  # a nil or blind nil (a word, not a number) on either side
                    bid_diff[bid_b - bid_o] += 1
                    if bid_b == bid_o:
                        same[0] += 1
                        same[1] += b["tricks"][seat] >= bid_b
                        same[2] += o["tricks"][seat] >= bid_o
    n = len(diffs)
    return {
        "mode": mode,
        "hands": n,
        "basic_minus_others_per_hand": round(statistics.mean(diffs), 2),
        "se": round(statistics.stdev(diffs) / n**0.5, 2) if n > 1 else None,
        "same_bid_pairs": same[0],
        "same_bid_made_basic": round(same[1] / same[0], 3) if same[0] else None,
        "same_bid_made_opponent": round(same[2] / same[0], 3) if same[0] else None,
        "bid_minus_opponent_bid": dict(sorted(bid_diff.items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponent", default="rival")
    parser.add_argument("--mode", choices=("individual", "partnership"), default="individual")
    parser.add_argument("--deals", type=int, nargs=2, default=[0, 2000], metavar=("FROM", "TO"))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rotations = ROTATIONS[args.mode]
    jobs = [
        (deal, rotation, args.mode, args.opponent)
        for deal in range(*args.deals)
        for rotation in range(rotations)
    ]
    with multiprocessing.Pool(args.workers) as pool:
        results = pool.map(play, jobs, chunksize=20)
    print(json.dumps(report(args.mode, results)))


if __name__ == "__main__":
    main()
