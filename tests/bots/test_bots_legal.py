"""Every level's action is in `legal`, on random states of both modes (hypothesis)."""

from __future__ import annotations

from bot_helpers import random_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spades.bots import LEVELS, decide
from spades.bots.strong import decide_strong


def _check(view: dict, seed: int) -> None:
    legal = view["legal"]
    for level in LEVELS:
        if level == "strong":
            action = decide_strong(view, seed=seed, iterations=16, budget_ms=1e9)
        else:
            action = decide(level, view, seed=seed)
        assert action in legal, (level, action, legal)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 60),
    mode=st.sampled_from(["partnership", "individual"]),
    behind=st.booleans(),
    must_break=st.booleans(),
    nil=st.booleans(),
)
def test_every_level_acts_legally(
    seed: int, steps: int, mode: str, behind: bool, must_break: bool, nil: bool
) -> None:
    n = 2 if mode == "partnership" else 4
    scores = [0] * n
    if behind:
        scores[-1] = 250  # everyone else trails by 250: blind nil is open for them
    game = random_state(
        seed,
        steps,
        mode=mode,
        scores=scores,
        rules={"spades_must_be_broken": must_break, "nil": nil},
    )
    if game.phase == "over":
        return
    seat = game.to_act
    assert seat is not None
    _check(game.view(seat), seed)
    # A seat that may still look at its cards out of turn gets a legal "look" as well.
    for other in range(4):
        if other != seat and game.blind_nil_open(other):
            view = game.view(other)
            assert view["legal"] == [{"type": "look"}]
            _check(view, seed)


def test_blind_nil_choice_is_legal_and_then_bids() -> None:
    game = random_state(3, 0, scores=[0, 400])
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    if not view["blind_nil_open"]:
        seat = next(s for s in range(4) if game.blind_nil_open(s))
    view = game.view(seat)
    action = decide("basic", view)
    assert action in view["legal"]
