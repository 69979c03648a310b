"""Hard's own nils alone, the same nils played with the nil bidder's cards chosen each way.

    python -m bench.own_nil --range 0 3000 [--variants search,rule,normal] [--workers 2] \
        [--out nils.jsonl]

Whole individual games to 500: every seat bids by Hard (`decide_strong`, its bid search and
its nil bar), a hand without a nil is played by Normal (quick: only the scores and bags
matter there). A hand where some seat bid nil is played once per variant from the same
start, with the same seeds for every decision of the other seats (all Hard); only the nil
bidder's cards, while its nil stands, differ:

- `search`: Hard's card search (`card_search.search`, as Hard played its nil alone before);
- `rule`: `normal_individual.own_nil_card` (what Hard plays now, `strong.OWN_NIL_RULE_ALONE`);
- `normal`: Normal's card (`decide("basic")`).

The game goes on from the first variant's hand. Prints per variant the nils made with a 95%
interval, and per pair of variants the nils only one of them made (paired: the same deals).
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import math
import multiprocessing
import random
from typing import Any

from spades.bots import decide
from spades.bots.card_search import search
from spades.bots.normal_individual import own_nil_card
from spades.bots.simulate import wilson
from spades.bots.state import from_view
from spades.bots.strong import DEFAULT_ITERATIONS, decide_strong
from spades.engine import Game, Rules
from spades.engine.cards import card_text

VARIANTS = ("search", "rule", "normal")


def nil_card(
    variant: str, view: dict[str, Any], seed: int, iterations: int = DEFAULT_ITERATIONS
) -> dict[str, Any]:
    """The nil bidder's card by `variant` (since 2026-12-07 Normal alone plays its own nil
    by the rule too, so "normal" and "rule" agree)."""
    if variant == "normal":
        return decide("basic", view, seed=seed)
    st = from_view(view)
    seat = int(view["seat"])
    if variant == "rule":
        card = own_nil_card(st, seat)
    elif variant == "search":
        card = search(st, seat, view, random.Random(seed), iterations, math.inf)
    else:
        raise ValueError(f"unknown variant {variant!r}")
    return {"type": "play", "card": card_text(card)}


def play_hand(
    game: Game,
    nil_seats: list[int],
    variant: str,
    base: int,
    iterations: int = DEFAULT_ITERATIONS,
) -> list[int]:
    """Play the hand out (Hard everywhere, the standing nils by `variant`): tricks per seat.
    `iterations`: the searches' rollouts (the tests play with fewer)."""
    hands_done = len(game.history)
    step = 0
    while len(game.history) == hands_done and game.phase != "over":
        seat = game.to_act
        assert seat is not None
        step += 1
        view = game.view(seat)
        if seat in nil_seats and view["tricks_won"][seat] == 0 and len(view["legal"]) > 1:
            action = nil_card(variant, view, base + step, iterations)
        else:
            action = decide_strong(view, seed=base + step, iterations=iterations)
        game.apply(seat, action)
    return list(game.history[-1]["tricks"])


def run_game(job: tuple[int, tuple[str, ...], int]) -> list[dict[str, Any]]:
    """One game (at most `hands` hands): a row per nil, whether each variant made it."""
    game_no, variants, hands = job
    rules = Rules.from_dict({"mode": "individual", "target": 500})
    game = Game.new(rules, seed=f"own-nil:{game_no}", dealer=game_no % 4)
    rows: list[dict[str, Any]] = []
    step = 0
    while game.phase != "over" and game.hand_number <= hands:
        while game.phase == "bidding":
            seat = game.to_act
            assert seat is not None
            step += 1
            game.apply(seat, decide_strong(game.view(seat), seed=game_no * 100_000 + step))
        start = game.view(None)
        nil_seats = [s for s, b in enumerate(start["bids"]) if b == "nil"]
        if not nil_seats:
            hands_done = len(game.history)
            while len(game.history) == hands_done and game.phase != "over":
                seat = game.to_act
                assert seat is not None
                step += 1
                game.apply(seat, decide("basic", game.view(seat), seed=game_no * 100_000 + step))
            continue
        snapshot = copy.deepcopy(game)
        base = game_no * 1_000_000 + len(game.history) * 1000
        made: dict[str, list[bool]] = {}
        for i, variant in enumerate(variants):
            played = game if i == 0 else copy.deepcopy(snapshot)
            tricks = play_hand(played, nil_seats, variant, base)
            made[variant] = [tricks[s] == 0 for s in nil_seats]
        for j, s in enumerate(nil_seats):
            rows.append(
                {
                    "game": game_no,
                    "hand": len(game.history),
                    "seat": s,
                    "scores": start["scores"],
                    "made": {v: m[j] for v, m in made.items()},
                }
            )
    return rows


def report(rows: list[dict[str, Any]], variants: tuple[str, ...]) -> list[str]:
    n = len(rows)
    lines = [f"{n} nils"]
    for v in variants:
        k = sum(r["made"][v] for r in rows)
        lo, hi = wilson(k, n)
        share = 100 * k / max(n, 1)
        lines.append(f"{v}: {k} of {n} = {share:.1f}% (CI {100 * lo:.1f}-{100 * hi:.1f})")
    for a, b in itertools.combinations(variants, 2):
        only_a = sum(r["made"][a] and not r["made"][b] for r in rows)
        only_b = sum(r["made"][b] and not r["made"][a] for r in rows)
        lines.append(f"{a} vs {b}: made only by {a} {only_a}, only by {b} {only_b}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--range", type=int, nargs=2, default=[0, 3000], metavar=("FROM", "TO"))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", help="append a JSON line per nil")
    args = ap.parse_args()
    variants = tuple(args.variants.split(","))
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v!r}; choose from {', '.join(VARIANTS)}")
    rows: list[dict[str, Any]] = []
    out = open(args.out, "a") if args.out else None  # noqa: SIM115 (closed below)
    try:
        with multiprocessing.Pool(args.workers) as pool:
            jobs = [(g, variants, 60) for g in range(*args.range)]
            for game_rows in pool.imap_unordered(run_game, jobs):
                rows.extend(game_rows)
                if out is not None:
                    for row in game_rows:
                        out.write(json.dumps(row) + "\n")
                    out.flush()
    finally:
        if out is not None:
            out.close()
    print("\n".join(report(rows, variants)))


if __name__ == "__main__":
    main()
