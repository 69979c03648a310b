"""What one seat knows, as ints and bit masks: built from a view, or kept up to date in rollouts.

A `PlayState` holds the public facts of the hand in progress (cards played, the trick on the
table, who has shown out of which suit, bids and tricks taken) plus the hands the holder knows:
from a view only the seat's own hand is filled in; in a sampled world (the strong bot) all four
are, and every seat's policy still reads only its own hand and the public facts.
"""

from __future__ import annotations

from types import FunctionType
from typing import Any, Final

from spades.engine.cards import (
    FULL_DECK,
    NON_SPADE_MASK,
    SPADES,
    SUIT_MASKS,
    SUIT_OF,
    deck_of,
    parse_card,
)
from spades.engine.rules import DEFAULT_RULES

NIL: Final = 0
UNKNOWN: Final = -1
# The engine's tables as this module's own constants: a compiled build reads a `Final` name
# from a C variable, an imported one from the module's dict (play and winning_index are the
# rollouts' hottest calls).
_SUIT_OF: Final[tuple[int, ...]] = SUIT_OF
_SPADES: Final[int] = SPADES
_SUIT_MASKS: Final[tuple[int, ...]] = SUIT_MASKS
_NON_SPADE_MASK: Final[int] = NON_SPADE_MASK


def legal_mask(hand: int, first_card: int, broken: bool, must_break: bool) -> int:
    """`spades.engine.fast.legal_mask`, here so that a compiled build (`spades.bots.native`)
    calls it natively from the rollouts (about a tenth of their CPU when it was a call into
    Python); tests/bots/test_bots_native.py checks that the two agree on every input."""
    if first_card >= 0:
        return (hand & _SUIT_MASKS[first_card // 13]) or hand
    if must_break and not broken:
        return (hand & _NON_SPADE_MASK) or hand
    return hand


def popcount(mask: int) -> int:
    """`mask.bit_count()` (mask >= 0). A compiled build runs this loop natively, where the
    method is a call back into Python; run as Python, the name is the method itself (below)."""
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


if isinstance(popcount, FunctionType):  # the source runs as Python: int.bit_count is faster
    globals()["popcount"] = int.bit_count


def bits(mask: int) -> list[int]:
    """The cards of a mask, lowest first: the engine's `cards_of`, compiled with the bots."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def bid_value(bid: Any) -> int:
    """A view's bid (None | int | "nil" | "blind nil") as an int: -1 unknown, 0 nil."""
    if bid is None:
        return UNKNOWN
    if isinstance(bid, str):
        return NIL
    return int(bid)


class PlayState:
    """The card-play state of one hand, as one seat (or a simulation of all four) sees it."""

    __slots__ = (
        "bag_limit",
        "bags",
        "bids",
        "blind",
        "broken",
        "contract",
        "count_seats",
        "deck",
        "hands",
        "leader",
        "must_break",
        "nil_counts",
        "nil_seats",
        "partnership",
        "played",
        "scores",
        "target",
        "trick",
        "tricks_done",
        "tricks_won",
        "voids",
    )

    def __init__(self) -> None:
        self.hands: list[int] = [0, 0, 0, 0]
        self.played = 0  # every card played this hand, the current trick's included
        self.trick: list[int] = []
        self.leader = 0
        self.voids: list[int] = [0, 0, 0, 0]  # bit s set: the seat has shown out of suit s
        self.bids: list[int] = [UNKNOWN] * 4
        self.blind: list[bool] = [False] * 4
        self.tricks_won: list[int] = [0, 0, 0, 0]
        self.tricks_done = 0
        self.broken = False
        self.must_break = True
        self.partnership = True
        self.nil_counts = False  # rules.nil_tricks_count_for_partner
        self.deck = FULL_DECK  # the cards dealt (rules.jokers, rules.deuces: another deck)
        self.scores: list[int] = []
        self.bags: list[int] = []
        self.bag_limit = DEFAULT_RULES.bag_limit
        self.target = DEFAULT_RULES.target
        self.contract: list[int] = [0, 0, 0, 0]  # per seat: its side's contract
        self.count_seats: list[tuple[int, ...]] = [(), (), (), ()]  # tricks toward it
        self.nil_seats: tuple[int, ...] = ()

    def prepare(self) -> None:
        """Derive the per-seat contract facts once the bids are known."""
        contracts = [0, 0, 0, 0]
        count_seats: list[tuple[int, ...]] = [(), (), (), ()]
        for seat in range(4):
            contract = 0
            counting = []
            for s in self.side_seats(seat):
                b = self.bids[s]
                if b > 0:
                    contract += b
                    counting.append(s)
                elif b == NIL and self.nil_counts:
                    counting.append(s)
            contracts[seat] = contract
            count_seats[seat] = tuple(counting)
        self.contract = contracts  # fresh lists: copies share the old ones
        self.count_seats = count_seats
        self.nil_seats = tuple(s for s in range(4) if self.bids[s] == NIL)

    def copy(self) -> PlayState:
        other = PlayState.__new__(PlayState)
        other.hands = self.hands[:]
        other.deck = self.deck
        other.played = self.played
        other.trick = self.trick[:]
        other.leader = self.leader
        other.voids = self.voids[:]
        other.bids = self.bids
        other.blind = self.blind
        other.tricks_won = self.tricks_won[:]
        other.tricks_done = self.tricks_done
        other.broken = self.broken
        other.must_break = self.must_break
        other.partnership = self.partnership
        other.nil_counts = self.nil_counts
        other.scores = self.scores
        other.bags = self.bags
        other.bag_limit = self.bag_limit
        other.target = self.target
        other.contract = self.contract
        other.count_seats = self.count_seats
        other.nil_seats = self.nil_seats
        return other

    def deal_from(self, src: PlayState, hands: list[int]) -> None:
        """Make this state what `src.copy()` would be with `hands` dealt, in its own lists: the
        search plays every rollout on one world, dealt again from the root each time."""
        mine = self.hands
        voids = self.voids
        won = self.tricks_won
        src_voids = src.voids
        src_won = src.tricks_won
        for s in range(4):
            mine[s] = hands[s]
            voids[s] = src_voids[s]
            won[s] = src_won[s]
        trick = self.trick
        trick.clear()
        trick.extend(src.trick)
        self.deck = src.deck
        self.played = src.played
        self.leader = src.leader
        self.bids = src.bids
        self.blind = src.blind
        self.tricks_done = src.tricks_done
        self.broken = src.broken
        self.must_break = src.must_break
        self.partnership = src.partnership
        self.nil_counts = src.nil_counts
        self.scores = src.scores
        self.bags = src.bags
        self.bag_limit = src.bag_limit
        self.target = src.target
        self.contract = src.contract
        self.count_seats = src.count_seats
        self.nil_seats = src.nil_seats

    @property
    def to_act(self) -> int:
        return (self.leader + len(self.trick)) & 3

    def legal(self, seat: int) -> int:
        trick = self.trick
        return legal_mask(self.hands[seat], trick[0] if trick else -1, self.broken, self.must_break)

    def play(self, card: int) -> int:
        """Play `card` for the seat to act; returns the winner once the trick is full, else -1."""
        # The search's rollouts call this millions of times: locals over repeated lookups.
        trick = self.trick
        n = len(trick)
        seat = (self.leader + n) & 3
        # (Each list item read and written as such: a compiled build runs `a[i] op= x` on
        # a list as generic Python arithmetic.)
        bit = 1 << card
        hands = self.hands
        hands[seat] = hands[seat] & ~bit
        self.played |= bit
        suit = _SUIT_OF[card]
        if suit == _SPADES:
            self.broken = True
        if n:
            led = _SUIT_OF[trick[0]]
            if suit != led:
                voids = self.voids
                voids[seat] = voids[seat] | 1 << led
        trick.append(card)
        if n < 3:
            return -1
        winner = (self.leader + winning_index(trick)) & 3
        won = self.tricks_won
        won[winner] = won[winner] + 1
        self.tricks_done += 1
        trick.clear()  # in place: a copy's trick is a list of its own
        self.leader = winner
        return winner

    # --- scoring helpers -----------------------------------------------------------------

    def side_seats(self, seat: int) -> tuple[int, ...]:
        return (seat & 1, (seat & 1) + 2) if self.partnership else (seat,)

    def need(self, seat: int) -> int:
        """Tricks the seat's side still needs for its contract (<= 0: made; 0 if no contract)."""
        contract = self.contract[seat]
        if contract == 0:
            return 0
        won = self.tricks_won
        for s in self.count_seats[seat]:
            contract -= won[s]
        return contract


def winning_index(trick: list[int]) -> int:
    win = -1
    win_suit = -1
    at = 0
    for i, c in enumerate(trick):  # (not indexed: a compiled build reads the items unchecked)
        suit = _SUIT_OF[c]
        if i == 0:
            win = c
            win_suit = suit
        elif suit == win_suit:
            if c > win:
                win = c
                at = i
        elif suit == _SPADES:  # the first trump (a trump already winning has win_suit SPADES)
            win = c
            win_suit = _SPADES
            at = i
    return at


def from_view(view: dict[str, Any]) -> PlayState:
    """The seat's knowledge from its own view."""
    st = PlayState()
    seat = int(view["seat"])
    rules = view.get("rules") or {}
    st.partnership = view.get("mode", rules.get("mode", DEFAULT_RULES.mode)) == "partnership"
    st.must_break = bool(rules.get("spades_must_be_broken", DEFAULT_RULES.spades_must_be_broken))
    st.nil_counts = bool(
        rules.get("nil_tricks_count_for_partner", DEFAULT_RULES.nil_tricks_count_for_partner)
    )
    st.bag_limit = int(rules.get("bag_limit", DEFAULT_RULES.bag_limit))
    st.deck = deck_of(
        bool(rules.get("jokers", DEFAULT_RULES.jokers)),
        bool(rules.get("deuces", DEFAULT_RULES.deuces)),
    )
    st.target = int(rules.get("target", DEFAULT_RULES.target))
    hand = view.get("hand")
    mask = 0
    for text in hand or ():
        mask |= 1 << parse_card(text)
    st.hands[seat] = mask
    st.bids = [bid_value(b) for b in view.get("bids") or [None] * 4]
    st.blind = [bool(b) for b in view.get("blind") or [False] * 4]
    st.tricks_won = list(view.get("tricks_won") or [0, 0, 0, 0])
    st.broken = bool(view.get("spades_broken"))
    st.scores = list(view.get("scores") or [])
    st.bags = list(view.get("bags") or [])
    played = 0
    voids = [0, 0, 0, 0]
    tricks = view.get("tricks") or []
    for trick in tricks:
        played |= _scan(trick.get("cards") or [], voids)
    st.tricks_done = len(tricks)
    current = view.get("current_trick")
    if current:
        st.leader = int(current["leader"])
        cards = current.get("cards") or []
        played |= _scan(cards, voids)
        st.trick = [parse_card(c["card"]) for c in cards]
    elif tricks:
        st.leader = int(tricks[-1]["winner"])
    else:
        st.leader = (int(view.get("dealer", 0)) + 1) & 3
    st.played = played
    st.voids = voids
    st.prepare()
    return st


def _scan(cards: list[dict[str, Any]], voids: list[int]) -> int:
    played = 0
    led = -1
    for entry in cards:
        c = parse_card(entry["card"])
        played |= 1 << c
        suit = SUIT_OF[c]
        if led < 0:
            led = suit
        elif suit != led:
            voids[int(entry["seat"])] |= 1 << led
    return played


def unseen(st: PlayState, seat: int) -> int:
    """Cards the seat cannot see: neither played nor in its own hand."""
    return st.deck & ~st.played & ~st.hands[seat]
