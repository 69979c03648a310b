"""Easy is a beginner: the basic plan with mistakes, never blind nil, and it loses to basic."""

from __future__ import annotations

from bot_helpers import random_state

from spades.bots import decide
from spades.bots.simulate import simulate
from spades.engine import Rules


def test_easy_never_bids_blind_nil_even_far_behind() -> None:
    seen = 0
    for seed in range(60):
        game = random_state(seed, 0, scores=[-300, 250], rules={"blind_nil_deficit": 100})
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if {"type": "bid", "bid": "blind nil"} in view["legal"]:
            seen += 1
            assert decide("easy", view, seed=seed) == {"type": "look"}
    assert seen > 10


def test_easy_loses_clearly_to_basic_and_bids_like_a_person() -> None:
    rep = simulate(["easy", "basic", "easy", "basic"], Rules(target=300), 16, seed=3)
    assert rep["wins"][1] >= 12, rep["wins"]
    assert rep["blind_nil_attempts"][0] == 0
    # Not a random number generator: most of its contracts are made.
    assert rep["contracts_made_pct"][0] >= 60
