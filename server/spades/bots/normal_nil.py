"""Normal's play around a standing nil (issue 61): hunting an opponent's nil, covering a
partner's, and the nil bidder's own discards.

A broken nil swings about 200 points between the sides (their +100 becomes -100, and the
trick is a bag of theirs), more than any contract of ours is worth, so while an opponent's
nil stands Normal plays for it first:

- **under the nil bidder**: when the nil bidder is winning the trick, the highest card that
  still loses to it (keeping the low cards to lead later), a discard rather than a ruff when
  void;
- **low in front of it**: when the nil bidder plays after the seat and its partner neither
  holds the trick nor plays between them, the bar it must get under is kept low: a card
  under the trick's winning card (the highest such), else the lowest; void, a discard (the
  nil's side ruffing is their business), not a ruff;
- **leads**: a low card of a suit the nil bidder has not shown out of, the lowest by how many
  unseen cards of the suit lie under it (a card with none under it cannot be ducked).

A partner's nil still to play is covered with the lowest spade that takes the trick when the
seat is void (`cover_card`); a nil bidder void in the led suit throws from the side suit it
could least duck (`nil_discard`). Partnership only, except the discards. Each rule is a few
mask operations on the seat's own view.
"""

from __future__ import annotations

from spades.engine.cards import FULL_DECK, RANK_OF, SPADE_MASK, SPADES, SUIT_MASKS, SUIT_OF

from .state import PlayState, winning_index

NON_SPADE = FULL_DECK & ~SPADE_MASK

# Knobs (measured with `python -m bench.basic_ab --b frozen`; docs/bots.md).
HUNT = True  # hunt an opponent's standing nil
HUNT_LEAD = True  # lead low into it
HUNT_LEAD_MAX_UNDER = 6  # lead only a card with at most this many unseen cards under it
HUNT_COVERED = False  # still hunt when the nil's partner holds the trick or plays before it
HUNT_LEAD_SPADES = False  # lead low spades into the nil too (spades broken)
HUNT_INDIVIDUAL = False  # hunt alone too (any other seat's nil)
HUNT_AVOID_COVER_VOID = False  # lead no suit the nil's partner has shown out of (it would ruff)
HUNT_SLACK = 1  # hunt while the side can still lose this many of the tricks left and make its bid


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _high(mask: int) -> int:
    return mask.bit_length() - 1


def _below(card: int) -> int:
    return SUIT_MASKS[SUIT_OF[card]] & ((1 << card) - 1)


def _discard_high(legal: int) -> int:
    """A discard for a hunter: the highest side card (low cards are kept to lead into the nil)."""
    side = legal & NON_SPADE
    if not side:
        return _low(legal)
    best = -1
    for suit in range(3):
        cards = side & SUIT_MASKS[suit]
        if cards:
            c = _high(cards)
            if best < 0 or RANK_OF[c] > RANK_OF[best]:
                best = c
    return best


def hunt_target(st: PlayState, seat: int) -> int:
    """The opponent whose nil the seat hunts (its nil standing), or -1."""
    if not HUNT or not st.nil_seats:
        return -1
    won = st.tricks_won
    if not st.partnership:
        if not HUNT_INDIVIDUAL or (seat in st.nil_seats and won[seat] == 0):
            return -1
        for s in st.nil_seats:
            if won[s] == 0 and s != seat and 13 - st.tricks_done - st.need(seat) >= HUNT_SLACK:
                return s
        return -1
    partner = (seat + 2) & 3
    for s in st.nil_seats:
        if won[s] == 0 and s in (seat, partner):
            return -1  # our own side's nil comes first
    for s in st.nil_seats:
        if won[s] == 0 and (s - seat) & 1:
            if 13 - st.tricks_done - st.need(seat) < HUNT_SLACK:
                return -1
            return s
    return -1


