"""The hot path: trick play on integers and bit masks, shared by the game and the bots.

A `FastHand` is the card-play state of one hand (no bidding, no scoring, no text). The
`Game` delegates every play to it, and search bots copy it to simulate thousands of hands,
so it stays free of anything but ints and small lists.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence

from .cards import NON_SPADE_MASK, SPADES, SUIT_MASKS, SUIT_OF


class FastHand:
    __slots__ = (
        "broken",
        "hands",
        "leader",
        "must_break",
        "played",
        "to_act",
        "trick",
        "tricks_won",
        "win_card",
        "win_seat",
    )

    def __init__(
        self,
        hands: list[int],
        leader: int,
        *,
        must_break: bool = True,
        broken: bool = False,
    ) -> None:
        self.hands = list(hands)
        self.leader = leader
        self.to_act = leader
        self.must_break = must_break
        self.broken = broken
        self.trick: list[int] = []  # cards of the current trick, in play order from `leader`
        self.tricks_won = [0, 0, 0, 0]
        self.played = 0  # cards played this hand
        self.win_card = -1
        self.win_seat = -1

    def copy(self) -> FastHand:
        other = FastHand.__new__(FastHand)
        other.hands = self.hands[:]
        other.leader = self.leader
        other.to_act = self.to_act
        other.must_break = self.must_break
        other.broken = self.broken
        other.trick = self.trick[:]
        other.tricks_won = self.tricks_won[:]
        other.played = self.played
        other.win_card = self.win_card
        other.win_seat = self.win_seat
        return other

    @property
    def done(self) -> bool:
        return self.played == 52

    @property
    def led_suit(self) -> int:
        return SUIT_OF[self.trick[0]] if self.trick else -1

    def legal(self) -> int:
        """Mask of the cards the seat to act may play."""
        trick = self.trick
        return legal_mask(
            self.hands[self.to_act], trick[0] if trick else -1, self.broken, self.must_break
        )

    def play(self, card: int) -> int:
        """Play `card` (assumed legal) for the seat to act. Returns the trick winner, or -1."""
        seat = self.to_act
        self.hands[seat] ^= 1 << card
        self.played += 1
        suit = card // 13
        if suit >= SPADES:
            self.broken = True
        if not self.trick:
            self.win_card = card
            self.win_seat = seat
        else:
            win = self.win_card
            ws = win // 13  # (4 for a joker or a Deuce-Deuce deuce: a trump above every spade)
            if (suit == ws and card > win) or (suit >= SPADES and (ws < SPADES or card > win)):
                self.win_card = card
                self.win_seat = seat
        self.trick.append(card)
        if len(self.trick) < 4:
            self.to_act = (seat + 1) & 3
            return -1
        winner = self.win_seat
        self.tricks_won[winner] += 1
        self.trick = []
        self.leader = winner
        self.to_act = winner
        return winner


def legal_mask(hand: int, first_card: int, broken: bool, must_break: bool) -> int:
    """The cards of `hand` that may be played on a trick led by `first_card` (-1: leading).

    Follow suit if you can; lead a spade only once spades are broken (when `must_break`)
    or when you hold nothing else. The one statement of these rules on the fast path.
    """
    if first_card >= 0:
        return (hand & SUIT_MASKS[first_card // 13]) or hand
    if must_break and not broken:
        return (hand & NON_SPADE_MASK) or hand
    return hand


def trick_winner(leader: int, cards: list[int]) -> int:
    """The seat that wins a trick of `cards` played in order starting from `leader`."""
    win = cards[0]
    at = 0
    for i in range(1, len(cards)):
        c = cards[i]
        s, ws = c // 13, win // 13
        if (s == ws and c > win) or (s >= SPADES and (ws < SPADES or c > win)):
            win = c
            at = i
    return (leader + at) & 3


def random_deal(rng: random.Random) -> list[int]:
    """Four 13-card masks from a seeded RNG (for simulations; games deal from hand seeds)."""
    deck = list(range(52))
    rng.shuffle(deck)
    return [_mask(deck[13 * s : 13 * s + 13]) for s in range(4)]


def _mask(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# --- Deals you can check -------------------------------------------------------------
# A game has one secret master seed. Each hand's seed is HMAC-SHA256(master, "hand:N"), so
# revealing a finished hand's seed reveals nothing about later hands. The deal is a
# Fisher-Yates shuffle driven by SHA-256, simple to re-implement in any language
# (docs/protocol.md shows how), and the commitment published before play is
# SHA-256("spades-deal:" + hand seed).


def hand_seed(master_seed: str, hand_number: int) -> str:
    mac = hmac.new(master_seed.encode(), f"hand:{hand_number}".encode(), hashlib.sha256)
    return mac.hexdigest()[:32]


def first_dealer_from_seed(master_seed: str) -> int:
    mac = hmac.new(master_seed.encode(), b"first-dealer", hashlib.sha256)
    return mac.digest()[0] % 4


def deal_from_seed(seed: str, cards: Sequence[int] | None = None) -> list[int]:
    """Shuffle 0..51: for i = 51..1, swap deck[i] with deck[j], j = SHA-256(seed:i) mod (i+1).

    Seat s receives deck[13*s : 13*s + 13]. With `cards` (the 52 card numbers of another
    deck, lowest first: the jokers or Deuce-Deuce deck), position k of the shuffle is cards[k].
    """
    deck = list(range(52))
    for i in range(51, 0, -1):
        digest = hashlib.sha256(f"{seed}:{i}".encode()).digest()
        j = int.from_bytes(digest, "big") % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    if cards is not None:
        deck = [cards[k] for k in deck]
    return [_mask(deck[13 * s : 13 * s + 13]) for s in range(4)]


def deal_commitment(seed: str) -> str:
    return hashlib.sha256(f"spades-deal:{seed}".encode()).hexdigest()
