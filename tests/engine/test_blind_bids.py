"""docs/rules.md "Blind 6+ (blind bids of a number)": each worked example."""

from __future__ import annotations

import pytest
from engine_helpers import make

from spades.engine import ActionError, Game, Rules, score_hand

BLIND = [f"blind {n}" for n in range(6, 14)]


def offered(game: Game, seat: int) -> list[object]:
    return [a.get("bid", a["type"]) for a in game.legal_actions(seat)]


def test_a_side_far_enough_behind_may_bid_blind_six_or_more() -> None:
    game = make(dealer=3, blind_bid_deficit=250, blind_nil=False, scores=[0, 300])
    assert offered(game, 0) == ["look", *BLIND]
    assert game.view(0)["hand"] is None
    with pytest.raises(ActionError, match="6 to 13"):
        game.apply(0, {"type": "bid", "bid": "blind 5"})
    game.apply(0, {"type": "bid", "bid": "blind 6"})
    assert game.view(0)["hand"] is not None and game.view(0)["blind"][0] is True
    assert game.view(0)["bids"][0] == 6
    assert "look" not in offered(game, 1)  # West and East lead: no blind bid
    with pytest.raises(ActionError, match="trail by at least 250"):
        game.apply(1, {"type": "bid", "bid": "blind 7"})
    game.apply(1, {"type": "bid", "bid": 3})
    game.apply(2, {"type": "look"})
    with pytest.raises(ActionError, match="looked"):
        game.apply(2, {"type": "bid", "bid": "blind 6"})
    game.apply(2, {"type": "bid", "bid": 2})
    assert game.actions[0] == (0, {"type": "bid", "bid": "blind 6"})
    assert Game.from_record(game.to_record()).state_key() == game.state_key()


def test_a_blind_bid_scores_double() -> None:
    rules = Rules(blind_bid_deficit=250)
    blind = [True, False, False, False]
    made = score_hand(rules, [6, 2, 2, 2], blind, [6, 2, 3, 2], [0, 300], [0, 0])
    assert made.points[0] == 161
    set_ = score_hand(rules, [6, 2, 2, 2], blind, [5, 4, 2, 2], [0, 300], [0, 0])
    assert set_.points[0] == -160


def test_no_blind_bids_when_off() -> None:
    game = make(dealer=3, blind_nil=False, scores=[0, 300])
    with pytest.raises(ActionError, match="not played"):
        game.apply(0, {"type": "bid", "bid": "blind 6"})
