"""The `easy` bot: a beginner. It follows the basic plan but misjudges now and then.

- Bids: the basic count of tricks, off by one about a third of the time (more often too
  many than too few); nil only on the safest hands; never blind nil (it always looks).
- Play: the basic card most of the time; otherwise a careless one, as a new player makes
  them: the highest card when a low one would do, the lowest when it should win, or any
  legal card. A nil it bid it still plays carefully.
"""

from __future__ import annotations

import random
from typing import Any

from spades.engine.cards import RANK_OF, card_text, parse_card

from .basic import choose_card
from .bidding import (
    BidContext,
    bid_number,
    blind_partner_shift,
    deck_shift,
    hand_for_bids,
    nil_odds,
)
from .state import NIL, bid_value, from_view

Action = dict[str, Any]

MISBID = 0.35  # share of bids off by one
CARELESS = 0.22  # share of cards chosen carelessly


def decide(view: dict[str, Any], rng: random.Random) -> Action:
    legal = view["legal"]
    if legal[0]["type"] == "play":
        return _play(view, rng)
    if view.get("hand") is None:
        for action in legal:
            if action["type"] == "look":
                return dict(action)
    return _bid(view, rng)


def _bid(view: dict[str, Any], rng: random.Random) -> Action:
    legal = view["legal"]
    offered = {a.get("bid") for a in legal if a["type"] == "bid"}
    st = from_view(view)
    seat = int(view["seat"])
    partnership = st.partnership
    bids = [bid_value(b) for b in view.get("bids") or [None] * 4]
    side = seat % 2 if partnership else seat
    bags = list(view.get("bags") or [])
    my_bags = bags[side] if side < len(bags) else 0
    hand = hand_for_bids(view, st.hands[seat])
    blind = blind_partner_shift(view, seat)  # (a partner's blind number needs our tricks)
    shift = blind + deck_shift(view)
    n = bid_number(hand, seat, bids, partnership, my_bags, False, BidContext.of(view), shift)
    if "nil" in offered and not blind and nil_odds(hand, partnership) >= 0.8 and rng.random() < 0.7:
        return {"type": "bid", "bid": "nil"}
    if rng.random() < MISBID:
        n += 1 if rng.random() < 0.65 else -1
    n = max(1, min(13, n))
    numeric = [b for b in offered if isinstance(b, int)]
    if n not in offered and numeric:
        n = min(numeric, key=lambda b: abs(b - n))
    return {"type": "bid", "bid": n} if n in offered else dict(legal[0])


def _play(view: dict[str, Any], rng: random.Random) -> Action:
    legal = view["legal"]
    st = from_view(view)
    seat = int(view["seat"])
    card = choose_card(st, seat)
    if len(legal) > 1 and rng.random() < CARELESS:
        cards = [a["card"] for a in legal]
        own_nil = st.bids[seat] == NIL and st.tricks_won[seat] == 0
        slip = rng.random()
        if own_nil:
            pass  # a beginner who bid nil still watches it
        elif slip < 0.35:
            return {"type": "play", "card": max(cards, key=_rank)}
        elif slip < 0.6:
            return {"type": "play", "card": min(cards, key=_rank)}
        else:
            return {"type": "play", "card": rng.choice(cards)}
    action = {"type": "play", "card": card_text(card)}
    return action if action in legal else dict(legal[0])


def _rank(card: str) -> int:
    return RANK_OF[parse_card(card)]  # (the jokers above the ace)
