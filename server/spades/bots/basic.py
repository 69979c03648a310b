"""The `basic` bot: card-counting heuristics for play, the bids of `bidding`. No search.

Play works on a `PlayState` (ints and masks), so the strong bot reuses `choose_card` as its
rollout policy for every seat of a sampled world.
"""

from __future__ import annotations

from typing import Any, Final

from spades.engine import cards
from spades.engine.cards import card_text

from .bidding import choose_bid, count_tricks, estimate_tricks, nil_danger
from .state import PlayState, from_view, legal_mask, popcount, winning_index

Action = dict[str, Any]
# The engine's tables as Final constants of the module: a compiled build (the strong bot's
# rollouts, `spades.bots.native`) reads them from C variables rather than the module's dict.
RANK_OF: Final[tuple[int, ...]] = cards.RANK_OF
SPADE_MASK: Final[int] = cards.SPADE_MASK
SPADES: Final[int] = cards.SPADES
SUIT_MASKS: Final[tuple[int, ...]] = cards.SUIT_MASKS
SUIT_OF: Final[tuple[int, ...]] = cards.SUIT_OF
NON_SPADE: Final[int] = cards.FULL_DECK & ~cards.SPADE_MASK
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


# Per card, the first card number of its suit and the one just past the suit's top (spades:
# past the top trumps), so that the masks below are arithmetic on small ints.
_SUIT_START: Final[tuple[int, ...]] = tuple(13 * SUIT_OF[c] for c in range(len(SUIT_OF)))
_SUIT_END: Final[tuple[int, ...]] = tuple(
    SUIT_MASKS[SUIT_OF[c]].bit_length() for c in range(len(SUIT_OF))
)


def _above(card: int) -> int:
    """Cards of the same suit ranked above `card`."""
    return (1 << _SUIT_END[card]) - (2 << card)


def _below(card: int) -> int:
    """Cards of the same suit ranked below `card`."""
    return (1 << card) - (1 << _SUIT_START[card])


# --- play ----------------------------------------------------------------------------------


# A seat's opponents, by whether it has a partner (index 1): the seats either side of it, or
# (index 0) all three.
_OPPONENTS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = (
    tuple(tuple(s for s in range(4) if s != seat) for seat in range(4)),
    tuple(((seat + 1) & 3, (seat + 3) & 3) for seat in range(4)),
)


_NO_SEATS: Final[list[int]] = []


def choose_card(st: PlayState, seat: int) -> int:
    """The card the basic policy plays for `seat` (reads only its own hand and public facts)."""
    hand = st.hands[seat]
    trick = st.trick
    legal = legal_mask(hand, trick[0] if trick else -1, st.broken, st.must_break)  # st.legal
    if legal & (legal - 1) == 0:
        return (legal & -legal).bit_length() - 1
    hidden = st.deck & ~st.played & ~hand
    partner = (seat + 2) & 3 if st.partnership else -1
    partner_nil = False
    opp_nils = _NO_SEATS  # never appended to: a list of its own only when a nil stands
    if st.nil_seats:
        opp_nils = []
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
        # Contract safe: take no bags unless setting an opponent is in reach (the margin
        # looked up only once an opponent still needs tricks).
        remaining = 13 - st.tricks_done
        margin = 0
        margin_known = False
        for s in _OPPONENTS[1 if partner >= 0 else 0][seat]:
            opp_need = st.need(s)
            if opp_need > 0:
                if not margin_known:
                    margin = _set_margin(st, seat, need)
                    margin_known = True
                if remaining - opp_need <= margin:
                    want_win = True
                    break
    if trick:
        return _follow(
            st, seat, hand, legal, hidden, partner, partner_nil, opp_nils, want_win, need
        )
    return _lead(st, seat, legal, hidden, partner, partner_nil, opp_nils, want_win)


def _set_margin(st: PlayState, seat: int, need: int) -> int:
    """Go for the set once the opponents need all but this many of the tricks left."""
    margin = SET_MARGIN["partnership" if st.partnership else "individual"]
    side = seat & 1 if st.partnership else seat
    if side < len(st.bags) and st.bags[side] - need >= st.bag_limit - NEAR_BAGS:
        margin = min(margin, SET_MARGIN_NEAR)
    return margin


def _boss(card: int, hidden: int) -> bool:
    return not (hidden & _above(card))


