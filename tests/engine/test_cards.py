import pytest

from spades.engine import Card, CardParseError, card_name, card_text, parse_card
from spades.engine.cards import cards_of, mask_of, sort_for_display


@pytest.mark.parametrize(
    ("text", "expected"),
    [("AS", "AS"), ("TH", "TH"), ("10H", "TH"), ("2c", "2C"), ("qd", "QD"), (" ks ", "KS")],
)
def test_parse_and_format(text: str, expected: str) -> None:
    assert card_text(parse_card(text)) == expected


@pytest.mark.parametrize("bad", ["", "1S", "AX", "11H", "ASS", "S", 5, None])
def test_parse_rejects_non_cards(bad: object) -> None:
    with pytest.raises(CardParseError):
        parse_card(bad)  # type: ignore[arg-type]


def test_numbers_order_ranks_within_suits() -> None:
    assert parse_card("2C") == 0
    assert parse_card("AC") == 12
    assert parse_card("2S") == 39
    assert parse_card("AS") == 51
    assert parse_card("KH") < parse_card("AH")


def test_full_names() -> None:
    assert card_name(parse_card("QS")) == "Queen of Spades"
    assert Card.parse("10d").name == "Ten of Diamonds"
    assert Card.parse("2c").name == "Two of Clubs"


def test_card_value_type_round_trips_through_repr() -> None:
    card = Card.parse("th")
    assert repr(card) == "Card.parse('TH')"
    assert eval(repr(card)) == card
    assert str(card) == "TH"
    assert card.symbol == "10♥"
    with pytest.raises(CardParseError):
        Card(56)
    assert Card.parse("bj").name == "Big Joker" and Card(54).text == "LJ"
    # Deuce-Deuce's trumps: the 2 of spades (52) below the 2 of diamonds (53), then the jokers.
    assert [Card(c).text for c in range(52, 56)] == ["DS", "DD", "LJ", "BJ"]
    assert Card.parse("dd").name == "Deuce of Diamonds" and Card.parse("DD").symbol == "2♦"
    assert Card.parse("ds").name == "Deuce of Spades" and Card.parse("DS").symbol == "2♠"


def test_masks() -> None:
    cards = [parse_card(t) for t in ("AS", "2C", "TH")]
    mask = mask_of(cards)
    assert mask.bit_count() == 3
    assert cards_of(mask) == sorted(cards)
    shown = [card_text(c) for c in sort_for_display(cards)]
    assert shown == ["AS", "TH", "2C"]
