"""docs/rules.md "Jokers": the deck, the order of the trumps, and each worked example."""

from __future__ import annotations

import pytest
from engine_helpers import bid_all, make

from spades.engine import ActionError, Game, Rules, card_text
from spades.engine.cards import JOKER_DECK, cards_of

DECK = [card_text(c) for c in cards_of(JOKER_DECK)]


def deal(**seats: list[str]) -> list[list[str]]:
    """Seats south/west/north/east get the cards named, the rest of the jokers deck in order."""
    names = ("south", "west", "north", "east")
    hands = [list(seats.get(name, [])) for name in names]
    rest = [c for c in DECK if not any(c in hand for hand in hands)]
    for hand in hands:
        while len(hand) < 13:
            hand.append(rest.pop(0))
    return hands


def plays(game: Game) -> set[str]:
    return {a["card"] for a in game.legal_actions()}


def test_the_jokers_deck_and_its_deal() -> None:
    assert len(DECK) == 52 and "2C" not in DECK and "2H" not in DECK
    assert DECK[-2:] == ["LJ", "BJ"]
    game = Game.new(Rules(jokers=True), seed="deck")
    assert sorted(c for h in game.dealt for c in cards_of(h)) == cards_of(JOKER_DECK)
    with pytest.raises(ValueError, match="deck"):
        make(deal(), dealer=3)  # a jokers deal under standard rules


def test_the_big_joker_beats_the_little_joker_beats_the_ace() -> None:
    hands = deal(east=["AS"], south=["LJ"], west=["KS"], north=["BJ"])
    game = make(hands, dealer=2, jokers=True, spades_must_be_broken=False)
    bid_all(game, [3, 3, 3, 3])
    for seat, card in ((3, "AS"), (0, "LJ"), (1, "KS"), (2, "BJ")):
        game.apply(seat, {"type": "play", "card": card})
    assert game.trick_log[0][2] == 2  # North


def test_a_joker_led_calls_for_spades() -> None:
    hearts = [f"{r}H" for r in "3456789TJQK"]
    diamonds = [f"{r}D" for r in "23456789TJQK"]
    hands = deal(south=["LJ"], west=["3S", *hearts, "3C"], north=["BJ", "AH", *diamonds[:11]])
    game = make(hands, dealer=3, jokers=True, spades_must_be_broken=False)
    bid_all(game, [3, 3, 3, 3])
    game.apply(0, {"type": "play", "card": "LJ"})
    assert plays(game) == {"3S"}
    with pytest.raises(ActionError, match="follow suit: spades"):
        game.apply(1, {"type": "play", "card": "3H"})
    game.apply(1, {"type": "play", "card": "3S"})
    assert plays(game) == {"BJ"}  # North's only trump is the other joker: it must follow
    game.apply(2, {"type": "play", "card": "BJ"})
    game.apply(3, game.legal_actions()[0])
    assert game.trick_log[0][2] == 2


def test_a_joker_is_not_led_before_spades_are_broken() -> None:
    spades = [f"{r}S" for r in "23456789TJQ"]
    hands = deal(south=["BJ", "AC", *spades])
    game = make(hands, dealer=3, jokers=True)
    bid_all(game, [3, 3, 3, 3])
    assert plays(game) == {"AC"}
    with pytest.raises(ActionError, match="cannot be led"):
        game.apply(0, {"type": "play", "card": "BJ"})


def test_a_jokers_game_replays_from_its_record() -> None:
    game = Game.new(Rules(jokers=True), seed="replay")
    bid_all(game, [3, 3, 3, 3])
    for _ in range(52):
        game.apply(game.to_act, game.legal_actions()[-1])
    assert sum(game.history[0]["tricks"]) == 13
    assert Game.from_record(game.to_record()).state_key() == game.state_key()


def test_a_jokers_deal_is_the_same_as_before_deuce_deuce() -> None:
    # The jokers' card numbers moved up by two for Deuce-Deuce's deuces (docs/rules.md); the
    # deal keeps each position's card, so a stored jokers game replays as it was played.
    # (These hands were dealt by the engine before that change, seed and rules as here.)
    game = Game.new(Rules(jokers=True), seed="stored-before-deuces")
    hands = [[card_text(c) for c in cards_of(m)] for m in game.dealt]
    assert hands[0] == [
        "3C",
        "4C",
        "5C",
        "6C",
        "AC",
        "2S",
        "4S",
        "5S",
        "8S",
        "TS",
        "KS",
        "AS",
        "LJ",
    ]
    assert hands[3] == [
        "9C",
        "TC",
        "JC",
        "6D",
        "JD",
        "4H",
        "6H",
        "9H",
        "TH",
        "3S",
        "JS",
        "QS",
        "BJ",
    ]
