"""Rival: an independent heuristic Spades player, used only as a benchmark opponent.

It was written from general Spades knowledge, not from the project's own bots, so that
benchmarks can check those bots against a player they were not tuned to. It plays a careful
club player's rules of thumb: it counts honours and long spades to bid, bids nil on weak
duckable hands, covers a partner's nil, attacks the opponents' nils, wins tricks cheaply
while its side still needs them and ducks to avoid bags once the contract is made.

    decide(view, seed=None) -> one element of view["legal"] (a new dict)

Standard library only; deterministic given (view, seed): the seed only breaks exact ties.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

RANKS = "23456789TJQKA"
SUITS = "SHDC"
ALL_CARDS = frozenset(r + s for r in RANKS for s in SUITS)
NIL_BIDS = ("nil", "blind nil")
NIL_LIMIT = (9.0, 1.5)  # most nil danger allowed: partnership, individual
NIL_MAX_TRICKS = (2.0, 1.5)  # no nil with more expected tricks than this
ATTACK_SLACK = 3  # attack a nil only with this many tricks to spare over our need
TOTAL_CAP = 12  # the most all four bids may add up to after ours
BID_ROUND = 0.25  # a fraction of a trick at least this large is bid as a whole one


def rank(card: str) -> int:
    return RANKS.index(card[0])


def suit_of(card: str) -> str:
    return card[1]


def beats(card: str, best: str, led: str) -> bool:
    """Whether `card` beats the trick's current best card `best` (led suit `led`)."""
    if suit_of(card) == suit_of(best):
        return rank(card) > rank(best)
    return suit_of(card) == "S" and suit_of(best) != "S"


@dataclass
class Table:
    """What the deciding seat knows: cards seen, voids shown, bids and tricks needed."""

    view: dict[str, Any]
    seat: int
    hand: list[str]
    partner: int | None
    trick: list[tuple[int, str]]
    seen: set[str] = field(default_factory=set)
    voids: list[set[str]] = field(default_factory=lambda: [set(), set(), set(), set()])

    @cached_property
    def unseen(self) -> set[str]:
        """Cards held by the other seats (neither played nor in our hand)."""
        return set(ALL_CARDS - self.seen - set(self.hand))

    def is_nil(self, seat: int) -> bool:
        return self.view["bids"][seat] in NIL_BIDS

    def nil_alive(self, seat: int) -> bool:
        return self.is_nil(seat) and self.view["tricks_won"][seat] == 0

    def side(self, seat: int) -> tuple[int, ...]:
        return (seat, (seat + 2) % 4) if self.view["mode"] == "partnership" else (seat,)

    def need(self, seat: int) -> int:
        """Tricks the side of `seat` still needs for its contract (<= 0: made)."""
        bids, won = self.view["bids"], self.view["tricks_won"]
        count_nil = self.view["rules"].get("nil_tricks_count_for_partner", False)
        contract = sum(b for s in self.side(seat) if isinstance(b := bids[s], int))
        taken = sum(won[s] for s in self.side(seat) if count_nil or not self.is_nil(s))
        return contract - taken

    def opponents(self) -> list[int]:
        return [s for s in range(4) if s not in self.side(self.seat)]

    def is_boss(self, card: str) -> bool:
        """No card still out in the other hands ranks above `card` in its suit."""
        s, r = suit_of(card), rank(card)
        return not any(suit_of(c) == s and rank(c) > r for c in self.unseen)

    def still_to_play(self) -> list[int]:
        """Seats that play after us in the current trick."""
        return [(self.seat + i) % 4 for i in range(1, 4 - len(self.trick))]

    def may_beat(self, seat: int, best: str, led: str) -> bool:
        """Whether `seat` (still to play) might beat `best`, given the voids it has shown."""
        higher = [c for c in self.unseen if beats(c, best, led)]
        if led not in self.voids[seat]:
            return any(suit_of(c) == led for c in higher)
        return "S" not in self.voids[seat] and any(suit_of(c) == "S" for c in higher)

    def holds(self, card: str, after: list[int]) -> bool:
        """Whether `card`, if it is best now, stays best against the seats in `after`."""
        led = suit_of(self.trick[0][1]) if self.trick else suit_of(card)
        return not any(self.may_beat(s, card, led) for s in after)


