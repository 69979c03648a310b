"""Every bot level plays the house-rule presets legally (every move in `legal`) and
sensibly (the minimum team bid is met by the bots' own bids)."""

from __future__ import annotations

import pytest

from spades.bots import LEVELS, decide
from spades.bots.strong import decide_strong
from spades.engine import Game, Rules, card_text, parse_card
from spades.engine.cards import DEUCE_DECK, JOKER_DECK, cards_of, mask_of
from spades.rooms.settings import RULE_PRESETS


def bot_action(level: str, game: Game, seed: int) -> dict:
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    if level == "strong":
        action = decide_strong(view, seed=seed, iterations=8, budget_ms=1e9)
    else:
        action = decide(level, view, seed=seed)
    assert action in view["legal"], (level, action, view["legal"])
    return action


@pytest.mark.parametrize("preset", [name for name in RULE_PRESETS if name != "Classic"])
@pytest.mark.parametrize("level", LEVELS)
def test_bots_play_a_preset_legally(preset: str, level: str) -> None:
    rules = Rules.from_dict({**RULE_PRESETS[preset], "target": 200})
    game = Game.new(rules, seed=f"{preset}-{level}")
    hands = 1 if level == "strong" else 3
    step = 0
    while game.phase != "over" and game.hand_number <= hands:
        game.apply(game.to_act, bot_action(level, game, step))
        step += 1
    assert game.history
    least = rules.min_team_bid
    for h in game.history:
        bids = [0 if isinstance(b, str) else b for b in h["bids"]]
        assert bids[0] + bids[2] >= least and bids[1] + bids[3] >= least


def test_jokers_count_as_the_top_trumps_in_a_bid() -> None:
    from spades.bots.bidding import as_standard

    hand = mask_of(parse_card(c) for c in ("BJ", "LJ", "AS", "4S", "3S", "2S"))
    # Big Joker as the ace, Little Joker as the king, the ace as the queen; the 4, 3 and 2
    # of spades have no place below the 2: they take the lowest free ones (2, 3 and 4).
    assert cards_of(as_standard(hand, True, False)) == [39, 40, 41, 49, 50, 51]
    assert as_standard(hand, False, False) == hand
    # The Normal bot bids at least the three top trumps it holds.
    hands = deal_with(["BJ", "LJ", "AS", "4S", "3S", "2S", *SIDE], JOKER_DECK)
    game = Game.from_deal(Rules(jokers=True), hands, dealer=3, seed="bid")
    action = decide("basic", game.view(0), seed=1)
    assert isinstance(action["bid"], int) and action["bid"] >= 3


def test_deuce_deuce_counts_the_deuces_as_trumps_below_the_jokers() -> None:
    from spades.bots.bidding import as_standard

    hand = mask_of(parse_card(c) for c in ("BJ", "LJ", "DD", "DS", "AS", "3S"))
    # BJ, LJ, DD, DS, AS as the ace to the 10; the 3 of spades as the 2.
    assert cards_of(as_standard(hand, True, True)) == [39, 47, 48, 49, 50, 51]
    # With the four top trumps the bots bid at least four; they play them as trumps.
    hands = deal_with(["BJ", "LJ", "DD", "DS", "5S", *SIDE], DEUCE_DECK)
    rules = Rules(jokers=True, deuces=True)
    for level in ("basic", "strong"):
        game = Game.from_deal(rules, hands, dealer=3, seed="bid")
        action = bot_action(level, game, 1)
        assert isinstance(action["bid"], int) and action["bid"] >= 4, (level, action)


def test_the_bots_win_with_the_deuces_when_they_lead_trumps() -> None:
    # South holds the four top trumps (spades may be led at once): each takes a trick,
    # the deuces as well as the jokers, whatever the others play.
    rules = Rules(jokers=True, deuces=True, spades_must_be_broken=False)
    hands = deal_with(["BJ", "LJ", "DD", "DS", *SIDE], DEUCE_DECK)
    game = Game.from_deal(rules, hands, dealer=3, seed="lead")
    step = 0
    while game.phase == "bidding":
        game.apply(game.to_act, bot_action("basic", game, step))
        step += 1
    won_by_top = 0
    while game.phase == "playing" and game.hand_number == 1:
        before = len(game.trick_log)
        game.apply(game.to_act, bot_action("basic", game, step))
        step += 1
        if len(game.trick_log) > before:
            trick = game.trick_log[-1][1]
            won_by_top += max(trick) >= 52 and game.trick_log[-1][2] == 0
    assert won_by_top == 4  # each of the four top trumps took a trick for South


SIDE = ["AC", "KC", "3D", "4D", "5D", "6D", "7D"]


def deal_with(first: list[str], deck: int) -> list[list[str]]:
    """South holds `first` (topped up from the deck), the others the rest in order."""
    mine = [parse_card(c) for c in first]
    others = [c for c in cards_of(deck) if c not in mine]
    while len(mine) < 13:
        mine.append(others.pop(0))
    hands = [[card_text(c) for c in mine]]
    for seat in range(3):
        hands.append([card_text(c) for c in others[13 * seat : 13 * seat + 13]])
    return hands


def test_under_suicide_a_weak_first_partner_takes_the_nil() -> None:
    # South bids first of its team with a hand worth under three tricks: the nil is its
    # (both the Normal and the Hard level), and North must then bid a number.
    # (Worth about 2.7 tricks, with the king of spades: a poor nil by its odds, the
    # weaker hand of the team all the same.)
    weak = ["7C", "8C", "TC", "QC", "9D", "TD", "4H", "6H", "QH", "KH", "6S", "8S", "KS"]
    deck = [card_text(c) for c in cards_of((1 << 52) - 1)]
    rest = [c for c in deck if c not in weak]
    hands = [weak, rest[:13], rest[13:26], rest[26:]]
    for level in ("basic", "strong"):
        game = Game.from_deal(Rules(suicide=True), hands, dealer=3, seed="weak")
        assert bot_action(level, game, 1) == {"type": "bid", "bid": "nil"}, level
