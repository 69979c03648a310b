"""Cards: a fast integer layer (card = 0..51, 52..55 for the house rules' top trumps; hand = a
bit mask) and a friendly `Card` value.

Card number = suit * 13 + rank, with suits C, D, H, S = 0..3 and ranks 2..A = 0..12,
so within a suit a higher number is a higher card and spades are 39..51. Above them lie
the top trumps of the house rules, lowest first: under `deuces` (Deuce-Deuce) the 2 of
spades is 52 ("DS") and the 2 of diamonds 53 ("DD") in place of 39 and 13; under `jokers`
the Little Joker is 54 and the Big Joker 55 ("LJ", "BJ"). They are trumps (`SUIT_OF` 3, in
`SUIT_MASKS[SPADES]`), and `card // 13` is 4 for them, so the fast layer compares them as
numbers with no table.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SUITS = "CDHS"
RANKS = "23456789TJQKA"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3

SUIT_NAMES = ("Clubs", "Diamonds", "Hearts", "Spades")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
RANK_NAMES = (
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
    "Ace",
)

# The top trumps, above the ace of spades, lowest first.
DEUCE_OF_SPADES, DEUCE_OF_DIAMONDS, LITTLE_JOKER, BIG_JOKER = 52, 53, 54, 55
DEUCE_MASK = 3 << 52
JOKER_MASK = 3 << 54
TOP_TRUMPS = DEUCE_MASK | JOKER_MASK
FULL_SUIT = (1 << 13) - 1
# Indexed by `card // 13`: the fifth entry is the top trumps', which are trumps like spades.
SUIT_MASKS = (
    *(FULL_SUIT << (13 * s) for s in range(3)),
    FULL_SUIT << 39 | TOP_TRUMPS,
    FULL_SUIT << 39 | TOP_TRUMPS,
)
SPADE_MASK = SUIT_MASKS[SPADES]
NON_SPADE_MASK = SUIT_MASKS[CLUBS] | SUIT_MASKS[DIAMONDS] | SUIT_MASKS[HEARTS]
FULL_DECK = (1 << 52) - 1
# The jokers deck: the 2 of clubs and the 2 of hearts out, the two jokers in.
JOKER_DECK = (FULL_DECK & ~(1 << 0) & ~(1 << 26)) | JOKER_MASK
# Deuce-Deuce (with jokers): the 2 of diamonds and the 2 of spades as the trumps 53 and 52.
PROMOTED = {13: DEUCE_OF_DIAMONDS, 39: DEUCE_OF_SPADES}
DEUCE_DECK = (JOKER_DECK & ~(1 << 13) & ~(1 << 39)) | DEUCE_MASK
ALL_CARDS = 56  # card numbers are 0..55
# The suit a card follows as (the top trumps are spades) and its rank (they are above the ace).
SUIT_OF: tuple[int, ...] = (*(c // 13 for c in range(52)), SPADES, SPADES, SPADES, SPADES)
RANK_OF: tuple[int, ...] = (*(c % 13 for c in range(52)), 13, 14, 15, 16)

_TEXT = (*(RANKS[c % 13] + SUITS[c // 13] for c in range(52)), "DS", "DD", "LJ", "BJ")
_TOP_TEXT = {"DS": DEUCE_OF_SPADES, "DD": DEUCE_OF_DIAMONDS, "LJ": LITTLE_JOKER, "BJ": BIG_JOKER}
_TOP_NAMES = ("Deuce of Spades", "Deuce of Diamonds", "Little Joker", "Big Joker")


def deck_of(jokers: bool, deuces: bool) -> int:
    """The mask of the 52 cards dealt: the standard deck, the jokers deck, or (with both)
    the Deuce-Deuce deck."""
    if not jokers:
        return FULL_DECK
    return DEUCE_DECK if deuces else JOKER_DECK


def as_dealt(card: int, deuces: bool) -> int:
    """`card` as the deck of the rules has it: under Deuce-Deuce the plain 2 of diamonds
    and 2 of spades (13, 39: what `parse_card` reads "2D" and "2S" as) are the trumps
    `DD` and `DS`; any other card is itself."""
    return PROMOTED.get(card, card) if deuces else card


class CardParseError(ValueError):
    """Text that is not a card."""


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def card_text(card: int) -> str:
    """`0` -> `'2C'`, `51` -> `'AS'`."""
    return _TEXT[card]


def parse_card(text: str) -> int:
    """Parse `AS`, `th`, `10H`, `2c` into a card number."""
    if not isinstance(text, str):
        raise CardParseError(f"a card is text like 'AS', not {text!r}")
    raw = text.strip().upper()
    if raw in _TOP_TEXT:
        return _TOP_TEXT[raw]
    if len(raw) == 3 and raw.startswith("10"):
        raw = "T" + raw[2]
    if len(raw) != 2 or raw[0] not in RANKS or raw[1] not in SUITS:
        raise CardParseError(f"not a card: {text!r} (write rank then suit, e.g. 'AS', 'TH', '2C')")
    return SUITS.index(raw[1]) * 13 + RANKS.index(raw[0])


def card_name(card: int) -> str:
    """`50` -> `'King of Spades'`."""
    if card >= DEUCE_OF_SPADES:
        return _TOP_NAMES[card - DEUCE_OF_SPADES]
    return f"{RANK_NAMES[card % 13]} of {SUIT_NAMES[card // 13]}"


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


# The ranks (0..12) set in each 13-bit suit mask, lowest first: a hand's cards are read a
# suit at a time from this table, without an operation on the 52-bit mask per card (each of
# which makes a new integer object, as masks are past 30 bits).
RANKS_IN: tuple[tuple[int, ...], ...] = tuple(
    tuple(r for r in range(13) if m >> r & 1) for m in range(1 << 13)
)
_SUIT_CARDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(range(13 * s, 13 * s + 13)) for s in range(5)
)


def cards_of(mask: int) -> list[int]:
    """Card numbers in a mask, lowest first (clubs 2 .. spades A)."""
    out: list[int] = []
    for s in range(4):
        ranks = RANKS_IN[mask >> (13 * s) & 0x1FFF]
        if ranks:
            out += map(_SUIT_CARDS[s].__getitem__, ranks)
    if mask >> 52:
        out += map(_SUIT_CARDS[4].__getitem__, RANKS_IN[mask >> 52])
    return out


def iter_cards(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: int) -> int:
    return mask.bit_count()


def highest(mask: int) -> int:
    """The highest card number in a non-empty mask."""
    return mask.bit_length() - 1


def lowest(mask: int) -> int:
    """The lowest card number in a non-empty mask."""
    return (mask & -mask).bit_length() - 1


class Card(int):
    """One card, an int 0..55 (`ALL_CARDS`) with a parser, a formatter and a name for people.

    >>> Card.parse("10h")
    Card.parse('TH')
    >>> Card.parse("QS").name
    'Queen of Spades'
    """

    __slots__ = ()

    def __new__(cls, number: int) -> Card:
        if not 0 <= number < ALL_CARDS:
            raise CardParseError(f"card numbers are 0..{ALL_CARDS - 1}, not {number}")
        return super().__new__(cls, number)

    @classmethod
    def parse(cls, text: str) -> Card:
        return cls(parse_card(text))

    @property
    def suit(self) -> int:
        return int(self) // 13

    @property
    def rank(self) -> int:
        return int(self) % 13

    @property
    def text(self) -> str:
        return _TEXT[self]

    @property
    def name(self) -> str:
        return card_name(self)

    @property
    def symbol(self) -> str:
        if self >= LITTLE_JOKER:
            return "🃏" + self.text[0]
        if self >= DEUCE_OF_SPADES:
            return "2" + SUIT_SYMBOLS[SPADES if self == DEUCE_OF_SPADES else DIAMONDS]
        return RANKS[self.rank].replace("T", "10") + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.parse({self.text!r})"


def sort_for_display(cards: Iterable[int]) -> list[int]:
    """The top trumps (the Big Joker first) and spades first, then hearts, clubs, diamonds
    (alternating colours), high to low."""
    order = {4: 0, SPADES: 0, HEARTS: 1, CLUBS: 2, DIAMONDS: 3}
    return sorted(cards, key=lambda c: (order[c // 13], -RANK_OF[c]))
