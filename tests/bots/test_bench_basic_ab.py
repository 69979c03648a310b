"""The basic A/B bench (bench/basic_ab.py) plays whole games with each setting on its own
seats only, and leaves the module as it found it."""

from __future__ import annotations

from bench.basic_ab import play_game

from spades.bots import basic


def test_equal_settings_split_a_duplicate_pair_evenly() -> None:
    results = [play_game((3, rotation, "partnership", {}, {}, 200)) for rotation in range(2)]
    assert [won for _, won, _ in results].count(True) == 1
    assert results[0][2] == -results[1][2]


def test_a_setting_is_in_force_only_while_its_seats_decide() -> None:
    before = dict(basic.SET_MARGIN)
    old = {"SET_MARGIN": {"partnership": 1, "individual": 1}}
    for rotation in range(4):
        index, won, diff = play_game((5, rotation, "individual", {}, old, 150))
        assert index == 5 and isinstance(won, bool) and isinstance(diff, float)
    assert before == basic.SET_MARGIN
