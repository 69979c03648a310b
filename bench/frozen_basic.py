"""Today's `basic` (Normal) bot, frozen as it was before issue 61: bids and play in one file.

Imported by the benches only (`bench/basic_ab.py --frozen`, `bench/rival.py`, ...), so that
improvements to `spades.bots.basic` are measured against a fixed opponent. Do not edit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from spades.bots.state import NIL, UNKNOWN, PlayState, bid_value, from_view, winning_index
from spades.engine.cards import (
    FULL_DECK,
    SPADE_MASK,
    SPADES,
    SUIT_MASKS,
    card_text,
    cards_of,
)
from spades.engine.fast import legal_mask
from spades.engine.rules import DEFAULT_RULES

Action = dict[str, Any]


# Bidding knobs (tuned with `bench/bots.py`): bid = round(estimate * BID_SCALE + BID_SHIFT).
TUNING: dict[str, float] = {
    "bid_scale": 1.0,
    "bid_shift": -0.15,
}


def estimate_tricks(hand: int) -> float:
    """Expected tricks of a 13-card hand: sure and likely winners, spade length, ruffs."""
    spades = hand & SPADE_MASK
    n_sp = spades.bit_count()
    total = 0.0
    honour_sp = 0
    for card in cards_of(spades):
        gap = 51 - card  # higher spades than this one
        if gap == 0:
            total += 1.0
            honour_sp += 1
        elif gap == 1 and n_sp >= 2:
            total += 0.9
            honour_sp += 1
        elif gap == 2 and n_sp >= 3:
            total += 0.7
            honour_sp += 1
        elif gap == 3 and n_sp >= 4:
            total += 0.45
            honour_sp += 1
    # Long spades win tricks late, once the high ones are gone.
    if n_sp > 3:
        total += (n_sp - 3) * 0.8 - max(0, honour_sp - 2) * 0.4
    ruffs = 0.0
    for suit in range(3):
        cards = hand & SUIT_MASKS[suit]
        length = cards.bit_count()
        top = 13 * suit + 12
        if cards >> top & 1:
            total += 1.0 if length <= 5 else 0.6
        if cards >> (top - 1) & 1:
            if length >= 2:
                total += 0.8 if length <= 4 else 0.45
            else:
                total += 0.15
        if cards >> (top - 2) & 1 and 3 <= length <= 4:
            total += 0.45 if cards >> top & 1 or cards >> (top - 1) & 1 else 0.3
        if length == 0:
            ruffs += 2.0
        elif length == 1:
            ruffs += 1.0
        elif length == 2:
            ruffs += 0.4
    spare = max(0, n_sp - honour_sp - max(0, n_sp - 3))
    spare = max(spare, n_sp - honour_sp - 1) if n_sp <= 4 else spare
    total += min(ruffs, float(max(0, spare))) * 0.7
    return total


def bid_features(hand: int) -> list[float]:
    """What the partnership trick count is fitted on (`bench/bid_accuracy.py --fit`): the
    estimate above, spade honours by their guards, spade length, side aces, kings and
    queens by suit length, short suits and the spades spare to ruff them."""
    spades = hand & SPADE_MASK
    n_sp = spades.bit_count()
    ace, king, queen, jack = (spades >> card & 1 for card in (51, 50, 49, 48))
    out = [
        1.0,
        estimate_tricks(hand),
        ace,
        king * (n_sp >= 2),
        king * (n_sp < 2),
        queen * (n_sp >= 3),
        queen * (n_sp < 3),
        jack * (n_sp >= 4),
        n_sp,
        max(0, n_sp - 3),
        max(0, n_sp - 5),
    ]
    aces = long_aces = guarded_kings = bare_kings = mid_queens = other_queens = 0
    voids = singletons = doubletons = longest = 0
    for suit in range(3):
        cards = hand & SUIT_MASKS[suit]
        length = cards.bit_count()
        longest = max(longest, length)
        top = 13 * suit + 12
        if cards >> top & 1:
            aces += 1
            long_aces += length >= 6
        if cards >> (top - 1) & 1:
            guarded_kings += length >= 2
            bare_kings += length < 2
        if cards >> (top - 2) & 1:
            mid_queens += 3 <= length <= 4
            other_queens += not 3 <= length <= 4
        voids += length == 0
        singletons += length == 1
        doubletons += length == 2
    spare = max(0, n_sp - ace - king - queen)
    out += [
        aces,
        long_aces,
        guarded_kings,
        bare_kings,
        mid_queens,
        other_queens,
        voids,
        singletons,
        doubletons,
        min(2 * voids + singletons, spare),
        longest >= 7,
    ]
    return [float(v) for v in out]


# Partnership: each seat's tricks, least squares on `bid_features` over sides of basic play
# against basic and against strong (`python -m bench.bid_accuracy --fit`; docs/bots.md has
# the fit). It errs less than the estimate, so the bids can be closer to what the side takes
# (fewer bags) without more sets.
BID_WEIGHTS = (
    -0.0557, 0.136, 0.6493, 0.7007, 0.378, 0.6033, 0.367, 0.4629, 0.3281, 0.1942, 0.3596,
    0.8038, -0.0658, 0.5585, 0.2705, 0.2228, 0.1746, 0.2584, 0.1432, 0.021, 0.088, -0.1414,
)  # fmt: skip
# Tricks a partnership seat counts under its expected tricks: with `bid_for_count`'s rounding a
# side bids about 0.9 under what it expects to take (made about 9 times in 10).
BID_MARGIN = 0.3


def count_tricks(hand: int, partnership: bool) -> float:
    """The tricks a bid is built on: the fitted count with a partner, the estimate alone
    (individual play has its own, well-kept figures)."""
    if not partnership:
        return estimate_tricks(hand)
    x = bid_features(hand)
    return sum(w * v for w, v in zip(BID_WEIGHTS, x, strict=True)) - BID_MARGIN


def nil_danger(hand: int) -> float:
    """How likely the hand is to be forced to take a trick (0 = very safe)."""
    spades = hand & SPADE_MASK
    n_sp = spades.bit_count()
    danger = 0.0
    if spades >> 51 & 1:
        return 99.0
    if spades >> 50 & 1:
        danger += 2.0
    if spades >> 49 & 1:
        danger += 1.2
    for card in (48, 47):
        if spades >> card & 1:
            danger += 0.6
    if n_sp >= 4:
        danger += 1.0 + (n_sp - 4) * 1.0
    elif n_sp == 3:
        danger += 0.3
    for suit in range(3):
        for below, card in enumerate(cards_of(hand & SUIT_MASKS[suit])):
            danger += max(0, card % 13 - 5 - 2 * below) / 7.0
    return danger


def choose_bid(view: dict[str, Any]) -> Action:
    legal = view["legal"]
    kinds = {a.get("bid") if a["type"] == "bid" else "look" for a in legal}
    seat = int(view["seat"])
    rules = view.get("rules") or {}
    partnership = view.get("mode") == "partnership"
    bids = [bid_value(b) for b in view.get("bids") or [None] * 4]
    scores = list(view.get("scores") or [])
    target = int(rules.get("target", DEFAULT_RULES.target))
    side = seat % 2 if partnership else seat
    partner = (seat + 2) % 4 if partnership else -1

    if view.get("hand") is None:
        # Blind nil is open: take it when far behind with the opponents close to the target.
        if "blind nil" in kinds and wants_blind_nil(scores, side, target, partner, bids):
            return {"type": "bid", "bid": "blind nil"}
        return {"type": "look"}

    st = from_view(view)
    bags = list(view.get("bags") or [])
    my_bags = bags[side] if side < len(bags) else 0
    n = bid_number(
        st.hands[seat], seat, bids, partnership, my_bags, "nil" in kinds, BidContext.of(view)
    )
    if n == NIL:
        return {"type": "bid", "bid": "nil"}
    if n not in kinds:
        numeric = [a["bid"] for a in legal if isinstance(a.get("bid"), int)]
        if not numeric:
            return dict(legal[0])
        n = min(numeric, key=lambda b: abs(b - n))
    return {"type": "bid", "bid": n}


def nil_features(hand: int) -> list[float]:
    """What the nil odds are fitted on (see `bench/nil_odds.py`)."""
    spades = hand & SPADE_MASK
    n_sp = spades.bit_count()
    f = [1.0, float(n_sp)]
    for card in (50, 49, 48, 47):
        f.append(float(spades >> card & 1))
    f.append(float(max(0, n_sp - 3)))
    top = (spades.bit_length() - 1) % 13 if spades else -1
    f.append(float(max(0, top - 2 * (n_sp - 1))) if spades else 0.0)
    side = 0.0
    high = voids = no_low = lows = long5 = 0
    for suit in range(3):
        cards = cards_of(hand & SUIT_MASKS[suit])
        if not cards:
            voids += 1
            continue
        for below, card in enumerate(cards):
            side += max(0, card % 13 - 5 - 2 * below) / 7.0
            if card % 13 >= 10:
                high += 1
        if cards[0] % 13 >= 5:
            no_low += 1
        if len(cards) >= 5:
            long5 += 1
    for card in cards_of(hand):
        if card % 13 <= 1:
            lows += 1
    f += [side, float(high), float(voids), float(no_low), float(lows), float(long5)]
    f.append(min(nil_danger(hand), 6.0))
    return f


# Logistic weights of `nil_features`, fitted by `python -m bench.nil_odds --fit` on 24,000
# basic-played hands per mode (nil bidder first to bid; the others bid and play basic, so
# the nil is covered by its partner and attacked by the opponents); docs/bots.md has the
# held-out calibration.
NIL_WEIGHTS = {
    "partnership": (1.0345, -0.0408, -1.1267, -0.5825, -0.4888, -0.3014, -0.8194, -0.0055,
                    -1.4993, -0.0902, -0.0745, -0.0281, 0.142, 0.2109, -0.2331),
    "individual": (-0.3115, 0.0077, -0.4303, -0.2413, -0.2113, -0.0777, -0.592, -0.0184,
                   -1.4847, -0.1842, 0.37, -0.698, 0.238, 0.2871, -0.5091),
}  # fmt: skip
BLIND_NIL_ODDS = {"partnership": 0.22, "individual": 0.09}  # measured the same way


def nil_odds(hand: int, partnership: bool, partner_bid: int = UNKNOWN) -> float:
    """The chance a nil on this hand is made (basic play at the table)."""
    if hand >> 51 & 1:
        return 0.0
    weights = NIL_WEIGHTS["partnership" if partnership else "individual"]
    z = sum(w * x for w, x in zip(weights, nil_features(hand), strict=True))
    if partnership and partner_bid >= 4:
        z += 0.25  # a strong partner covers better
    elif partnership and partner_bid in (1, 2):
        z -= 0.25
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@dataclass(frozen=True)
class BidContext:
    """The game situation a bid is made in (scores and bags per side, the target)."""

    scores: tuple[int, ...] = ()
    bags: tuple[int, ...] = ()
    target: int = DEFAULT_RULES.target
    bag_limit: int = DEFAULT_RULES.bag_limit
    nil_value: int = DEFAULT_RULES.nil_value

    @classmethod
    def of(cls, view: dict[str, Any]) -> BidContext:
        rules = view.get("rules") or {}
        return cls(
            tuple(view.get("scores") or ()),
            tuple(view.get("bags") or ()),
            int(rules.get("target", DEFAULT_RULES.target)),
            int(rules.get("bag_limit", DEFAULT_RULES.bag_limit)),
            int(rules.get("nil_value", DEFAULT_RULES.nil_value)),
        )


def nil_pays(
    p: float, alt_bid: int, partnership: bool, side: int, partner_bid: int, ctx: BidContext
) -> bool:
    """Is a nil with success chance `p` worth more than bidding `alt_bid` tricks?"""
    value = ctx.nil_value
    ev_nil = p * value - (1 - p) * (value + 10)  # a failed nil also takes a bag or two
    ev_alt = 7.0 * alt_bid + 1.0  # a small bid is made most of the time
    if partnership:
        # Covering the nil costs the partner's contract now and then.
        ev_nil -= 12.0 + (2.0 * partner_bid if partner_bid > 0 else 6.0)
    # The odds are an estimate: ask for a little more than break-even (more when alone).
    margin = 10.0 if partnership else 40.0
    scores = ctx.scores
    if scores and side < len(scores):
        mine = scores[side]
        best_other = max((v for i, v in enumerate(scores) if i != side), default=mine)
        if best_other >= ctx.target - 120 and best_other > mine:
            margin -= 25.0  # they are about to win: a nil's swing is worth more
        elif mine >= ctx.target - 120 and mine >= best_other:
            margin += 30.0  # ahead near the end: the safe bid wins the game
    return ev_nil - ev_alt > margin


def bid_number(
    hand: int,
    seat: int,
    bids: list[int],
    partnership: bool,
    my_bags: int,
    nil_allowed: bool,
    ctx: BidContext | None = None,
) -> int:
    """The basic bid for a 13-card hand: 0 for nil, else 1..13 tricks."""
    partner = (seat + 2) % 4 if partnership else -1
    side = seat % 2 if partnership else seat
    n = bid_for_count(count_tricks(hand, partnership), seat, bids, partnership, my_bags)
    nil_ok = nil_allowed and not (partner >= 0 and bids[partner] == NIL)
    if nil_ok and estimate_tricks(hand) <= 3.5:
        partner_bid = bids[partner] if partner >= 0 else UNKNOWN
        p = nil_odds(hand, partnership, partner_bid)
        if nil_pays(p, n, partnership, side, partner_bid, ctx or BidContext()):
            return NIL
    return n


def bid_for_count(est: float, seat: int, bids: list[int], partnership: bool, my_bags: int) -> int:
    partner = (seat + 2) % 4 if partnership else -1
    side = seat % 2 if partnership else seat
    want = est
    others = sum(b for b in bids if b > 0)
    if partnership:
        if bids[partner] == NIL:
            want += 0.3  # covering a nil partner wins a few tricks anyway
        opp_bids = [b for i, b in enumerate(bids) if i % 2 != side and b > 0]
        if bids[partner] > 0 and bids[partner] + want > 11:
            want = 11 - bids[partner]
        if len(opp_bids) == 2 and bids[partner] > 0:
            # Last to bid: the tricks nobody claims tend to fall to someone; round up a bit.
            free = 13 - others - want
            if free >= 3:
                want += 0.35
    elif sum(1 for b in bids if b != UNKNOWN) == 3 and 13 - others - want >= 3:
        want += 0.3
    if my_bags >= 7:
        want += 0.3  # close to a bag penalty: bid what the hand takes
    n = int(want * TUNING["bid_scale"] + 0.5 + TUNING["bid_shift"])
    n = max(1, min(13, n))
    room_left = 13 - others
    if room_left >= 1 and n > room_left:
        n = room_left
    return n


def wants_blind_nil(
    scores: list[int], side: int, target: int, partner: int, bids: list[int], blind_value: int = 200
) -> bool:
    """Blind nil by expected value: its odds against what looking and bidding is worth.

    Measured with `bench/nil_odds.py`, a blind nil is made about 22% of the time with a
    partner covering and 9% alone, so it loses about 110 (partnership) or 160 points on
    average against a normal hand's +20 to +40; at those odds it never pays, even when far
    behind (a trailing side keeps more chances by bidding its cards), so it is never bid.
    """
    if not scores or side >= len(scores):
        return False
    if partner >= 0 and bids[partner] == NIL:
        return False
    p = BLIND_NIL_ODDS["partnership" if partner >= 0 else "individual"]
    ev_blind = p * blind_value - (1 - p) * blind_value
    ev_look = 25.0
    return ev_blind > ev_look


NON_SPADE = FULL_DECK & ~SPADE_MASK
# With its own contract safe, a seat goes for the set (plays to win tricks, bags or not)
# once the opponents need all but SET_MARGIN of the tricks left, and ducks otherwise; with
# its side's bags (this hand's included) within NEAR_BAGS of the bag limit, only once they
# need all but SET_MARGIN_NEAR. Setting a side is worth more with a partner than alone,
# where the other players share what the set costs its victim (docs/bots.md, "Going for
# the set, measured").
SET_MARGIN = {"partnership": 2, "individual": 0}
NEAR_BAGS = 3
SET_MARGIN_NEAR = 1


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _high(mask: int) -> int:
    return mask.bit_length() - 1


def _above(card: int) -> int:
    """Cards of the same suit ranked above `card`."""
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


def _below(card: int) -> int:
    """Cards of the same suit ranked below `card`."""
    return SUIT_MASKS[card // 13] & ((1 << card) - 1)


# --- play ----------------------------------------------------------------------------------


# A seat's opponents, by whether it has a partner: the seats either side of it, or all three.
_OPPONENTS = {
    True: tuple(((seat + 1) & 3, (seat + 3) & 3) for seat in range(4)),
    False: tuple(tuple(s for s in range(4) if s != seat) for seat in range(4)),
}


def choose_card(st: PlayState, seat: int) -> int:
    """The card the basic policy plays for `seat` (reads only its own hand and public facts)."""
    hand = st.hands[seat]
    trick = st.trick
    legal = legal_mask(hand, trick[0] if trick else -1, st.broken, st.must_break)  # st.legal
    if legal & (legal - 1) == 0:
        return (legal & -legal).bit_length() - 1
    hidden = FULL_DECK & ~st.played & ~hand
    partner = (seat + 2) & 3 if st.partnership else -1
    partner_nil = False
    opp_nils: list[int] = []
    if st.nil_seats:
        won = st.tricks_won
        if seat in st.nil_seats and won[seat] == 0:
            return _nil_play(st, seat, legal, hidden)
        for s in st.nil_seats:
            if won[s] == 0 and s != seat:
                if s == partner:
                    partner_nil = True
                else:
                    opp_nils.append(s)
    need = st.contract[seat]  # st.need(seat), inline: the rollouts' hottest call
    if need:
        won = st.tricks_won
        for s in st.count_seats[seat]:
            need -= won[s]
    want_win = need > 0
    if not want_win and not partner_nil:
        # Contract safe: take no bags unless setting an opponent is in reach.
        remaining = 13 - st.tricks_done
        margin = SET_MARGIN["partnership" if st.partnership else "individual"]
        side = seat & 1 if st.partnership else seat
        if side < len(st.bags) and st.bags[side] - need >= st.bag_limit - NEAR_BAGS:
            margin = min(margin, SET_MARGIN_NEAR)
        for s in _OPPONENTS[partner >= 0][seat]:
            opp_need = st.need(s)
            if opp_need > 0 and remaining - opp_need <= margin:
                want_win = True
                break
    if trick:
        return _follow(st, seat, legal, hidden, partner, partner_nil, opp_nils, want_win, need)
    return _lead(st, seat, legal, hidden, partner, partner_nil, opp_nils, want_win)


def _boss(card: int, hidden: int) -> bool:
    return not (hidden & _above(card))


def _cheapest_equal(card: int, hand: int, hidden: int) -> int:
    """The lowest card of the hand that is as good as `card` (no hidden card between them)."""
    low = card
    suit_hand = hand & SUIT_MASKS[card // 13]
    c = card - 1
    while c >= 13 * (card // 13):
        if suit_hand >> c & 1:
            low = c
        elif hidden >> c & 1:
            break
        c -= 1
    return low


def _can_trump_after(st: PlayState, seat: int, led: int, hidden: int, partner: int) -> bool:
    """May an opponent still to play in this trick trump a card of the led suit?"""
    if led == SPADES or not hidden & SPADE_MASK:
        return False
    n_after = 3 - len(st.trick)
    suit_left = hidden & SUIT_MASKS[led]
    for k in range(1, n_after + 1):
        s = (seat + k) & 3
        if s == partner:
            continue
        if st.voids[s] >> SPADES & 1:
            continue
        if st.voids[s] >> led & 1 or suit_left.bit_count() <= 1:
            return True
    return False


def _discard(hand: int, legal: int, dump_high: bool) -> int:
    """A card thrown away: lowest of the shortest side suit, or the highest danger when dumping."""
    side = legal & NON_SPADE
    if not side:
        return _high(legal) if dump_high else _low(legal)
    if dump_high:
        return _high_rank(side)
    best = -1
    best_len = 99
    for suit in range(3):
        cards = side & SUIT_MASKS[suit]
        if not cards:
            continue
        length = (hand & SUIT_MASKS[suit]).bit_count()
        low = _low(cards)
        # Keep a guarded king or an ace; otherwise shorten the shortest suit.
        key = length + (3 if low % 13 >= 10 else 0)
        if key < best_len:
            best_len = key
            best = low
    return best


def _high_rank(mask: int) -> int:
    best = -1
    for suit in range(4):
        cards = mask & SUIT_MASKS[suit]
        if cards:
            c = _high(cards)
            if best < 0 or c % 13 > best % 13:
                best = c
    return best


def _low_rank(mask: int) -> int:
    best = -1
    for suit in range(4):
        cards = mask & SUIT_MASKS[suit]
        if cards:
            c = _low(cards)
            if best < 0 or c % 13 < best % 13:
                best = c
    return best


def _nil_play(st: PlayState, seat: int, legal: int, hidden: int) -> int:
    trick = st.trick
    if not trick:
        side = legal & NON_SPADE
        return _low_rank(side or legal)
    led = trick[0] // 13
    win = trick[winning_index(trick)]
    last = len(trick) == 3
    follow = legal & SUIT_MASKS[led]
    if follow:
        if win // 13 != led:  # trumped: any card of the led suit is safe
            return _high(follow)
        under = follow & _below(win)
        if under:
            return _high(under)
        return _high(follow) if last else _low(follow)
    side = legal & NON_SPADE
    if side:
        return _high_rank(side)
    # Only spades left.
    if win // 13 == SPADES:
        under = legal & _below(win)
        if under:
            return _high(under)
    return _high(legal) if last else _low(legal)


def _follow(
    st: PlayState,
    seat: int,
    legal: int,
    hidden: int,
    partner: int,
    partner_nil: bool,
    opp_nils: list[int],
    want_win: bool,
    need: int,
) -> int:
    trick = st.trick
    hand = st.hands[seat]
    led = trick[0] // 13
    at = winning_index(trick)
    win = trick[at]
    win_seat = (st.leader + at) & 3
    last = len(trick) == 3
    n_after = 3 - len(trick)  # seats still to play after this one: seat + 1 .. seat + n_after
    follow = legal & SUIT_MASKS[led]
    trumped = win // 13 != led

    if partner_nil:
        partner_after = partner >= 0 and 0 < (partner - seat) & 3 <= n_after
        if partner_after or win_seat == partner:
            return _cover_nil(hand, legal, follow, win, trumped, partner_after)

    if (
        opp_nils
        and need < 13 - st.tricks_done
        and any(0 < (s - seat) & 3 <= n_after or s == win_seat for s in opp_nils)
    ):
        card = _attack_nil(hand, legal, follow, win, win_seat, trumped, opp_nils, want_win)
        if card >= 0:
            return card

    if not want_win:
        return _duck(legal, follow, win, trumped, last)
    if follow:
        return _win_in_suit(st, seat, follow, hidden, partner, win, win_seat, trumped)
    return _ruff(st, seat, legal, hidden, partner, win, win_seat, trumped)


def _cover_nil(hand: int, legal: int, follow: int, win: int, trumped: bool, before: bool) -> int:
    """Protect a nil partner: make sure the trick is ours before they play (`before`), or
    overtake them when they are winning it."""
    if follow and not trumped:
        beats = follow & _above(win)
        if beats:
            return _high(beats) if before else _low(beats)
        return _low(follow)
    if not follow:
        sp = legal & SPADE_MASK
        over = sp & _above(win) if trumped else sp
        if over:
            return _high(over) if before else _low(over)
        return _discard(hand, legal, dump_high=False)
    return _low(follow)


def _attack_nil(
    hand: int,
    legal: int,
    follow: int,
    win: int,
    win_seat: int,
    trumped: bool,
    opp_nils: list[int],
    want_win: bool,
) -> int:
    """Attack an opponent's nil: stay under them when they are winning, play low before them.
    -1 when the attack has no card to offer here."""
    if win_seat in opp_nils:
        if follow:
            under = follow & _below(win) if not trumped else 0
            if under:
                return _high(under)
            if trumped:
                return _low(follow)
        else:
            if legal & NON_SPADE:
                return _discard(hand, legal, dump_high=not want_win)
            if trumped:
                under = legal & _below(win)
                if under:
                    return _high(under)
    elif follow and not want_win:
        return _low(follow)
    return -1


def _duck(legal: int, follow: int, win: int, trumped: bool, last: bool) -> int:
    """The contract is safe: lose the trick, shedding the highest card that still loses."""
    if follow:
        if trumped:
            return _high(follow)
        under = follow & _below(win)
        if under:
            return _high(under)
        return _high(follow) if last else _low(follow)
    side = legal & NON_SPADE
    if side:
        return _high_rank(side)
    if trumped:
        under = legal & _below(win)
        if under:
            return _high(under)
    return _high(legal) if last else _low(legal)


def _win_in_suit(
    st: PlayState,
    seat: int,
    follow: int,
    hidden: int,
    partner: int,
    win: int,
    win_seat: int,
    trumped: bool,
) -> int:
    """Following suit with tricks still needed: win as cheaply as the cards allow."""
    trick = st.trick
    hand = st.hands[seat]
    led = trick[0] // 13
    last = len(trick) == 3
    if trumped:
        return _low(follow)
    beats = follow & _above(win)
    if win_seat == partner:
        if last:
            return _low(follow)
        safe = _boss(win, hidden & ~hand) and not _can_trump_after(st, seat, led, hidden, partner)
        if safe or not beats:
            return _low(follow)
        top = _high(beats)
        if _boss(top, hidden):
            return _cheapest_equal(top, hand, hidden)
        return _low(follow)
    if not beats:
        return _low(follow)
    if last:
        return _low(beats)
    top = _high(beats)
    trump_risk = _can_trump_after(st, seat, led, hidden, partner)
    if _boss(top, hidden) and not trump_risk:
        return _cheapest_equal(top, hand, hidden)
    if len(trick) == 1:
        return _low(follow)  # second hand low
    # Third hand high (the cheapest of equal cards), unless a trump is coming anyway.
    if trump_risk:
        return _low(follow)
    return _cheapest_equal(top, hand, hidden)


def _ruff(
    st: PlayState,
    seat: int,
    legal: int,
    hidden: int,
    partner: int,
    win: int,
    win_seat: int,
    trumped: bool,
) -> int:
    """Void in the led suit with tricks still needed: ruff, unless the partner has it."""
    hand = st.hands[seat]
    spades = legal & SPADE_MASK
    if win_seat == partner:
        last = len(st.trick) == 3
        led = st.trick[0] // 13
        safe = last or (
            not trumped
            and _boss(win, hidden)
            and not _can_trump_after(st, seat, led, hidden, partner)
        )
        if trumped:
            safe = safe or _boss(win, hidden)
        if safe or not spades:
            return _discard(hand, legal, dump_high=False)
    if spades:
        over = spades & _above(win) if trumped else spades
        if over:
            # The lowest spade that wins now, even with an over-trump possible: a boss spade
            # spent on a ruff loses the trick it would have taken on its own (docs/bots.md,
            # "Ruffing low, measured").
            return _low(over)
    return _discard(hand, legal, dump_high=False)


def _lead(
    st: PlayState,
    seat: int,
    legal: int,
    hidden: int,
    partner: int,
    partner_nil: bool,
    opp_nils: list[int],
    want_win: bool,
) -> int:
    # The suits some opponent can ruff: shown out of the suit and not out of spades.
    ruffable = 0
    voids = st.voids
    for o in _OPPONENTS[partner >= 0][seat]:
        if not voids[o] >> SPADES & 1:
            ruffable |= voids[o]

    if partner_nil:
        return _lead_for_nil_partner(st, legal, hidden, partner, ruffable)
    if opp_nils:
        card = _lead_into_nil(st, legal, opp_nils[0])
        if card >= 0:
            return card
    if not want_win:
        side = legal & NON_SPADE
        return _low_rank(side or legal)
    return _lead_to_win(st, legal, hidden, partner, ruffable)


def _lead_for_nil_partner(
    st: PlayState, legal: int, hidden: int, partner: int, ruffable: int
) -> int:
    """Lead winners, then high cards, so the nil partner can play under them."""
    for suit in range(4):
        cards = legal & SUIT_MASKS[suit]
        if cards and _boss(_high(cards), hidden) and (suit == SPADES or not ruffable >> suit & 1):
            return _high(cards)
    for suit in range(3):
        cards = legal & SUIT_MASKS[suit]
        if cards and st.voids[partner] >> suit & 1:
            return _high(cards)
    return _high_rank(legal & NON_SPADE or legal)


def _lead_into_nil(st: PlayState, legal: int, target: int) -> int:
    """A low card of a suit the nil bidder still holds, or -1 when none is low enough."""
    best = -1
    for suit in range(4):
        cards = legal & SUIT_MASKS[suit]
        if not cards or st.voids[target] >> suit & 1:
            continue
        c = _low(cards)
        if suit == SPADES and legal & NON_SPADE:
            continue
        if best < 0 or c % 13 < best % 13:
            best = c
    if best >= 0 and best % 13 <= 7:
        return best
    return -1


def _lead_to_win(st: PlayState, legal: int, hidden: int, partner: int, ruffable: int) -> int:
    # Cash side-suit winners the opponents cannot trump.
    for suit in range(3):
        cards = legal & SUIT_MASKS[suit]
        if cards:
            top = _high(cards)
            if _boss(top, hidden) and not ruffable >> suit & 1 and (hidden & SUIT_MASKS[suit]):
                return top
    spades = legal & SPADE_MASK
    if spades:
        top = _high(spades)
        n_hidden = (hidden & SPADE_MASK).bit_count()
        if _boss(top, hidden) and n_hidden:
            return top
        if spades.bit_count() >= 4 and spades.bit_count() > n_hidden // 2:
            return _low(spades)
    # Lead into partner's void if the opponents can follow.
    if partner >= 0 and not st.voids[partner] >> SPADES & 1:
        for suit in range(3):
            cards = legal & SUIT_MASKS[suit]
            if cards and st.voids[partner] >> suit & 1 and not ruffable >> suit & 1:
                return _low(cards)
    # Otherwise lead low from the shortest side suit without a king to protect.
    best = -1
    best_key = 99
    for suit in range(3):
        cards = legal & SUIT_MASKS[suit]
        if not cards:
            continue
        length = cards.bit_count()
        key = length
        top = _high(cards)
        if top % 13 == 11 and not _boss(top, hidden) and length <= 2:
            key += 5
        if key < best_key:
            best_key = key
            best = _low(cards)
    if best >= 0:
        return best
    return _low(legal)


# --- the level's entry point ---------------------------------------------------------------


def decide(view: dict[str, Any]) -> Action:
    legal = view["legal"]
    if legal[0]["type"] != "play":
        return choose_bid(view)
    st = from_view(view)
    seat = int(view["seat"])
    card = card_text(choose_card(st, seat))
    action = {"type": "play", "card": card}
    if action not in legal:  # never happens when the view is consistent; stay legal anyway
        return dict(legal[0])
    return action
