"""docs/rules.md "Deuce-Deuce (with jokers)": the deck, the order of the trumps, the 2 of
diamonds following as a spade, the texts and each worked example."""

from __future__ import annotations

import pytest
from engine_helpers import bid_all, make

from spades.engine import ActionError, Game, Rules, RulesError, card_text, parse_card
from spades.engine.cards import DEUCE_DECK, SPADE_MASK, cards_of, sort_for_display
from spades.engine.record import load_hand

DECK = [card_text(c) for c in cards_of(DEUCE_DECK)]
RULES = {"jokers": True, "deuces": True}


def deal(**seats: list[str]) -> list[list[str]]:
    """Seats south/west/north/east get the cards named, then in seat order the rest of the
    deck: clubs first, then hearts, diamonds and trumps."""
    names = ("south", "west", "north", "east")
    hands = [list(seats.get(name, [])) for name in names]
    order = {"C": 0, "H": 1, "D": 2, "S": 3}
    rest = [c for c in DECK if not any(c in hand for hand in hands)]
    rest.sort(key=lambda c: order["S" if c in ("DD", "LJ", "BJ") else c[1]])
    for hand in hands:
        while len(hand) < 13:
            hand.append(rest.pop(0))
    return hands


def plays(game: Game) -> set[str]:
    return {a["card"] for a in game.legal_actions()}


def play(game: Game, *cards: str) -> None:
    for card in cards:
        game.apply(game.to_act, {"type": "play", "card": card})


def test_the_deck_its_trumps_and_their_texts() -> None:
    assert len(DECK) == 52 and not {"2C", "2H", "2D", "2S"} & set(DECK)
    assert DECK[-4:] == ["DS", "DD", "LJ", "BJ"]
    # 12 clubs, 12 diamonds, 12 hearts and 16 trumps.
    assert sum(1 for c in cards_of(DEUCE_DECK) if SPADE_MASK >> c & 1) == 16
    assert [card_text(c) for c in sort_for_display(cards_of(DEUCE_DECK))][:6] == [
        "BJ",
        "LJ",
        "DD",
        "DS",
        "AS",
        "KS",
    ]
    game = Game.new(Rules(**RULES), seed="deck")
    assert sorted(c for h in game.dealt for c in cards_of(h)) == cards_of(DEUCE_DECK)
    with pytest.raises(RulesError, match="needs jokers"):
        Rules(deuces=True)


def test_the_2_of_diamonds_beats_the_2_of_spades_beats_the_ace() -> None:
    # West leads the ace of spades, North the 2 of spades, East the 2 of diamonds, South the
    # king: East wins. With the Little Joker from South, South wins.
    hands = deal(west=["AS"], north=["DS"], east=["DD"], south=["KS", "LJ"])
    for last, winner in (("KS", 3), ("LJ", 0)):
        game = make(hands, dealer=0, spades_must_be_broken=False, **RULES)
        bid_all(game, [3, 3, 3, 3])
        play(game, "AS", "DS", "DD", last)
        assert game.trick_log[0][2] == winner


def test_the_2_of_diamonds_does_not_follow_diamonds() -> None:
    # South leads the 3 of diamonds; North holds the 2 of diamonds and no other diamond.
    hearts = [f"{r}H" for r in "3456789TJQK"]
    spades = [f"{r}S" for r in "3456789TJQK"]
    hands = deal(south=["3D"], west=["9D", "QD", *hearts], north=["DD", "AH", *spades])
    game = make(hands, dealer=3, **RULES)
    bid_all(game, [3, 3, 3, 3])
    play(game, "3D")
    assert plays(game) == {"9D", "QD"}
    play(game, "9D")
    assert "DD" in plays(game)  # out of diamonds: North may trump with the deuce
    play(game, "DD")
    assert all(c.endswith("D") for c in plays(game))  # East follows diamonds
    play(game, sorted(plays(game))[0])
    assert game.trick_log[0][2] == 2 and game.spades_broken


