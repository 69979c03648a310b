"""Normal (the `basic` level): the basic policy with a partner people trust (issue 61).

`basic.choose_card` stays the strong bot's rollout policy as it is; Normal plays its card
and then corrects it where players complain about bot partners:

- a partner who bid nil and is winning the trick is always overtaken when a legal card can
  (its nil still standing or already broken: a broken nil's tricks are only bags);
- a partner's sure winner (no unseen card of its suit above it) is never overtaken by a card
  of the same suit, nor ruffed unless an opponent still to play may ruff it first;
- bids: the fitted count with Normal's own margin, the partner's bid and the score (see
  `normal_bid`).

Each correction is a few mask operations on the seat's view: Normal stays well under 2 ms.
"""

from __future__ import annotations

from typing import Any

from spades.engine.cards import FULL_DECK, SPADE_MASK, SPADES, SUIT_MASKS, card_text
from spades.engine.fast import legal_mask

from .basic import NON_SPADE, _above, _below, _boss, _can_trump_after, _discard, choose_card
from .bidding import choose_bid
from .state import PlayState, from_view, winning_index

Action = dict[str, Any]

# Knobs (measured with `python -m bench.basic_ab --b frozen`; docs/bots.md).
COVER_NIL = True  # overtake a nil partner who is winning the trick
KEEP_PARTNER_WINNER = True  # never overtake a partner's sure winner


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def beating_cards(legal: int, win: int) -> int:
    """The legal cards that would take the trick from `win` (its winning card so far)."""
    beats = legal & _above(win)
    if win // 13 != SPADES:
        beats |= legal & SPADE_MASK  # holding a spade here means void in the led suit
    return beats


def normal_card(st: PlayState, seat: int) -> int:
    """The card Normal plays for `seat`: the basic policy's, corrected as the module says."""
    card = choose_card(st, seat)
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
    hidden = FULL_DECK & ~st.played & ~hand
    if not _boss(win, hidden):
        return card
    led = trick[0] // 13
    ruff = card // 13 == SPADES and led != SPADES and win // 13 != SPADES
    if ruff and len(trick) < 3 and _can_trump_after(st, seat, led, hidden, partner):
        return card  # ruff ahead of an opponent who may ruff the partner's card
    legal = legal_mask(hand, trick[0], st.broken, st.must_break)
    follow = legal & SUIT_MASKS[led]
    if follow:
        under = follow & _below(win) if win // 13 == led else follow
        return _low(under) if under else card
    if legal & NON_SPADE:
        return _discard(hand, legal, dump_high=False)
    return card


def _cover(st: PlayState, seat: int, card: int, win: int) -> int:
    """The nil partner is winning and `card` does not take the trick: take it if we can."""
    if seat in st.nil_seats and st.tricks_won[seat] == 0:
        return card  # both bid nil: our own nil comes first
    legal = legal_mask(st.hands[seat], st.trick[0], st.broken, st.must_break)
    beats = beating_cards(legal, win)
    return _low(beats) if beats else card


def normal_bid(view: dict[str, Any]) -> Action:
    """Normal's bid (for now the basic bid)."""
    return choose_bid(view)


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
