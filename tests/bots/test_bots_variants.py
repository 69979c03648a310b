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
