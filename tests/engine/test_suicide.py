"""docs/rules.md "Suicide": each worked example."""

from __future__ import annotations

import pytest
from engine_helpers import make

from spades.engine import ActionError, Game, Rules, RulesError


def bids(game: Game) -> list[object]:
    return [a["bid"] for a in game.legal_actions()]


def test_a_number_first_leaves_the_partner_nil() -> None:
    game = make(dealer=3, suicide=True)  # South (0) bids first
    assert bids(game) == ["nil", *range(4, 14)]
    with pytest.raises(ActionError, match="4 or more"):
        game.apply(0, {"type": "bid", "bid": 3})
    game.apply(0, {"type": "bid", "bid": 5})
    assert bids(game) == ["nil", *range(4, 14)]  # West, the first of its team
    game.apply(1, {"type": "bid", "bid": "nil"})
    assert bids(game) == ["nil"]  # North
    with pytest.raises(ActionError, match="you bid nil"):
        game.apply(2, {"type": "bid", "bid": 4})
    game.apply(2, {"type": "bid", "bid": "nil"})
    assert bids(game) == list(range(4, 14))  # East: West bid nil
    with pytest.raises(ActionError, match="4 or more"):
        game.apply(3, {"type": "bid", "bid": "nil"})
    game.apply(3, {"type": "bid", "bid": 4})
    assert game.phase == "playing"


def test_blind_nil_is_the_nil_of_suicide() -> None:
    game = make(dealer=3, suicide=True, scores=[0, 300])
    game.apply(0, {"type": "bid", "bid": "blind nil"})
    game.apply(1, {"type": "bid", "bid": 4})
    # North may only look (no blind nil: South's is the team's nil), then bid 4 or more.
    assert game.legal_actions() == [{"type": "look"}]
    with pytest.raises(ActionError, match="partner bid nil"):
        game.apply(2, {"type": "bid", "bid": "blind nil"})
    game.apply(2, {"type": "look"})
    assert bids(game) == list(range(4, 14))


def test_suicide_is_a_partnership_rule_with_nil() -> None:
    for rules in (
        {"suicide": True, "mode": "individual"},
        {"suicide": True, "nil": False},
        {"suicide": True, "whiz": True},
    ):
        with pytest.raises(RulesError):
            Rules.from_dict(rules)
