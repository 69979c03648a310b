"""How well `basic` bids and ducks against a given opponent: made contracts, bags, and the
trade-off between them (issue 18; not part of the tests).

    python -m bench.bid_accuracy --opponent strong --deals 0 1000 [--iterations 100]

Each deal is one partnership hand from 0-0, played twice: `basic` on seats 1+3 against the
opponent on 0+2, then the other way round (the same cards, so the luck cancels). For every
basic side whose partners both bid a number (no nil), it prints:

- the contracts made and the bags per side per hand, and the mean and spread of the side's
  tricks minus its bid;
- what the same hands would give if the side had bid one trick more or fewer (an
  optimistic reading: it assumes the tricks do not change with the bid);
- what a bidder fitted to these very hands would give (least squares of each seat's tricks
  on hand features, fitted on two thirds of the sides, judged on the rest), bidding its
  prediction less a margin `k`: the best any hand-only count of the same kind could do;
- where the bags came from: tricks the side won after its contract was made, by a lead,
  by a card that could have lost the trick, or by one with no losing card left.

    python -m bench.bid_accuracy --against-estimate --deals 0 3000

plays basic with its partnership count (`bidding.count_tricks`) against basic bidding on the
old estimate alone (`bidding.estimate_tricks`), each deal with the sides swapped, and prints
the points per hand of the count's side minus the other's, with its standard error (as
scored, and with each bag taken counted at -10, what ten of them cost in the end).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
from collections import Counter
from typing import Any

from bench.bot_ab import seat_action
from bench.nil_odds import solve_linear
from spades.bots import bidding, decide
from spades.bots.state import from_view, winning_index
from spades.engine import Game, Rules
from spades.engine.cards import parse_card


def play(job: tuple[int, int, str, int]) -> list[dict[str, Any]]:
    """One hand; per basic side without a nil: bid, tricks, features and bag sources."""
    deal, rotation, opponent, iterations = job
    rules = Rules.from_dict({"mode": "partnership", "target": 500})
    game = Game.new(rules, seed=f"bids:{deal}", dealer=deal % 4)
    levels = [("basic" if (s + rotation) % 2 else opponent) for s in range(4)]
    hands = [sum(1 << parse_card(c) for c in game.view(s)["hand"]) for s in range(4)]
    bags: dict[int, Counter[str]] = {0: Counter(), 1: Counter()}
    trick: list[tuple[int, int, bool, bool, int]] = []  # seat, card, contract made, could lose
    step = 0
    while not game.history:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        step += 1
        action = seat_action(levels[seat], view, deal * 7919 + step, iterations)
        if game.phase == "playing":
            st = from_view(view)
            card = parse_card(action["card"])
            legal = st.legal(seat)

            def wins(c: int, st: Any = st) -> bool:
                return winning_index([*st.trick, c]) == len(st.trick)

            could_lose = any(legal >> c & 1 and not wins(c) for c in range(52))
            trick.append((seat, card, st.need(seat) <= 0, could_lose, len(st.trick)))
        game.apply(seat, action)
        if len(trick) == 4:
            seat, _, made, could_lose, position = trick[winning_index([t[1] for t in trick])]
            if levels[seat] == "basic" and made:
                kind = "lead" if position == 0 else "could lose" if could_lose else "no losing card"
                bags[seat % 2][kind] += 1
            trick = []
    result = game.history[-1]
    out = []
    for side in (0, 1):
        seats = (side, side + 2)
        bids = [result["bids"][s] for s in seats]
        if levels[side] != "basic" or any(isinstance(b, str) for b in bids):
            continue
        out.append(
            {
                "bid": sum(bids),
                "tricks": sum(result["tricks"][s] for s in seats),
                "features": [bidding.bid_features(hands[s]) for s in seats],
                "seat_tricks": [result["tricks"][s] for s in seats],
                "bags": bags[side],
            }
        )
    return out


def head_to_head(job: tuple[int, int]) -> tuple[int, float, float]:
    """One hand: (deal, points of the count's side minus the estimate's, the same with each
    bag at -10). The count plays seats 0+2 in rotation 0 and 1+3 in rotation 1."""
    deal, rotation = job
    counted = bidding.count_tricks
    rules = Rules.from_dict({"mode": "partnership", "target": 500})
    game = Game.new(rules, seed=f"count:{deal}", dealer=deal % 4)
    step = 0
    try:
        while not game.history:
            seat = game.to_act
            assert seat is not None
            step += 1
            bidding.count_tricks = counted if (seat + rotation) % 2 == 0 else _estimate
            game.apply(seat, decide("basic", game.view(seat), seed=deal * 7919 + step))
    finally:
        bidding.count_tricks = counted
    result = game.history[-1]
    side = rotation  # the count's side: seats 0+2 when rotation is 0
    points = [result["points"][s] for s in (side, 1 - side)]
    costed = [points[i] - 10 * result["bags_added"][s] for i, s in enumerate((side, 1 - side))]
    return deal, float(points[0] - points[1]), float(costed[0] - costed[1])


def _estimate(hand: int, partnership: bool) -> float:
    return bidding.estimate_tricks(hand)


def _bid_on_estimate() -> None:
    """A worker's initializer: basic bids on the old estimate alone (before/after runs)."""
    bidding.count_tricks = _estimate


