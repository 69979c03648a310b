"""How often a blind bid of a number (Blind 6+) is made, Normal bidding and playing the rest.

    python -m bench.blind_odds [--deals 1500] [--workers 2] [--seed S]

Deals real `Game`s under Blind 6+ (`blind_bid_deficit` 1, target 500) with seat 0's side 300
behind. Seat 0 bids `blind N` before looking; every other bid and every card is Normal's (the
`basic` level; seat 0's partner looks before bidding, it never bids blind here). Cases:

- `first`: seat 0 bids first of its side, its partner after it, knowing the blind number;
- `second`: the partner bid a number first, then seat 0 bids blind;
- `alone`: individual play;
- `look`, `look-alone`: no blind bid, seat 0 looks and bids as Normal (for comparison: the
  share of its side's contracts made and its points).

Prints per case and number the share of blind contracts made, the partner's average bid and
the side's average points for the hand (doubled as the rule scores them). `bots/blind.py`
takes its `BLIND_BID_ODDS` and `PARTNER_AFTER_BLIND` from these figures.

    python -m bench.blind_odds --games 2000 --start 0,300 [--start 100,400 ...]

Whether bidding blind when `bots/blind.py` says it pays wins more games: whole games to 500
under the Blind 6+ preset from the given scores (South and North first), every seat Normal,
played twice on the same seeds, once as Normal is and once with its blind bids turned off.
Prints South and North's share of the games won each way (95% Wilson interval), the paired
difference and how many blind bids were made.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
from typing import Any

from spades.bots.blind import BLIND_GAIN

CASES = {
    # case: (mode, first dealer, scores, numbers)
    "first": ("partnership", 3, [0, 300], (6, 7)),
    "second": ("partnership", 1, [0, 300], (6,)),
    "alone": ("individual", 3, [0, 300, 300, 300], (6,)),
    # For comparison: seat 0 looks and bids as Normal does (number 0).
    "look": ("partnership", 3, [0, 300], (0,)),
    "look-alone": ("individual", 3, [0, 300, 300, 300], (0,)),
}


def one_hand(job: tuple[str, int, int, str]) -> dict[str, Any]:
    """One deal played out: whether seat 0's blind contract was made, and the side's result."""
    from spades.bots import decide
    from spades.engine import Game, Rules

    case, number, deal, seed = job
    mode, dealer, scores, _ = CASES[case]
    rules = Rules(mode=mode, blind_bid_deficit=1)
    game = Game(rules, seed=f"{seed}:{case}:{deal}", first_dealer=dealer, scores=scores)
    step = 0
    while game.hand_number == 1 and game.phase != "over":
        seat = game.to_act
        assert seat is not None
        step += 1
        if seat == 0 and game.phase == "bidding" and number:
            game.apply(0, {"type": "bid", "bid": f"blind {number}"})
            continue
        if game.phase == "bidding" and game.blind_nil_open(seat):
            game.apply(seat, {"type": "look"})
        game.apply(seat, decide("basic", game.view(seat), seed=deal * 100 + step))
    hand = game.history[0]
    partner_bid = hand["bids"][2] if mode == "partnership" else None
    return {
        "made": bool(hand["contract_made"][0]),  # (False for a side of nils only)
        "partner": partner_bid if isinstance(partner_bid, int) else 0,
        "points": hand["points"][0],
    }


def one_game(job: tuple[tuple[int, int], bool, int, str]) -> tuple[bool, int]:
    """A whole game from `start`: whether South and North won it, and their blind bids."""
    from spades.bots import blind, decide
    from spades.engine import RULE_PRESETS, Game, Rules

    start, blind_on, index, seed = job
    blind.BLIND_GAIN = BLIND_GAIN if blind_on else math.inf
    rules = Rules.from_dict(RULE_PRESETS["Blind 6+"])
    game = Game(rules, seed=f"{seed}:game:{start}:{index}", first_dealer=index % 4, scores=start)
    step = blinds = 0
    while game.phase != "over" and game.hand_number < 200:
        seat = game.to_act
        assert seat is not None
        step += 1
        action = decide("basic", game.view(seat), seed=index * 10_000 + step)
        bid = str(action.get("bid", ""))
        blinds += bid.startswith("blind ") and bid != "blind nil"
        game.apply(seat, action)
    return game.winner == 0, blinds


def games(pool: Any, count: int, starts: list[tuple[int, int]], seed: str) -> None:
    for start in starts:
        won: dict[bool, list[bool]] = {}
        bids = 0
        for blind_on in (True, False):
            jobs = [(start, blind_on, i, seed) for i in range(count)]
            results = pool.map(one_game, jobs, chunksize=10)
            won[blind_on] = [w for w, _ in results]
            bids += sum(b for _, b in results) if blind_on else 0
        diffs = [float(a) - float(b) for a, b in zip(won[True], won[False], strict=True)]
        mean = statistics.fmean(diffs)
        half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
        on, off = (wilson(sum(won[k]), count) for k in (True, False))
        print(
            f"from {start[0]}-{start[1]}: won {on[0]:.3f} ({on[1]:.3f}-{on[2]:.3f}) with blind "
            f"bids, {off[0]:.3f} ({off[1]:.3f}-{off[2]:.3f}) without; paired difference "
            f"{mean:+.3f} ± {half:.3f}; {bids} blind bids in {count} games",
            flush=True,
        )


def wilson(wins: int, n: int) -> tuple[float, float, float]:
    """The share and its 95% Wilson interval."""
    p = wins / n
    z = 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1500, help="deals per case and number")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", default="blind-odds")
    parser.add_argument("--games", type=int, default=0, help="whole games per start and way")
    parser.add_argument(
        "--start", action="append", default=[], help="South-North,West-East scores: 0,300"
    )
    parser.add_argument(
        "--cases", default=",".join(CASES), help="comma-separated, of: " + ", ".join(CASES)
    )
    args = parser.parse_args()
    wanted = [c for c in args.cases.split(",") if c]
    unknown = sorted(set(wanted) - set(CASES))
    if unknown:
        parser.error(f"unknown case(s): {', '.join(unknown)}")
    with multiprocessing.Pool(args.workers) as pool:
        if args.games:
            starts = [tuple(int(v) for v in s.split(",")) for s in args.start or ["0,300"]]
            games(pool, args.games, starts, args.seed)  # type: ignore[arg-type]
            return
        for case in wanted:
            mode, _, _, numbers = CASES[case]
            for number in numbers:
                jobs = [(case, number, d, args.seed) for d in range(args.deals)]
                results = pool.map(one_hand, jobs, chunksize=20)
                made = sum(r["made"] for r in results) / len(results)
                partner = statistics.fmean(r["partner"] for r in results)
                points = statistics.fmean(r["points"] for r in results)
                extra = f"  partner bids {partner:.2f}" if mode == "partnership" else ""
                what = f"blind {number}" if number else "looked"
                print(
                    f"{case:10} {what}: made {made:.3f} of {len(results)}"
                    f"{extra}  side points {points:+.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
