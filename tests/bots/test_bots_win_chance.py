"""Strong's chance-to-win model near the end of a partnership game."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from spades.bots.outcome import Scorer, game_chance, win_chance
from spades.bots.state import PlayState

scores = st.integers(min_value=-300, max_value=499)
bags = st.integers(min_value=0, max_value=9)


@given(scores, scores, bags, bags)
def test_the_two_sides_chances_add_up_to_one(a: int, b: int, ba: int, bb: int) -> None:
    assert abs(win_chance(a, b, ba, bb, 500) + win_chance(b, a, bb, ba, 500) - 1.0) < 1e-9


@given(scores, scores, bags, bags)
def test_more_points_and_fewer_bags_never_hurt(a: int, b: int, ba: int, bb: int) -> None:
    p = win_chance(a, b, ba, bb, 500)
    assert win_chance(a + 10, b, ba, bb, 500) >= p
    if ba > 0:
        assert win_chance(a, b, ba - 1, bb, 500) >= p


def test_a_lead_counts_for_more_near_the_target() -> None:
    early = win_chance(100, 0, 0, 0, 500)
    late = win_chance(450, 350, 0, 0, 500)
    assert 0.5 < early < late < 1.0
    assert win_chance(250, 250, 0, 0, 500) == 0.5


def _scorer(bids: list[int], scores_bags: list[int]) -> Scorer:
    state = PlayState()
    state.partnership = True
    state.bids = bids
    state.bags = scores_bags
    view = {"rules": {"mode": "partnership"}}
    return Scorer(view, state, seat=0)


def test_a_hand_that_ends_the_game_is_a_whole_win_or_loss() -> None:
    scorer = _scorer([4, 3, 4, 3], [0, 0])
    blind = [False] * 4
    # Seats 0+2 bid 8 and take 8: +80 from 430 wins; seats 1+3 set at 6 of their 6.
    assert game_chance(scorer, [4, 2, 4, 3], blind, [430, 480], 500) == 1.0
    # Seats 0+2 set at 7 of 8, seats 1+3 make 6: 480 + 60 wins for the other side.
    assert game_chance(scorer, [4, 3, 3, 3], blind, [430, 480], 500) == -1.0
    # Nobody reaches 500 (380 against 140): the model's chance, in (-1, 1), for the leader.
    inside = game_chance(scorer, [4, 2, 4, 3], blind, [300, 200], 500)
    assert 0.0 < inside < 1.0