def test_a_deuce_with_diamonds_in_hand_must_still_follow_diamonds() -> None:
    # West holds the 2 of diamonds and the 9 of diamonds: West must play the 9.
    hearts = [f"{r}H" for r in "3456789TJQK"]
    game = make(deal(south=["3D"], west=["DD", "9D", *hearts]), dealer=3, **RULES)
    bid_all(game, [3, 3, 3, 3])
    play(game, "3D")
    assert plays(game) == {"9D"}
    with pytest.raises(ActionError, match="follow suit: diamonds"):
        game.apply(1, {"type": "play", "card": "DD"})


def test_a_deuce_led_calls_for_spades() -> None:
    # South leads the 2 of diamonds; West holds the 4 of spades and no other trump.
    hands = deal(south=["DD", "AC"], west=["4S"], north=["DS"])
    assert not {"LJ", "BJ"} & set(hands[1] + hands[2])
    game = make(hands, dealer=3, spades_must_be_broken=False, **RULES)
    bid_all(game, [3, 3, 3, 3])
    play(game, "DD")
    assert plays(game) == {"4S"}
    play(game, "4S")
    assert plays(game) == {"DS"}  # North's only trump is the other deuce
    play(game, "DS")
    assert game.play.trick == [53, 41, 52]  # DD, 4S, DS


def test_a_deuce_is_not_led_before_spades_are_broken() -> None:
    game = make(deal(south=["DD", "DS", "AC"]), dealer=3, **RULES)
    bid_all(game, [3, 3, 3, 3])
    assert not {"DD", "DS"} & plays(game)
    with pytest.raises(ActionError, match="cannot be led"):
        game.apply(0, {"type": "play", "card": "DD"})


def test_mirror_counts_both_deuces_as_spades() -> None:
    # North holds the 2 of diamonds, the 2 of spades and the king of spades: North bids 3.
    hands = deal(north=["DD", "DS", "KS"])
    assert sum(c in ("LJ", "BJ") or c.endswith("S") for c in hands[2]) == 2
    game = make(hands, dealer=3, mirror=True, **RULES)
    for _ in range(2):
        game.apply(game.to_act, game.legal_actions()[0])
    assert game.to_act == 2 and [a["bid"] for a in game.legal_actions()] == [3]


def test_2d_and_2s_are_read_as_the_deuces_and_written_dd_and_ds() -> None:
    hands = deal(west=["AS"], north=["DS"], east=["DD"], south=["KS"])
    plain = [["2D" if c == "DD" else "2S" if c == "DS" else c for c in h] for h in hands]
    game = make(plain, dealer=0, spades_must_be_broken=False, **RULES)
    assert "DD" in game.view(3)["hand"] and "2D" not in game.view(3)["hand"]
    bid_all(game, [3, 3, 3, 3])
    play(game, "AS", "2s", "2D", "KS")
    assert [a["action"].get("card") for a in game.to_record()["actions"][4:]] == [
        "AS",
        "DS",
        "DD",
        "KS",
    ]
    assert game.trick_log[0][2] == 3
    assert Game.from_record(game.to_record()).state_key() == game.state_key()
    # Without Deuce-Deuce, "DD" is no card of the deck.
    standard = make(dealer=3)
    bid_all(standard, [3, 3, 3, 3])
    with pytest.raises(ActionError, match="not in your hand"):
        standard.apply(0, {"type": "play", "card": "DD"})
    assert parse_card("dd") == 53 and parse_card("2D") == 13


def test_a_hand_record_replays_under_deuce_deuce() -> None:
    hands = deal(west=["AS"], north=["DS"], east=["DD"], south=["KS"])
    rules = {**RULES, "spades_must_be_broken": False}
    record = {"rules": rules, "dealer": 0, "hands": hands, "bids": [3, 3, 3, 3]}
    record["plays"] = ["AS", "2S", "DD", "KS"]
    game = load_hand(record)
    assert game.trick_log[0][2] == 3


def test_a_deuce_deuce_game_replays_from_its_record() -> None:
    game = Game.new(Rules(**RULES), seed="replay")
    bid_all(game, [3, 3, 3, 3])
    for _ in range(52):
        game.apply(game.to_act, game.legal_actions()[-1])
    assert sum(game.history[0]["tricks"]) == 13
    assert Game.from_record(game.to_record()).state_key() == game.state_key()
