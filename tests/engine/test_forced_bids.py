"""docs/rules.md "Whiz and Mirror (forced bids)": each worked example."""

from __future__ import annotations

import pytest
from engine_helpers import make

from spades.engine import ActionError, Rules, RulesError

CLUBS = [f"{r}C" for r in "23456789TJQKA"]
DIAMONDS = [f"{r}D" for r in "23456789TJQKA"]
HEARTS = [f"{r}H" for r in "23456789TJQKA"]
SPADES = [f"{r}S" for r in "23456789TJQKA"]
# South 4 spades, West none, North 3, East 6.
DEAL = [
    SPADES[:4] + CLUBS[:9],
    HEARTS,
    SPADES[4:7] + DIAMONDS[:9] + [CLUBS[9]],
    SPADES[7:] + CLUBS[10:] + DIAMONDS[9:],
]


def bids(game: object) -> list[object]:
    return [a["bid"] for a in game.legal_actions()]  # type: ignore[attr-defined]


def test_whiz_is_nil_or_the_spades_held() -> None:
    game = make(DEAL, dealer=3, whiz=True, scores=[0, 300])  # (blind nil is never offered)
    assert bids(game) == ["nil", 4]
    with pytest.raises(ActionError, match="whiz: bid nil or the 4 spades you hold"):
        game.apply(0, {"type": "bid", "bid": 5})
    game.apply(0, {"type": "bid", "bid": 4})
    assert bids(game) == ["nil"]  # West holds no spade
    with pytest.raises(ActionError, match="no spade"):
        game.apply(1, {"type": "bid", "bid": 1})
    game.apply(1, {"type": "bid", "bid": "nil"})
    assert bids(game) == ["nil", 3]


def test_mirror_is_the_spades_held() -> None:
    game = make(DEAL, dealer=3, mirror=True, nil=False)
    for seat, allowed in ((0, [4]), (1, ["nil"]), (2, [3]), (3, [6])):
        assert game.to_act == seat and bids(game) == allowed
        game.apply(seat, {"type": "bid", "bid": allowed[0]})
    with_nil = make(DEAL, dealer=3, mirror=True)
    with pytest.raises(ActionError, match="mirror: bid the 4 spades you hold"):
        with_nil.apply(0, {"type": "bid", "bid": "nil"})
    assert game.phase == "playing"


def test_forced_bids_refuse_what_cannot_go_with_them() -> None:
    for rules in (
        {"whiz": True, "mirror": True},
        {"whiz": True, "min_team_bid": 4},
        {"whiz": True, "nil": False},
    ):
        with pytest.raises(RulesError):
            Rules.from_dict(rules)