def _cheapest_equal(card: int, hand: int, hidden: int) -> int:
    """The lowest card of the hand that is as good as `card` (no hidden card between them)."""
    low = card
    suit_hand = hand & SUIT_MASKS[SUIT_OF[card]]
    c = card - 1
    while c >= 13 * (SUIT_OF[card]):
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
        if st.voids[s] >> led & 1 or popcount(suit_left) <= 1:
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
        length = popcount(hand & SUIT_MASKS[suit])
        low = _low(cards)
        # Keep a guarded king or an ace; otherwise shorten the shortest suit.
        key = length + (3 if RANK_OF[low] >= 10 else 0)
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
            if best < 0 or RANK_OF[c] > RANK_OF[best]:
                best = c
    return best


def _low_rank(mask: int) -> int:
    best = -1
    for suit in range(4):
        cards = mask & SUIT_MASKS[suit]
        if cards:
            c = _low(cards)
            if best < 0 or RANK_OF[c] < RANK_OF[best]:
                best = c
    return best


def nil_follow(trick: list[int], legal: int) -> int:
    """A standing nil's card when it can follow the led suit (-1 when it cannot): the
    highest under the trick's winner (the highest of the suit when the trick is trumped:
    any card of it is safe), else the lowest (the highest when last: the trick is taken
    anyway). Normal's and Hard's own nil alone (`normal_individual.own_nil_card`) follow so
    too."""
    led = SUIT_OF[trick[0]]
    follow = legal & SUIT_MASKS[led]
    if not follow:
        return -1
    win = trick[winning_index(trick)]
    if SUIT_OF[win] != led:
        return _high(follow)
    under = follow & _below(win)
    if under:
        return _high(under)
    return _high(follow) if len(trick) == 3 else _low(follow)


def _nil_play(st: PlayState, seat: int, legal: int, hidden: int) -> int:
    trick = st.trick
    if not trick:
        side = legal & NON_SPADE
        return _low_rank(side or legal)
    card = nil_follow(trick, legal)
    if card >= 0:
        return card
    win = trick[winning_index(trick)]
    last = len(trick) == 3
    side = legal & NON_SPADE
    if side:
        return _high_rank(side)
    # Only spades left.
    if SUIT_OF[win] == SPADES:
        under = legal & _below(win)
        if under:
            return _high(under)
    return _high(legal) if last else _low(legal)


def _follow(
    st: PlayState,
    seat: int,
    hand: int,
    legal: int,
    hidden: int,
    partner: int,
    partner_nil: bool,
    opp_nils: list[int],
    want_win: bool,
    need: int,
) -> int:
    trick = st.trick
    led = SUIT_OF[trick[0]]
    at = winning_index(trick)
    win = trick[at]
    win_seat = (st.leader + at) & 3
    last = len(trick) == 3
    n_after = 3 - len(trick)  # seats still to play after this one: seat + 1 .. seat + n_after
    follow = legal & SUIT_MASKS[led]
    trumped = SUIT_OF[win] != led

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
        return _win_in_suit(st, seat, hand, follow, hidden, partner, win, win_seat, trumped)
    return _ruff(st, seat, hand, legal, hidden, partner, win, win_seat, trumped)


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
    hand: int,
    follow: int,
    hidden: int,
    partner: int,
    win: int,
    win_seat: int,
    trumped: bool,
) -> int:
    """Following suit with tricks still needed: win as cheaply as the cards allow."""
    trick = st.trick
    led = SUIT_OF[trick[0]]
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
    hand: int,
    legal: int,
    hidden: int,
    partner: int,
    win: int,
    win_seat: int,
    trumped: bool,
) -> int:
    """Void in the led suit with tricks still needed: ruff, unless the partner has it."""
    spades = legal & SPADE_MASK
    if win_seat == partner:
        last = len(st.trick) == 3
        led = SUIT_OF[st.trick[0]]
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
    for o in _OPPONENTS[1 if partner >= 0 else 0][seat]:
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
        if best < 0 or RANK_OF[c] < RANK_OF[best]:
            best = c
    if best >= 0 and RANK_OF[best] <= 7:
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
        n_hidden = popcount(hidden & SPADE_MASK)
        if _boss(top, hidden) and n_hidden:
            return top
        if popcount(spades) >= 4 and popcount(spades) > n_hidden // 2:
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
        length = popcount(cards)
        key = length
        top = _high(cards)
        if RANK_OF[top] == 11 and not _boss(top, hidden) and length <= 2:
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


__all__ = ["choose_bid", "choose_card", "count_tricks", "decide", "estimate_tricks", "nil_danger"]
