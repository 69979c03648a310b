"""How often a nil (or a blind nil) bid by the basic plan is made, by nil danger and mode.

    python -m bench.nil_odds [--deals N] [--seed S]

Deals random hands; seat 0 bids nil (or blind nil), the others bid with `bidding.bid_number`
in turn, and all four play the hand out with the basic policy (which protects and attacks
nils). Prints the made share per danger bucket; `bidding.nil_odds` is fitted to these figures.

    python -m bench.nil_odds --against strong --deals 0 3000 [--iterations N]

Basic's own nils against other attackers: deals hands from 0-0 (real `Game`s), all four
seats bid as basic does, and every deal where some seat bids nil is played twice, the
nil bidder's opponents basic the first time and the given level the second (the nil side
is basic both times, the bids are the same). Prints the share made against each, by the
odds `bidding.nil_odds` gave the hand.

    python -m bench.nil_odds --against rival --nil-side strong --range 0 3000

The same with another level playing the nil side's cards (the bids stay basic's), and
`rival` (bench/rival.py, an independent player) among the attackers. `strong-rulenil` is
strong whose own standing nil is played by basic's rule instead of by search;
`strong-rulecover` plays its partner's standing nil by basic's rule too (partnership).
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
from typing import Any

from spades.bots.basic import choose_card
from spades.bots.bidding import bid_number, nil_danger, nil_features, nil_odds
from spades.bots.state import NIL, UNKNOWN, PlayState
from spades.bots.strong import DEFAULT_ITERATIONS

BUCKETS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.3, 1.6, 2.0, 2.5, 3.0, 4.0, 99.0)


def deal(rng: random.Random) -> list[int]:
    cards = list(range(52))
    rng.shuffle(cards)
    hands = [0, 0, 0, 0]
    for i, c in enumerate(cards):
        hands[i % 4] |= 1 << c
    return hands


def play_nil(hands: list[int], partnership: bool, blind: bool, nil_seat: int = 0) -> bool:
    st = PlayState()
    st.partnership = partnership
    st.hands = hands[:]
    bids = [UNKNOWN] * 4
    dealer = 3  # seat 0 bids first
    for k in range(4):
        s = (dealer + 1 + k) & 3
        bids[s] = NIL if s == nil_seat else bid_number(hands[s], s, bids, partnership, 0, True)
    st.bids = bids
    st.blind = [s == nil_seat and blind for s in range(4)]
    st.leader = 0
    st.prepare()
    while st.tricks_done < 13:
        st.play(choose_card(st, st.to_act))
        if st.tricks_won[nil_seat]:
            return False
    return True


def fit_logistic(xs: list[list[float]], ys: list[float], rounds: int = 12) -> list[float]:
    """Logistic regression by Newton steps (ridge 1.0), in plain Python."""
    k = len(xs[0])
    w = [0.0] * k
    for _ in range(rounds):
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]
        for x, t in zip(xs, ys, strict=True):
            z = max(-30.0, min(30.0, sum(a * b for a, b in zip(w, x, strict=True))))
            p = 1 / (1 + math.exp(-z))
            r = p * (1 - p)
            for i in range(k):
                grad[i] += (t - p) * x[i]
                xi = x[i] * r
                row = hess[i]
                for j in range(i, k):
                    row[j] += xi * x[j]
        for i in range(k):
            grad[i] -= w[i]
            hess[i][i] += 1.0
            for j in range(i):
                hess[i][j] = hess[j][i]
        w = [a + step for a, step in zip(w, solve_linear(hess, grad), strict=True)]
    return w


def solve_linear(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a·x = b, by Gauss-Jordan elimination with partial pivoting (plain Python)."""
    k = len(b)
    aug = [[*a[i], b[i]] for i in range(k)]
    for c in range(k):
        piv = max(range(c, k), key=lambda r: abs(aug[r][c]))
        aug[c], aug[piv] = aug[piv], aug[c]
        for r in range(k):
            if r != c:
                m = aug[r][c] / aug[c][c]
                for j in range(c, k + 1):
                    aug[r][j] -= m * aug[c][j]
    return [aug[i][k] / aug[i][i] for i in range(k)]


def fit(n: int, rng: random.Random) -> None:
    """Fit `bidding.NIL_WEIGHTS` on n hands per mode; print held-out calibration."""
    for partnership in (True, False):
        xs: list[list[float]] = []
        ys: list[float] = []
        while len(xs) < n:
            hands = deal(rng)
            if hands[0] >> 51 & 1 or nil_danger(hands[0]) > 4.0:
                continue
            xs.append(nil_features(hands[0]))
            ys.append(1.0 if play_nil(hands, partnership, False) else 0.0)
        split = n * 4 // 5
        w = fit_logistic(xs[:split], ys[:split])
        print("partnership" if partnership else "individual", [round(v, 4) for v in w])
        buckets: dict[int, list[float]] = {}
        for x, t in zip(xs[split:], ys[split:], strict=True):
            p = 1 / (1 + math.exp(-sum(a * b for a, b in zip(w, x, strict=True))))
            b = buckets.setdefault(min(9, int(p * 10)), [0.0, 0.0, 0.0])
            b[0] += 1
            b[1] += t
            b[2] += p
        for _, (cnt, made, ps) in sorted(buckets.items()):
            print(f"  predicted {ps / cnt:.2f}: {int(cnt)} hands, made {made / cnt:.2f}")


