"""Does a rollout estimate of a nil tell made from failed nils better than the fitted odds?

    python -m bench.nil_screen collect --range 0 1200 --out nils.jsonl [--workers 2] \
        [--mode partnership|individual] [--games]
    python -m bench.nil_screen score nils.jsonl [--samples 200] [--careless 0|1]

`collect` deals hands from 0-0 as `bench.nil_odds --against strong --nil-side strong` does
(real `Game`s, all four seats bid as basic does) and plays every deal where some seat bids
nil with Hard (`strong`) on all four seats: the nil side plays its nil, the opponents hunt
it (`--mode individual`: the same alone, every other seat an opponent). Each nil is written
as a JSON line: the deal, the nil bidder's view when it bid, the fitted odds
(`bidding.nil_odds`, without the partner's bid) and whether it was made.

With `--games`, `--range` counts whole games instead (`collect_game`): Hard's own nils at the
scores and bags games reach.

`score` computes `nil_search.nil_chance` from each recorded bidding view and prints, for
the fitted odds, the rollout estimate and a logistic blend of the two (fitted on the even
deals, judged on the odd ones): the AUC (how often a made nil is rated above a failed one)
and the log loss (of the odds recalibrated on the even deals, judged on the odd ones), with
the CPU per estimate.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import random
import statistics
import time
from typing import Any

from spades.bots.bidding import nil_odds
from spades.bots.nil_search import nil_chance
from spades.bots.state import from_view
from spades.bots.strong import DEFAULT_ITERATIONS
from spades.engine.cards import mask_of, parse_card

from .nil_odds import act, fit_logistic


def collect_deal(job: tuple[int, str]) -> list[dict[str, Any]]:
    from spades.bots import decide
    from spades.engine import Game, Rules

    deal_no, mode = job
    rules = Rules.from_dict({"mode": mode, "target": 500})

    def fresh() -> Game:
        return Game.new(rules, seed=f"nil-against:{deal_no}", dealer=deal_no % 4)

    game = fresh()
    views: dict[int, dict[str, Any]] = {}
    while game.phase == "bidding":
        seat = game.to_act
        assert seat is not None
        views[seat] = game.view(seat)
        game.apply(seat, decide("basic", views[seat], seed=deal_no * 10 + seat))
    bids = game.view(None)["bids"]
    if "nil" not in bids:
        return []
    # Partnership: the first nil only (as the figures in docs/bots.md were taken); alone,
    # every nil (two nils at one table are common there and each is hunted by the rest).
    nil_seats = [s for s, b in enumerate(bids) if b == "nil"]
    if mode == "partnership":
        nil_seats = nil_seats[:1]
    game, step = fresh(), 0
    while not game.history:
        seat = game.to_act
        assert seat is not None
        step += 1
        who = "basic" if game.phase == "bidding" else "strong"
        game.apply(seat, act(who, game.view(seat), deal_no * 1000 + step, DEFAULT_ITERATIONS))
    tricks = game.history[0]["tricks"]
    return [_row(deal_no, views[s], tricks[s] == 0) for s in nil_seats]


def _row(deal: int, view: dict[str, Any], made: bool) -> dict[str, Any]:
    """One nil as a JSON line: its bidding view, the fitted odds of its hand and the outcome."""
    hand = mask_of(parse_card(c) for c in view["hand"])
    partnership = view["mode"] == "partnership"
    odds = nil_odds(hand, partnership)
    return {"deal": deal, "seat": int(view["seat"]), "odds": odds, "made": made, "view": view}


def collect_game(job: tuple[int, str]) -> list[dict[str, Any]]:
    """Hard's own nils in whole games: every seat bids by Hard's nil rule (`bidding.choose_bid`,
    the bid the bid search keeps when it is nil; numbers by the same rule, a cheap stand-in for
    the search's), a hand with a nil is played by Hard on all four seats, any other by basic.
    So the nils come at the scores and bags games reach, not only at 0-0."""
    from spades.bots.bidding import choose_bid
    from spades.engine import Game, Rules

    game_no, mode = job
    rules = Rules.from_dict({"mode": mode, "target": 500})
    game = Game.new(rules, seed=f"nil-games:{game_no}", dealer=game_no % 4)
    rows: list[dict[str, Any]] = []
    step = 0
    while game.phase != "over" and game.hand_number <= 60:
        views: dict[int, dict[str, Any]] = {}
        while game.phase == "bidding":
            seat = game.to_act
            assert seat is not None
            views[seat] = game.view(seat)
            game.apply(seat, choose_bid(views[seat]))
        bids = game.view(None)["bids"]
        nil_seats = [s for s, b in enumerate(bids) if b == "nil"]
        who = "strong" if nil_seats else "basic"
        hands_done = len(game.history)
        while len(game.history) == hands_done and game.phase != "over":
            seat = game.to_act
            assert seat is not None
            step += 1
            game.apply(
                seat, act(who, game.view(seat), game_no * 100_000 + step, DEFAULT_ITERATIONS)
            )
        tricks = game.history[-1]["tricks"]
        deal = game_no * 100 + len(game.history)
        rows.extend(_row(deal, views[s], tricks[s] == 0) for s in nil_seats)
    return rows


def collect(args: argparse.Namespace) -> None:
    with open(args.out, "a") as out, multiprocessing.Pool(args.workers) as pool:
        jobs = [(deal, args.mode) for deal in range(*args.range)]
        for rows in pool.imap_unordered(collect_game if args.games else collect_deal, jobs):
            for row in rows:
                out.write(json.dumps(row) + "\n")
                out.flush()


def auc(scores: list[float], made: list[bool]) -> float:
    """The chance a made nil scores above a failed one (ties count half)."""
    pos = [s for s, m in zip(scores, made, strict=True) if m]
    neg = [s for s, m in zip(scores, made, strict=True) if not m]
    if not pos or not neg:
        return math.nan
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def _logit(p: float) -> float:
    p = min(max(p, 0.005), 0.995)
    return math.log(p / (1 - p))


def held_out(feats: list[list[float]], made: list[bool], train: list[bool]) -> tuple[float, float]:
    """(AUC, log loss) on the held-out rows of a logistic fit on the training rows."""
    xs = [[1.0, *f] for f, t in zip(feats, train, strict=True) if t]
    ys = [1.0 if m else 0.0 for m, t in zip(made, train, strict=True) if t]
    w = fit_logistic(xs, ys)
    ps, ms = [], []
    for f, m, t in zip(feats, made, train, strict=True):
        if not t:
            z = sum(a * b for a, b in zip(w, [1.0, *f], strict=True))
            ps.append(1 / (1 + math.exp(-max(-30.0, min(30.0, z)))))
            ms.append(m)
    loss = -statistics.fmean(math.log(p if m else 1 - p) for p, m in zip(ps, ms, strict=True))
    return auc(ps, ms), loss


def score(args: argparse.Namespace) -> None:
    with open(args.file) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    made = [bool(r["made"]) for r in rows]
    odds = [float(r["odds"]) for r in rows]
    est = []
    cpu = []
    for r in rows:
        view = r["view"]
        st = from_view(view)
        rng = random.Random(r["deal"])
        start = time.thread_time()
        est.append(nil_chance(view, st, rng, args.samples, bool(args.careless)))
        cpu.append(1000 * (time.thread_time() - start))
    print(
        f"{len(rows)} nils, made {100 * sum(made) / len(rows):.1f}%; rollout estimate "
        f"{args.samples} deals, careless {args.careless}: mean {statistics.fmean(est):.3f}, "
        f"CPU ms per estimate p50 {statistics.median(cpu):.1f} max {max(cpu):.1f}"
    )
    print(f"all rows, AUC: fitted odds {auc(odds, made):.3f}, rollouts {auc(est, made):.3f}")
    for name, pick in (("even", 0), ("odd", 1)):
        train = [r["deal"] % 2 != pick for r in rows]
        a1, l1 = held_out([[_logit(p)] for p in odds], made, train)
        a2, l2 = held_out([[_logit(p)] for p in est], made, train)
        both = [[_logit(p), _logit(q)] for p, q in zip(odds, est, strict=True)]
        a3, l3 = held_out(both, made, train)
        print(
            f"  held out the {name} deals: AUC / log loss  odds {a1:.3f} / {l1:.4f}   "
            f"rollouts {a2:.3f} / {l2:.4f}   both {a3:.3f} / {l3:.4f}"
        )
    edges = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)
    for lo, hi in itertools.pairwise(edges):
        part = [m for e, m in zip(est, made, strict=True) if lo <= e < hi]
        if part:
            share = 100 * sum(part) / len(part)
            print(f"  estimate {lo:.1f}-{min(hi, 1.0):.1f}: {len(part)} nils, made {share:.1f}%")
    if args.dump:
        with open(args.dump, "w") as out:
            for r, e in zip(rows, est, strict=True):
                out.write(json.dumps([r["deal"], r["odds"], e, r["made"]]) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--range", type=int, nargs=2, default=[0, 1200], metavar=("FROM", "TO"))
    c.add_argument("--out", required=True)
    c.add_argument("--workers", type=int, default=2)
    c.add_argument("--mode", choices=("partnership", "individual"), default="partnership")
    c.add_argument("--games", action="store_true", help="--range counts games (collect_game)")
    s = sub.add_parser("score")
    s.add_argument("file")
    s.add_argument("--samples", type=int, default=200)
    s.add_argument("--careless", type=int, default=1)
    s.add_argument("--dump", help="write [deal, odds, estimate, made] per nil")
    args = ap.parse_args()
    if args.cmd == "collect":
        collect(args)
    else:
        score(args)


if __name__ == "__main__":
    main()