def read_table(view: dict[str, Any]) -> Table:
    """The seat's knowledge: every card played this hand and the voids it revealed."""
    seat = view["seat"]
    partner = (seat + 2) % 4 if view["mode"] == "partnership" else None
    current = view.get("current_trick") or {}
    trick = [(p["seat"], p["card"]) for p in current.get("cards", [])]
    table = Table(view, seat, list(view["hand"] or []), partner, trick)
    for t in [*view.get("tricks", []), {"cards": current.get("cards", [])}]:
        cards = t["cards"]
        if not cards:
            continue
        led = suit_of(cards[0]["card"])
        for p in cards:
            table.seen.add(p["card"])
            if suit_of(p["card"]) != led:
                table.voids[p["seat"]].add(led)
    return table


def current_best(trick: list[tuple[int, str]]) -> tuple[int, str]:
    """The (seat, card) winning the trick so far."""
    led = suit_of(trick[0][1])
    best = trick[0]
    for seat, card in trick[1:]:
        if beats(card, best[1], led):
            best = (seat, card)
    return best


# --- bidding ----------------------------------------------------------------------------


def count_tricks(hand: list[str]) -> float:
    """Expected tricks from honours, long spades and ruffing values."""
    by_suit = {s: sorted((rank(c) for c in hand if suit_of(c) == s), reverse=True) for s in SUITS}
    spades = by_suit["S"]
    n_sp = len(spades)
    total = 0.0
    honours = 0
    for r, value, guards in ((12, 1.0, 0), (11, 0.9, 1), (10, 0.7, 2), (9, 0.4, 3)):
        if r in spades:
            if n_sp - 1 >= guards:
                total += value
                honours += 1
            elif r >= 11:
                total += 0.4 if r == 11 else 0.25
    total += 0.9 * max(0, n_sp - 3)
    ruff = 0.0
    for s in "HDC":
        ranks, n = by_suit[s], len(by_suit[s])
        if 12 in ranks:
            total += 1.0 if n <= 5 else (0.7 if n == 6 else 0.45)
        if 11 in ranks:
            if n == 1:
                total += 0.15
            else:
                total += (0.8 if 12 in ranks else 0.7) if n <= 5 else 0.35
        if 10 in ranks and n >= 3:
            total += (0.5 if (12 in ranks or 11 in ranks) else 0.35) if n <= 4 else 0.2
        if n_sp >= 2:
            ruff += {0: 0.8, 1: 0.5, 2: 0.2}.get(n, 0.0)
    spare = max(0, n_sp - honours)
    return total + min(ruff, 0.85 * spare)


def nil_danger(ranks: list[int]) -> float:
    """How exposed a suit is for a nil: each card should have enough lower cards beneath."""
    ranks = sorted(ranks)
    excess = sum(max(0.0, r - (3 + 2 * i)) for i, r in enumerate(ranks))
    return excess + max(0, len(ranks) - 4) * 0.5


def nil_ok(hand: list[str], partnership: bool, partner_bid: Any) -> bool:
    """A weak, duckable hand: no high spades, high side cards guarded by low ones."""
    if partner_bid in NIL_BIDS or count_tricks(hand) > NIL_MAX_TRICKS[0 if partnership else 1]:
        return False
    spades = [rank(c) for c in hand if suit_of(c) == "S"]
    if len(spades) > 3 or any(r >= 10 for r in spades):
        return False
    exposure = 2 * nil_danger(spades)
    for s in "HDC":
        ranks = [rank(c) for c in hand if suit_of(c) == s]
        if 12 in ranks:
            return False
        exposure += nil_danger(ranks)
    limit = NIL_LIMIT[0 if partnership else 1]
    if partnership and isinstance(partner_bid, int) and partner_bid < 3:
        limit /= 2
    return exposure <= limit