def against_estimate(deals: range, workers: int) -> None:
    raw: dict[int, float] = {}
    costed: dict[int, float] = {}
    jobs = [(deal, rotation) for deal in deals for rotation in range(2)]
    with multiprocessing.Pool(workers) as pool:
        for deal, points, with_bags in pool.imap_unordered(head_to_head, jobs, chunksize=50):
            raw[deal] = raw.get(deal, 0.0) + points / 2
            costed[deal] = costed.get(deal, 0.0) + with_bags / 2
    for label, per_deal in (("as scored", raw), ("a bag at -10", costed)):
        values = list(per_deal.values())
        se = statistics.stdev(values) / len(values) ** 0.5
        print(
            f"count minus estimate, {label}: {statistics.mean(values):+.2f} points per hand "
            f"(se {se:.2f}, {len(values)} deals, each played twice)"
        )


def outcome(diffs: list[float]) -> str:
    made = sum(d >= 0 for d in diffs) / len(diffs)
    bags = sum(max(d, 0.0) for d in diffs) / len(diffs)
    return f"made {100 * made:.1f}%, bags {bags:.2f}"


def fit_weights(sides: list[dict[str, Any]]) -> list[float]:
    """Least squares of each seat's tricks on its hand's `bid_features`."""
    k = len(sides[0]["features"][0])
    gram = [[0.0] * k for _ in range(k)]
    rhs = [0.0] * k
    for side in sides:
        for x, y in zip(side["features"], side["seat_tricks"], strict=True):
            for i in range(k):
                rhs[i] += x[i] * y
                for j in range(k):
                    gram[i][j] += x[i] * x[j]
    for i in range(k):
        gram[i][i] += 1e-6  # a constant column and counts that may never vary
    return solve_linear(gram, rhs)


def fitted(sides: list[dict[str, Any]], seed: int) -> list[str]:
    """The held-out made share and bags of a least-squares trick count, per margin."""
    order = list(range(len(sides)))
    random.Random(seed).shuffle(order)
    cut = len(order) * 2 // 3
    w = fit_weights([sides[i] for i in order[:cut]])
    test = [sides[i] for i in order[cut:]]
    predicted = [
        sum(sum(a * b for a, b in zip(w, x, strict=True)) for x in side["features"])
        for side in test
    ]
    actual = [side["tricks"] for side in test]
    spread = statistics.pstdev([a - p for a, p in zip(actual, predicted, strict=True)])
    lines = [f"fitted count: tricks minus prediction spread {spread:.2f} (held out)"]
    for margin in (0.6, 0.8, 1.0, 1.2):
        diffs = [a - int(p - margin + 0.5) for a, p in zip(actual, predicted, strict=True)]
        lines.append(f"  bid prediction - {margin}: {outcome(diffs)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--opponent", default="strong", help="basic, easy or strong; several: basic,strong"
    )
    parser.add_argument("--deals", type=int, nargs=2, default=[0, 1000], metavar=("FROM", "TO"))
    parser.add_argument("--iterations", type=int, default=100, help="strong's rollouts")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--estimate", action="store_true", help="basic bids on the old estimate (before)"
    )
    parser.add_argument(
        "--against-estimate", action="store_true", help="basic's count against the estimate"
    )
    parser.add_argument(
        "--fit", action="store_true", help="print `bidding.BID_WEIGHTS` fitted on all the sides"
    )
    args = parser.parse_args()
    if args.against_estimate:
        against_estimate(range(*args.deals), args.workers)
        return
    opponents = args.opponent.split(",")
    jobs = [
        (deal, rotation, opponent, args.iterations)
        for opponent in opponents
        for deal in range(*args.deals)
        for rotation in range(2)
    ]
    sides: list[dict[str, Any]] = []
    hands = 0
    initializer = _bid_on_estimate if args.estimate else None
    with multiprocessing.Pool(args.workers, initializer=initializer) as pool:
        for out in pool.imap_unordered(play, jobs, chunksize=8):
            sides.extend(out)
            hands += 1
    diffs = [float(s["tricks"] - s["bid"]) for s in sides]
    count = "the old estimate" if args.estimate else "its count"
    print(
        f"basic ({count}) against {args.opponent}: {hands} hands, "
        f"{len(sides)} basic sides without a nil"
    )
    print(
        f"as bid: {outcome(diffs)}; tricks minus bid: mean {statistics.mean(diffs):+.2f}, "
        f"spread {statistics.pstdev(diffs):.2f}"
    )
    for shift in (-1, 1):
        label = "more" if shift > 0 else "fewer"
        print(f"one trick {label}: {outcome([d - shift for d in diffs])}")
    for line in fitted(sides, args.seed):
        print(line)
    sources: Counter[str] = Counter()
    for s in sides:
        sources.update(s["bags"])
    print(
        "bags per side per hand by how they were won: "
        + ", ".join(f"{kind} {n / len(sides):.2f}" for kind, n in sorted(sources.items()))
    )
    if args.fit:
        print("BID_WEIGHTS =", tuple(round(w, 4) for w in fit_weights(sides)))


if __name__ == "__main__":
    main()
