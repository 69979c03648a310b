"""The basic A/B bench (bench/basic_ab.py) plays whole games with each setting on its own
seats only, and leaves the module as it found it."""

from __future__ import annotations

from bench.basic_ab import play_game

from spades.bots import basic


def test_equal_settings_split_a_duplicate_pair_evenly() -> None:
    results = [
        play_game((3, rotation, "partnership", {}, {}, 200, "Classic")) for rotation in range(2)
    ]
    assert [r[1] for r in results].count(True) == 1
    assert results[0][2] == -results[1][2]


def test_a_setting_is_in_force_only_while_its_seats_decide() -> None:
    before = dict(basic.SET_MARGIN)
    old = {"SET_MARGIN": {"partnership": 1, "individual": 1}}
    for rotation in range(4):
        index, won, diff, nils, made = play_game(
            (5, rotation, "individual", {}, old, 150, "Classic")
        )
        assert index == 5 and isinstance(won, bool) and isinstance(diff, float)
        assert 0 <= made <= nils
    assert before == basic.SET_MARGIN


def test_the_frozen_basic_plays_whole_games() -> None:
    """`--b frozen`: side B plays the frozen copy of today's basic (bench/frozen_basic.py)."""
    results = [
        play_game((2, r, "partnership", {}, {"frozen": True}, 150, "Classic")) for r in range(2)
    ]
    assert all(isinstance(r[2], float) for r in results)


def test_a_preset_is_played_with_a_setting_of_the_deck() -> None:
    """`--preset Deuce-Deuce`: the house rules are the game's; `DECK_SHIFT` as a setting."""
    from spades.bots import bidding

    before = dict(bidding.DECK_SHIFT)
    shift = {"DECK_SHIFT": {"jokers": 0.5, "deuces": 0.5}}
    results = [play_game((4, r, "partnership", shift, {}, 150, "Deuce-Deuce")) for r in range(2)]
    assert all(isinstance(r[1], bool) and isinstance(r[2], float) for r in results)
    assert before == bidding.DECK_SHIFT
