"""Every bot level plays the house-rule presets legally (every move in `legal`) and
sensibly (the minimum team bid is met by the bots' own bids)."""

from __future__ import annotations

import pytest

from spades.bots import LEVELS, decide
from spades.bots.strong import decide_strong
from spades.engine import Game, Rules
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
    from spades.engine.cards import cards_of, mask_of, parse_card

    hand = mask_of(parse_card(c) for c in ("BJ", "LJ", "AS", "4S", "3S", "2S"))
    # Big Joker as the ace, Little Joker as the king, the ace as the queen, 4S as the 2,
    # and the 3 and 2 of spades as the 2 as well.
    assert cards_of(as_standard(hand, True)) == [39, 49, 50, 51]
    assert as_standard(hand, False) == hand
    # The basic bot bids at least the three top trumps it holds.
    rest = ["AC", "KC", "3D", "4D", "5D", "6D", "7D"]
    hands = [["BJ", "LJ", "AS", "4S", "3S", "2S", *rest]]
    deck = [c for c in cards_of(mask_of(range(54))) if c not in (0, 26)]
    others = [c for c in deck if card_of(c) not in hands[0]]
    for seat in range(3):
        hands.append([card_of(c) for c in others[13 * seat : 13 * seat + 13]])
    game = Game.from_deal(Rules(jokers=True), hands, dealer=3, seed="bid")
    action = decide("basic", game.view(0), seed=1)
    assert isinstance(action["bid"], int) and action["bid"] >= 3


def card_of(c: int) -> str:
    from spades.engine import card_text

    return card_text(c)
