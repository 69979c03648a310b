"""Normal (the `basic` level): the basic policy with a partner people trust (issue 61).

`basic.choose_card` stays the strong bot's rollout policy as it is; Normal plays its card
and then corrects it where players complain about bot partners:

- a partner who bid nil and is winning the trick is always overtaken when a legal card can
  (its nil still standing or already broken: a broken nil's tricks are only bags);
- a partner's sure winner (no unseen card of its suit above it) is never overtaken by a card
  of the same suit, nor ruffed unless an opponent still to play may ruff it first;
- bids: the fitted count with Normal's own margin, the partner's bid and the score (see
  `normal_bid`);
- around a standing nil (`normal_nil`): an opponent's nil is hunted, a nil partner still to
  play is covered with the lowest ruff that takes the trick, and a nil bidder void in the
  led suit throws from the suit it could least duck.

Each correction is a few mask operations on the seat's view: Normal stays well under 2 ms.
"""

from __future__ import annotations

from typing import Any

from spades.engine.cards import SPADE_MASK, SPADES, SUIT_MASKS, SUIT_OF, card_text
from spades.engine.fast import legal_mask

from .basic import NON_SPADE, _above, _below, _boss, _can_trump_after, _discard, choose_card
from .bidding import (
    BidContext,
    bid_for_count,
    blind_partner_shift,
    choose_bid,
    count_tricks,
    deck_shift,
    estimate_tricks,
    hand_for_bids,
    nil_odds,
    nil_pays,
    suicide_nil_first,
)
from .normal_individual import (
    desperate_bid,
    desperate_nil,
    individual_card,
    individual_nil_odds,
)
from .normal_nil import cover_card, hunt_card, hunt_target, nil_discard
from .state import NIL, UNKNOWN, PlayState, bid_value, from_view, winning_index

Action = dict[str, Any]

# Knobs (measured with `python -m bench.basic_ab --b frozen`; docs/bots.md).
COVER_NIL = True  # overtake a nil partner who is winning the trick
KEEP_PARTNER_WINNER = True  # never overtake a partner's sure winner
# Bidding: points asked of a nil over its expected value on top of basic's margin (partnership,
# individual); the bid one lower when the side reaches the target with it anyway.
NIL_EXTRA = {"partnership": -35.0, "individual": -12.0}
NIL_P_MIN = 0.70  # alone: no nil under these odds (`individual_nil_odds`) whatever it pays
NIL_FLOOR_LOST = False  # no floor when another player's bid wins the game over our `n`
NIL_EXTRA_COVERED = -50.0  # partnership, the partner having bid 4 or more (a strong cover)
SAFE_AT_TARGET = True
COUNT_SHIFT = {"partnership": 0.0, "individual": 0.0}  # tricks added to basic's count
NIL_PARTNER_EXTRA = 0.0  # tricks added to the count when the partner bid nil (basic: +0.3)
# A contract the seat's boss spades make alone counts as safe (duck the rest): measured, it
# loses (docs/bots.md), so it is off.
SURE_SPADES = False


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def beating_cards(legal: int, win: int) -> int:
    """The legal cards that would take the trick from `win` (its winning card so far)."""
    beats = legal & _above(win)
    if SUIT_OF[win] != SPADES:
        beats |= legal & SPADE_MASK  # holding a spade here means void in the led suit
    return beats


def normal_card(st: PlayState, seat: int) -> int:
    """The card Normal plays for `seat`: the basic policy's, corrected as the module says."""
    if not st.partnership:
        alone = individual_card(st, seat)
        if alone >= 0:
            return alone
    target = hunt_target(st, seat)
    if target >= 0:
        trick = st.trick
        legal = legal_mask(st.hands[seat], trick[0] if trick else -1, st.broken, st.must_break)
        if legal & (legal - 1):
            hunted = hunt_card(st, seat, target, legal)
            if hunted >= 0:
                return hunted
    elif st.nil_seats and st.trick:
        trick = st.trick
        legal = legal_mask(st.hands[seat], trick[0], st.broken, st.must_break)
        covering = cover_card(st, seat, legal)
        if covering < 0:
            covering = nil_discard(st, seat, legal)
        if covering >= 0:
            return covering
    card = choose_card(_sure_view(st, seat) if SURE_SPADES else st, seat)
    trick = st.trick
    if not trick or not st.partnership:
        return card
    partner = (seat + 2) & 3
    win = trick[winning_index(trick)]
    win_seat = (st.leader + winning_index(trick)) & 3
    if win_seat != partner or card == win or not beating_cards(1 << card, win):
        if COVER_NIL and win_seat == partner and partner in st.nil_seats:
            return _cover(st, seat, card, win)
        return card
    # `card` overtakes the partner.
    if partner in st.nil_seats or not KEEP_PARTNER_WINNER:
        return card
    if seat in st.nil_seats and st.tricks_won[seat] == 0:
        return card  # our own nil decides (it was forced or it is safe)
    hand = st.hands[seat]
    hidden = st.deck & ~st.played & ~hand
    if not _boss(win, hidden):
        return card
    led = SUIT_OF[trick[0]]
    ruff = SUIT_OF[card] == SPADES and led != SPADES and SUIT_OF[win] != SPADES
    if ruff and len(trick) < 3 and _can_trump_after(st, seat, led, hidden, partner):
        return card  # ruff ahead of an opponent who may ruff the partner's card
    legal = legal_mask(hand, trick[0], st.broken, st.must_break)
    follow = legal & SUIT_MASKS[led]
    if follow:
        under = follow & _below(win) if SUIT_OF[win] == led else follow
        return _low(under) if under else card
    if legal & NON_SPADE:
        return _discard(hand, legal, dump_high=False)
    return card