def choose_bid(table: Table, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Nil on a weak duckable hand, else the counted tricks, kept within the table's 13."""
    view, hand = table.view, table.hand
    partnership = table.partner is not None
    partner_bid = view["bids"][table.partner] if table.partner is not None else None
    if {"type": "bid", "bid": "nil"} in legal and nil_ok(hand, partnership, partner_bid):
        return {"type": "bid", "bid": "nil"}
    est = count_tricks(hand)
    rules, side = view["rules"], (table.seat % 2 if partnership else table.seat)
    if view["bags"][side] >= rules.get("bag_limit", 10) - 3:
        est += 0.25  # near the bag limit: bid closer to what we will take
    lead = view["scores"][side] - max(v for i, v in enumerate(view["scores"]) if i != side)
    if lead > 0 and view["scores"][side] + 10 * est >= rules.get("target", 500):
        est -= 0.3  # ahead near the target: bid safe
    bid = max(1, int(est + BID_ROUND))
    others = sum(b for i, b in enumerate(view["bids"]) if i != table.seat and isinstance(b, int))
    bid = max(1, min(bid, TOTAL_CAP - others))
    allowed = [a["bid"] for a in legal if isinstance(a.get("bid"), int)]
    if not allowed:
        return legal[0]
    bid = min(allowed, key=lambda b: abs(b - bid))
    return {"type": "bid", "bid": bid}


# --- playing ----------------------------------------------------------------------------


def lowest(cards: list[str]) -> str:
    return min(cards, key=lambda c: (rank(c), suit_of(c) == "S"))


def highest(cards: list[str]) -> str:
    return max(cards, key=lambda c: (suit_of(c) == "S", rank(c)))


def danger(table: Table, card: str) -> tuple[int, int]:
    """How likely `card` is to win a trick: fewer higher cards out = more dangerous."""
    higher = sum(1 for c in table.unseen if suit_of(c) == suit_of(card) and rank(c) > rank(card))
    return (-higher, rank(card))


def nil_play(table: Table, cards: list[str]) -> str:
    """Play as the nil bidder: never win a trick if any card avoids it."""
    if not table.trick:
        safe = [c for c in cards if suit_of(c) != "S"] or cards
        return min(safe, key=lambda c: (danger(table, c), rank(c)))
    led = suit_of(table.trick[0][1])
    best = current_best(table.trick)[1]
    losers = [c for c in cards if not beats(c, best, led)]
    if losers:
        if suit_of(losers[0]) == led or all(suit_of(c) == "S" for c in losers):
            return max(losers, key=rank)
        return max(losers, key=lambda c: danger(table, c))
    last = len(table.trick) == 3
    return highest(cards) if last else lowest(cards)


def cover_play(table: Table, cards: list[str], rng: random.Random) -> str:
    """Protect the partner's nil: take the tricks the partner might otherwise win."""
    partner = table.partner
    assert partner is not None
    if not table.trick:

        def score(c: str) -> tuple[int, int, int]:
            return (suit_of(c) in table.voids[partner], table.is_boss(c), rank(c))

        return max(cards, key=score)
    led = suit_of(table.trick[0][1])
    best_seat, best = current_best(table.trick)
    winners = [c for c in cards if beats(c, best, led)]
    after = table.still_to_play()
    if partner in after or best_seat == partner:
        if winners:
            if not after:
                return min(winners, key=rank)
            followers = [c for c in winners if suit_of(c) == led]
            return max(followers, key=rank) if followers else min(winners, key=rank)
        return lowest(cards)
    return normal_play(table, cards, rng)


def attack_target(table: Table) -> int | None:
    """An opponent whose nil is still alive, unless our own contract cannot spare tricks."""
    if len(table.hand) - table.need(table.seat) < ATTACK_SLACK:
        return None
    targets = [s for s in table.opponents() if table.nil_alive(s)]
    return targets[0] if targets else None


def setting(table: Table) -> bool:
    """Whether we should keep taking tricks to set an opponent's contract."""
    left = len(table.hand)
    margin = 2 if table.partner is not None else 1
    for s in table.opponents():
        need = table.need(s)
        if need > 0 and left - need + 1 <= margin:
            return True
    return False


def lead_card(table: Table, cards: list[str], want: bool, rng: random.Random) -> str:
    """Attack a nil low; duck with safe low cards; else cash bosses, draw trumps, set up ruffs."""
    side_cards = [c for c in cards if suit_of(c) != "S"]
    target = attack_target(table)
    if target is not None:
        fair = [c for c in cards if suit_of(c) not in table.voids[target]] or cards
        return min(fair, key=lambda c: (rank(c), suit_of(c) == "S", rng.random()))
    if not want:
        pool = side_cards or cards
        return min(pool, key=lambda c: (danger(table, c), rng.random()))
    opps = table.opponents()
    bosses = [
        c
        for c in side_cards
        if table.is_boss(c) and not any(suit_of(c) in table.voids[o] for o in opps)
    ]
    if bosses:
        return max(bosses, key=lambda c: (rank(c), rng.random()))
    spades = [c for c in cards if suit_of(c) == "S"]
    out_spades = [c for c in table.unseen if suit_of(c) == "S"]
    top = max(spades, key=rank) if spades else None
    if top and out_spades and table.is_boss(top) and len(spades) >= len(out_spades) / 2:
        return top  # draw trumps while we hold the top of them
    partner = table.partner
    if partner is not None:
        ruffable = [
            c
            for c in side_cards
            if suit_of(c) in table.voids[partner] and "S" not in table.voids[partner]
        ]
        if ruffable:
            return min(ruffable, key=rank)
    n_spades = len(spades)
    counts = {s: sum(1 for c in cards if suit_of(c) == s) for s in SUITS}
    if n_spades >= 2:
        singles = [c for c in side_cards if counts[suit_of(c)] == 1 and rank(c) < 11]
        if singles:
            return min(singles, key=rank)
    if side_cards:

        def score(c: str) -> tuple[bool, int, int, float]:
            s = suit_of(c)
            honour = any(rank(h) >= 10 and suit_of(h) == s for h in cards)
            return (honour, -counts[s], rank(c), rng.random())

        return min(side_cards, key=score)
    return min(cards, key=rank)


def discard(table: Table, cards: list[str], want: bool) -> str:
    """Off-suit card: shed losers while we need tricks, shed dangerous high cards when not."""
    side_cards = [c for c in cards if suit_of(c) != "S"]
    if not side_cards:
        return lowest(cards)
    if not want:
        return max(side_cards, key=lambda c: danger(table, c))
    counts = {s: sum(1 for c in table.hand if suit_of(c) == s) for s in SUITS}
    losers = [c for c in side_cards if not table.is_boss(c)] or side_cards
    return min(losers, key=lambda c: (rank(c), counts[suit_of(c)]))


def normal_play(table: Table, cards: list[str], rng: random.Random | None = None) -> str:
    """Win cheaply while the side needs tricks (or can set the opponents), else duck."""
    rng = rng or random.Random(0)
    want = table.need(table.seat) > 0 or setting(table)
    if not table.trick:
        return lead_card(table, cards, want, rng)
    led = suit_of(table.trick[0][1])
    best_seat, best = current_best(table.trick)
    after = table.still_to_play()
    following = suit_of(cards[0]) == led
    winners = [c for c in cards if beats(c, best, led)]
    losers = [c for c in cards if c not in winners]
    target = attack_target(table)
    if target is not None:
        if best_seat == target and losers:
            return max(losers, key=lambda c: (suit_of(c) == led, rank(c)))
        if target in after:
            return lowest(cards) if following else discard(table, cards, False)
    if not want:  # duck: the highest card that still loses, else hope to be overtaken
        if losers:
            if following:
                return max(losers, key=rank)
            side_cards = [c for c in losers if suit_of(c) != "S"]
            return (
                max(side_cards, key=lambda c: danger(table, c))
                if side_cards
                else max(losers, key=rank)
            )
        return highest(cards) if not after else lowest(cards)
    rivals = [s for s in after if s != table.partner]
    partner_wins = best_seat == table.partner and table.holds(best, rivals)
    if partner_wins or not winners:
        return lowest(cards) if following else discard(table, cards, True)
    sure = [c for c in winners if table.holds(c, rivals)]
    if sure:
        return min(sure, key=rank)
    if not following:
        return min(winners, key=rank)
    if len(table.trick) == 1:
        return lowest(cards)  # second hand low
    top = max(winners, key=rank)
    unseen_ranks = {rank(c) for c in table.unseen if suit_of(c) == led}
    play = top
    for c in sorted(winners, key=rank, reverse=True):
        if any(rank(c) < r < rank(play) for r in unseen_ranks):
            break
        play = c
    return play


def decide(view: dict[str, Any], seed: int | None = None) -> dict[str, Any]:
    """One action for the seat whose view this is, always a copy of an element of `legal`."""
    legal = view["legal"]
    if len(legal) == 1:
        return dict(legal[0])
    if view["phase"] == "bidding":
        if view.get("hand") is None:
            look = [a for a in legal if a["type"] == "look"]
            return dict(look[0] if look else legal[0])
        return dict(choose_bid(read_table(view), legal))
    table = read_table(view)
    rng = random.Random(f"{seed}:{view.get('hand_number')}:{len(table.seen)}:{table.seat}")
    cards = [a["card"] for a in legal if a.get("type") == "play"]
    if table.is_nil(table.seat):
        card = nil_play(table, cards)
    elif table.partner is not None and table.nil_alive(table.partner):
        card = cover_play(table, cards, rng)
    else:
        card = normal_play(table, cards, rng)
    for action in legal:
        if action.get("card") == card:
            return dict(action)
    return dict(legal[0])