def hunt_card(st: PlayState, seat: int, target: int, legal: int) -> int:
    """The hunter's card against `target`'s standing nil, or -1 to play the usual card."""
    trick = st.trick
    hand = st.hands[seat]
    hidden = st.deck & ~st.played & ~hand
    partner = (seat + 2) & 3 if st.partnership else -1
    if trick and partner in st.nil_seats and (st.leader + winning_index(trick)) & 3 == partner:
        return -1  # a nil partner (its nil broken) winning the trick: it is covered as usual
    if not trick:
        return _hunt_lead(st, legal, hidden, target) if HUNT_LEAD else -1
    led = SUIT_OF[trick[0]]
    at = winning_index(trick)
    win = trick[at]
    win_seat = (st.leader + at) & 3
    n_after = 3 - len(trick)
    target_after = 0 < (target - seat) & 3 <= n_after
    follow = legal & SUIT_MASKS[led]
    trumped = SUIT_OF[win] != led
    if win_seat == target:
        if follow:
            if trumped:
                return -1  # the nil ruffed: it wins whatever we follow with
            under = follow & _below(win)
            return _high(under) if under else -1
        if legal & NON_SPADE:
            return _discard_high(legal)
        if trumped:
            under = legal & _below(win)
            return _high(under) if under else -1
        return -1
    if not target_after:
        return -1
    # The nil bidder plays after us: keep the bar low.
    if not HUNT_COVERED and st.partnership:
        cover = (target + 2) & 3
        if win_seat == cover or 0 < (cover - seat) & 3 < (target - seat) & 3:
            return -1  # their partner sets the bar: play as usual
    if follow:
        if trumped:
            return -1  # a spade wins: the nil's card of the suit is safe whatever we play
        under = follow & _below(win)
        return _high(under) if under else _low(follow)
    if legal & NON_SPADE:
        return _discard_high(legal)
    return -1


def _hunt_lead(st: PlayState, legal: int, hidden: int, target: int) -> int:
    """A low card of a suit the nil bidder still holds, with few unseen cards under it."""
    best = -1
    best_key = 99
    voids = st.voids[target]
    if HUNT_AVOID_COVER_VOID:
        cover = (target + 2) & 3
        if not st.voids[cover] >> SPADES & 1:
            voids |= st.voids[cover]
    for suit in range(4):
        cards = legal & SUIT_MASKS[suit]
        if not cards or voids >> suit & 1:
            continue
        if suit == SPADES and legal & NON_SPADE and not HUNT_LEAD_SPADES:
            continue
        c = _low(cards)
        under = (hidden & _below(c)).bit_count()
        if under > HUNT_LEAD_MAX_UNDER:
            continue
        key = under * 16 + RANK_OF[c]
        if key < best_key:
            best_key = key
            best = c
    return best


COVER_RUFF_LOW = True  # covering a nil partner still to play: ruff with the lowest spade that wins


def cover_card(st: PlayState, seat: int, legal: int) -> int:
    """The coverer's card when its partner's nil stands and the partner plays after it in this
    trick, or -1 for the usual card: void in the led suit, the lowest spade that takes the
    trick (the nil only needs the trick to be ours, not a high trump spent on it)."""
    trick = st.trick
    if not COVER_RUFF_LOW or not trick or not st.partnership:
        return -1
    partner = (seat + 2) & 3
    if partner not in st.nil_seats or st.tricks_won[partner] or seat in st.nil_seats:
        return -1
    if not 0 < (partner - seat) & 3 <= 3 - len(trick):
        return -1
    led = SUIT_OF[trick[0]]
    if legal & SUIT_MASKS[led] or led == SPADES:
        return -1
    win = trick[winning_index(trick)]
    spades = legal & SPADE_MASK
    over = spades & ~((2 << win) - 1) if SUIT_OF[win] == SPADES else spades
    return _low(over) if over else -1


NIL_DISCARD = True  # a nil bidder's discard: from the suit it could least duck


def nil_discard(st: PlayState, seat: int, legal: int) -> int:
    """The seat's own standing nil, void in the led suit with side cards to throw: the highest
    card of the side suit whose lowest card has the most unseen cards under it (the suit it is
    likeliest to be forced in), or -1 for the usual card."""
    trick = st.trick
    if not NIL_DISCARD or not trick or seat not in st.nil_seats or st.tricks_won[seat]:
        return -1
    hand = st.hands[seat]
    if legal & SUIT_MASKS[SUIT_OF[trick[0]]]:
        return -1
    side = legal & NON_SPADE
    if not side:
        return -1
    hidden = st.deck & ~st.played & ~hand
    best = -1
    best_key = -1
    for suit in range(3):
        cards = side & SUIT_MASKS[suit]
        if not cards:
            continue
        low = _low(cards)
        key = (hidden & _below(low)).bit_count() * 16 + RANK_OF[_high(cards)]
        if key > best_key:
            best_key = key
            best = _high(cards)
    return best
