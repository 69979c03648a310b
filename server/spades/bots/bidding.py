"""Basic bidding: a hand's tricks counted from its cards, nil by its fitted odds.

The `basic` and `easy` bots bid with `choose_bid` / `bid_number`; the strong bot starts its
sampled bids from the same count and bids the later seats of a sampled deal with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

from spades.engine import cards
from spades.engine.cards import deck_of
from spades.engine.rules import DEFAULT_RULES

from .blind import blind_bid_choice
from .state import NIL, UNKNOWN, bid_value, from_view, popcount
from .state import bits as cards_of  # the engine's cards_of, compiled with the bots

# The engine's tables as Final constants: a compiled build reads them from C variables.
NON_SPADE_MASK: Final[int] = cards.NON_SPADE_MASK
SPADE_MASK: Final[int] = cards.SPADE_MASK
SUIT_MASKS: Final[tuple[int, ...]] = cards.SUIT_MASKS

Action = dict[str, Any]


# Bidding knobs (tuned with `bench/bots.py`): bid = round(estimate * BID_SCALE + BID_SHIFT).
TUNING: dict[str, float] = {
    "bid_scale": 1.0,
    "bid_shift": -0.15,
}


def estimate_tricks(hand: int) -> float:
    """Expected tricks of a 13-card hand: sure and likely winners, spade length, ruffs."""
    spades = hand & SPADE_MASK
    n_sp = popcount(spades)
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
        length = popcount(cards)
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
    n_sp = popcount(spades)
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


SUICIDE_NIL_BELOW = 3.0  # tricks: the first partner to bid under suicide bids nil below it


def as_standard(hand: int, jokers: bool, deuces: bool) -> int:
    """A hand of a jokers game as the standard hand of about its strength, for the bid
    counts: its trumps by their place from the top among the 15 (16 under Deuce-Deuce):
    the Big Joker as the ace, the Little Joker as the king, then (Deuce-Deuce) the 2 of
    diamonds and the 2 of spades, the ace of spades, and so on down. The lowest trumps have
    no place left below the 2: they take the lowest free places above, so the hand keeps
    its number of trumps (a 4, 3 and 2 of spades of a jokers game as the 2, 3 and 4)."""
    if not jokers:
        return hand
    trumps = deck_of(jokers, deuces) & SPADE_MASK
    out = hand & NON_SPADE_MASK
    free = 0  # the lowest place (0 = the 2 of spades) not taken yet
    for card in cards_of(hand & SPADE_MASK):  # lowest first
        place = max(free, 12 - (trumps >> (card + 1)).bit_count())
        out |= 1 << (39 + place)
        free = place + 1
    return out


def hand_for_bids(view: dict[str, Any], hand: int) -> int:
    """The seat's hand as the bid counts read it (`as_standard` under the view's rules)."""
    rules = view.get("rules") or {}
    return as_standard(
        hand,
        bool(rules.get("jokers", DEFAULT_RULES.jokers)),
        bool(rules.get("deuces", DEFAULT_RULES.deuces)),
    )


# A blind bid of a number (`blind_bid_deficit`): what an unseen hand takes on average, which
# a partner bidding after it counts on (13 tricks over four seats).
BLIND_HAND_TRICKS = 3.25


# Tricks off a seat's count in a jokers deck, and under Deuce-Deuce: the counts are fitted on
# the standard deck, where side suits have 13 cards and trumps are 13; with 15 or 16 trumps
# side winners are ruffed sooner. Measured in whole games of Normal against Normal with
# `bench.basic_ab --preset` (docs/bots.md): 0.4 beats 0, 0.25 and 0.6 under Jokers, and 0.6
# beats 0, 0.45, 0.8 and 1.0 under Deuce-Deuce.
DECK_SHIFT: dict[str, float] = {"jokers": 0.4, "deuces": 0.6}


def deck_shift(view: dict[str, Any]) -> float:
    """`DECK_SHIFT` for the view's deck (0 for the standard deck)."""
    rules = view.get("rules") or {}
    if not rules.get("jokers", DEFAULT_RULES.jokers):
        return 0.0
    return DECK_SHIFT["deuces" if rules.get("deuces", DEFAULT_RULES.deuces) else "jokers"]


def blind_partner_shift(view: dict[str, Any], seat: int) -> float:
    """Tricks to take off the seat's count when its partner bid a blind number: the side's
    contract is the sum of the two bids, and the partner's unseen hand brings only about
    `BLIND_HAND_TRICKS` of its number (0 when the partner bid anything else)."""
    if view.get("mode") != "partnership":
        return 0.0
    partner = (seat + 2) % 4
    bid = (view.get("bids") or [None] * 4)[partner]
    blind = (view.get("blind") or [False] * 4)[partner]
    if blind and isinstance(bid, int) and not isinstance(bid, bool) and bid > 0:
        return bid - BLIND_HAND_TRICKS
    return 0.0


def suicide_nil_first(view: dict[str, Any], hand: int, offered: set[Any]) -> bool:
    """Suicide, the first of the team to bid: the weaker hand of the two should be the nil,
    and the partner's is unknown, so a hand worth under `SUICIDE_NIL_BELOW` tricks takes it."""
    rules = view.get("rules") or {}
    if not rules.get("suicide", DEFAULT_RULES.suicide) or "nil" not in offered:
        return False
    partner = (int(view["seat"]) + 2) % 4
    if bid_value((view.get("bids") or [None] * 4)[partner]) != UNKNOWN:
        return False
    return count_tricks(hand, view.get("mode") == "partnership") < SUICIDE_NIL_BELOW


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
        number = blind_bid_choice(view, kinds)
        if number:
            return {"type": "bid", "bid": f"blind {number}"}
        return {"type": "look"}

    st = from_view(view)
    bags = list(view.get("bags") or [])
    my_bags = bags[side] if side < len(bags) else 0
    hand = hand_for_bids(view, st.hands[seat])
    if suicide_nil_first(view, hand, kinds):
        return {"type": "bid", "bid": "nil"}
    blind = blind_partner_shift(view, seat)  # (no nil then: the blind contract needs us)
    nil_ok = "nil" in kinds and not blind
    shift = blind + deck_shift(view)
    n = bid_number(hand, seat, bids, partnership, my_bags, nil_ok, BidContext.of(view), shift)
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
    p: float,
    alt_bid: int,
    partnership: bool,
    side: int,
    partner_bid: int,
    ctx: BidContext,
    extra_margin: float = 0.0,
) -> bool:
    """Is a nil with success chance `p` worth more than bidding `alt_bid` tricks?"""
    value = ctx.nil_value
    ev_nil = p * value - (1 - p) * (value + 10)  # a failed nil also takes a bag or two
    ev_alt = 7.0 * alt_bid + 1.0  # a small bid is made most of the time
    if partnership:
        # Covering the nil costs the partner's contract now and then.
        ev_nil -= 12.0 + (2.0 * partner_bid if partner_bid > 0 else 6.0)
    # The odds are an estimate: ask for a little more than break-even (more when alone).
    margin = (10.0 if partnership else 40.0) + extra_margin
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
    shift: float = 0.0,
) -> int:
    """The basic bid for a 13-card hand: 0 for nil, else 1..13 tricks. `shift`: tricks off
    the count (`blind_partner_shift`, `deck_shift`)."""
    partner = (seat + 2) % 4 if partnership else -1
    side = seat % 2 if partnership else seat
    n = bid_for_count(count_tricks(hand, partnership) - shift, seat, bids, partnership, my_bags)
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
            want = 11.0 - bids[partner]  # (a float, as mypyc compiles it)
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