def act(level: str, view: dict[str, Any], seed: int, iterations: int) -> dict[str, Any]:
    """A level's move; `rival` is the independent player, `strong-rulenil` strong with its
    own standing nil played by basic's rule, `strong-rulecover` with its side's standing
    nil played by basic's rule from both seats."""
    from bench import rival
    from bench.bot_ab import seat_action
    from spades.bots import decide

    if level == "rival":
        return rival.decide(view, seed=seed)
    if level in ("strong-rulenil", "strong-rulecover"):
        seat = int(view["seat"])
        bids, won = view["bids"] or [None] * 4, view["tricks_won"]
        standing = [s for s in range(4) if bids[s] == "nil" and won[s] == 0]
        ours = [seat, (seat + 2) % 4] if level == "strong-rulecover" else [seat]
        if view["phase"] == "playing" and any(s in standing for s in ours):
            return decide("basic", view, seed=seed)
        level = "strong"
    return seat_action(level, view, seed, iterations)


def nil_against(job: tuple[int, str, str, int, str]) -> list[tuple[str, float, bool]]:
    """One deal: (attackers, predicted odds, made) per play of a basic nil, or nothing."""
    from spades.bots import decide
    from spades.engine import Game, Rules
    from spades.engine.cards import parse_card

    deal_no, mode, level, iterations, nil_side = job
    rules = Rules.from_dict({"mode": mode, "target": 500})

    def fresh() -> Game:
        return Game.new(rules, seed=f"nil-against:{deal_no}", dealer=deal_no % 4)

    game = fresh()
    while game.phase == "bidding":
        seat = game.to_act
        assert seat is not None
        game.apply(seat, decide("basic", game.view(seat), seed=deal_no * 10 + seat))
    bids = game.view(None)["bids"]
    if "nil" not in bids:
        return []
    nil_seat = bids.index("nil")
    partnership = mode == "partnership"
    hand = sum(1 << parse_card(c) for c in fresh().view(nil_seat)["hand"])
    odds = nil_odds(hand, partnership)
    out = []
    for attackers in ("basic", level):
        game, step = fresh(), 0
        while not game.history:
            seat = game.to_act
            assert seat is not None
            step += 1
            ours = seat == nil_seat or (partnership and (seat - nil_seat) % 2 == 0)
            who = "basic" if game.phase == "bidding" else (nil_side if ours else attackers)
            game.apply(seat, act(who, game.view(seat), deal_no * 1000 + step, iterations))
        out.append((attackers, odds, game.history[0]["tricks"][nil_seat] == 0))
    return out


def report_against(args: argparse.Namespace) -> None:
    import multiprocessing

    jobs = [
        (d, args.mode, args.against, args.iterations, args.nil_side) for d in range(*args.range)
    ]
    rows: list[tuple[str, float, bool]] = []
    with multiprocessing.Pool(args.workers) as pool:
        for out in pool.imap_unordered(nil_against, jobs):
            rows.extend(out)
    edges = (0.0, 0.6, 0.7, 0.8, 0.9, 1.01)
    for attackers in ("basic", args.against):
        mine = [(p, made) for who, p, made in rows if who == attackers]
        if not mine:
            continue
        share = 100 * sum(made for _, made in mine) / len(mine)
        print(
            f"{args.mode}, nil side {args.nil_side}, attackers {attackers}: "
            f"{len(mine)} nils, made {share:.1f}%"
        )
        for lo, hi in itertools.pairwise(edges):
            part = [(p, made) for p, made in mine if lo <= p < hi]
            if part:
                made = 100 * sum(m for _, m in part) / len(part)
                predicted = 100 * sum(p for p, _ in part) / len(part)
                print(
                    f"  odds {lo:.1f}-{min(hi, 1.0):.1f}: {len(part):>5} nils, made {made:.1f}% "
                    f"(predicted {predicted:.1f}%)"
                )
        if attackers == "basic":
            print()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fit", action="store_true", help="refit the nil odds (30,000 hands)")
    ap.add_argument("--against", help="basic's nils against this level's attack (e.g. strong)")
    ap.add_argument("--range", type=int, nargs=2, default=[0, 3000], metavar=("FROM", "TO"))
    ap.add_argument("--mode", choices=("partnership", "individual"), default="partnership")
    ap.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS, help="strong's rollouts")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--nil-side", default="basic", help="the level that plays the nil side's cards")
    args = ap.parse_args()
    if args.against:
        report_against(args)
        return
    rng = random.Random(args.seed)
    if args.fit:
        fit(30000, random.Random(7))
        return
    for partnership in (True, False):
        mode = "partnership" if partnership else "individual"
        made = [0] * len(BUCKETS)
        tried = [0] * len(BUCKETS)
        odds_sum = [0.0] * len(BUCKETS)
        blind_made = 0
        for _ in range(args.deals):
            hands = deal(rng)
            d = nil_danger(hands[0])
            b = next(i for i, edge in enumerate(BUCKETS) if d <= edge)
            tried[b] += 1
            odds_sum[b] += nil_odds(hands[0], partnership)
            made[b] += play_nil(hands, partnership, False)
            blind_made += play_nil(hands, partnership, True)
        print(f"{mode}: blind nil made {100 * blind_made / args.deals:.1f}% of {args.deals}")
        for i, edge in enumerate(BUCKETS):
            if tried[i]:
                share = 100 * made[i] / tried[i]
                predicted = 100 * odds_sum[i] / tried[i]
                print(
                    f"  danger <= {edge:>4}: {tried[i]:>6} hands, nil made "
                    f"{share:.1f}% (predicted {predicted:.1f}%)"
                )


if __name__ == "__main__":
    main()