def _sure_view(st: PlayState, seat: int) -> PlayState:
    """`st`, or a copy whose contract counts as made when the seat's boss spades (each takes
    a trick whenever it is played) cover what the side still needs: then the basic policy
    ducks every other trick instead of collecting bags on the way."""
    need = st.contract[seat]
    if need <= 0 or (st.nil_seats and seat in st.nil_seats):
        return st
    for s in st.count_seats[seat]:
        need -= st.tricks_won[s]
    spades = st.hands[seat] & SPADE_MASK
    if need <= 0 or spades.bit_count() < need:
        return st
    hidden = st.deck & ~st.played & ~st.hands[seat] & SPADE_MASK
    sure = 0
    while spades:
        top = spades.bit_length() - 1
        if hidden >> top:  # an unseen spade above this one
            break
        sure += 1
        spades &= ~(1 << top)
    if sure < need:
        return st
    view = st.copy()
    view.contract = st.contract[:]
    view.contract[seat] -= need
    return view


def _cover(st: PlayState, seat: int, card: int, win: int) -> int:
    """The nil partner is winning and `card` does not take the trick: take it if we can."""
    if seat in st.nil_seats and st.tricks_won[seat] == 0:
        return card  # both bid nil: our own nil comes first
    legal = legal_mask(st.hands[seat], st.trick[0], st.broken, st.must_break)
    beats = beating_cards(legal, win)
    return _low(beats) if beats else card


def normal_bid(view: dict[str, Any]) -> Action:
    """Normal's bid: basic's when the cards are not seen yet (blind nil is never bid), else
    `normal_bid_number` offered as the nearest legal bid."""
    legal = view["legal"]
    if view.get("hand") is None or legal[0]["type"] != "bid":
        return choose_bid(view)
    kinds = {a.get("bid") for a in legal}
    seat = int(view["seat"])
    partnership = view.get("mode") == "partnership"
    bids = [bid_value(b) for b in view.get("bids") or [None] * 4]
    st = from_view(view)
    hand = hand_for_bids(view, st.hands[seat])  # (the top trumps of jokers and deuces)
    if suicide_nil_first(view, hand, kinds):
        return {"type": "bid", "bid": "nil"}
    n = normal_bid_number(hand, seat, bids, partnership, "nil" in kinds, view)
    if n == NIL:
        return {"type": "bid", "bid": "nil"}
    if n not in kinds:
        numeric = [a["bid"] for a in legal if isinstance(a.get("bid"), int)]
        if not numeric:
            return dict(legal[0])
        n = min(numeric, key=lambda b: abs(b - n))
    return {"type": "bid", "bid": n}


def normal_bid_number(
    hand: int, seat: int, bids: list[int], partnership: bool, nil_ok: bool, view: dict[str, Any]
) -> int:
    """Basic's count, then the score: nil only when it pays by Normal's margin, and one
    trick less when the side reaches the target with it anyway (a set there loses the game)."""
    ctx = BidContext.of(view)
    side = seat % 2 if partnership else seat
    partner = (seat + 2) % 4 if partnership else -1
    my_bags = ctx.bags[side] if side < len(ctx.bags) else 0
    partner_bid = bids[partner] if partner >= 0 else UNKNOWN
    blind = blind_partner_shift(view, seat)  # the partner bid a blind number: it needs us
    count = count_tricks(hand, partnership) - blind - deck_shift(view)
    if partner_bid == NIL:
        count += NIL_PARTNER_EXTRA
    count += COUNT_SHIFT["partnership" if partnership else "individual"]
    n = bid_for_count(count, seat, bids, partnership, my_bags)
    if nil_ok and not blind and partner_bid != NIL and estimate_tricks(hand) <= 3.5:
        if partnership:
            p = nil_odds(hand, partnership, partner_bid)
        else:
            p = individual_nil_odds(hand, seat, bids)
            if desperate_nil(ctx, seat, bids, n, p):
                return NIL
            if p < NIL_P_MIN and not (NIL_FLOOR_LOST and _lost_unless(ctx, seat, bids, n)):
                p = 0.0
        extra = NIL_EXTRA["partnership" if partnership else "individual"]
        if partnership and partner_bid >= 4:
            extra = NIL_EXTRA_COVERED
        if nil_pays(p, n, partnership, side, partner_bid, ctx, extra):
            return NIL
    if not partnership:
        return desperate_bid(ctx, seat, bids, n)
    if SAFE_AT_TARGET and n > 1 and side < len(ctx.scores):
        others = max((v for i, v in enumerate(ctx.scores) if i != side), default=0)
        side_bid = n - 1 + max(0, partner_bid)
        known = partnership and partner_bid != UNKNOWN  # measured (docs/bots.md)
        if known and ctx.scores[side] + 10 * side_bid >= max(ctx.target, others):
            return n - 1
    return n


def _lost_unless(ctx: BidContext, seat: int, bids: list[int], n: int) -> bool:
    """Alone: another player's bid, made, takes it to the target above our score with `n`."""
    if len(ctx.scores) < 4:
        return False
    mine = ctx.scores[seat] + 10 * n
    for s, b in enumerate(bids):
        if s != seat and b > 0:
            theirs = ctx.scores[s] + 10 * b
            if theirs >= ctx.target and theirs > mine:
                return True
    return False


def decide(view: dict[str, Any]) -> Action:
    """The Normal level (`basic`): `normal_bid`, then `normal_card`."""
    legal = view["legal"]
    if legal[0]["type"] != "play":
        return normal_bid(view)
    st = from_view(view)
    action = {"type": "play", "card": card_text(normal_card(st, int(view["seat"])))}
    if action not in legal:  # never happens when the view is consistent; stay legal anyway
        return dict(legal[0])
    return action
