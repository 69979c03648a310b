"""The bid-accuracy bench (bench/bid_accuracy.py) counts what it says it counts."""

from __future__ import annotations

from bench.bid_accuracy import fitted, play
from bench.nil_odds import solve_linear


def test_solve_linear_solves_a_small_system() -> None:
    a = [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]]
    x = solve_linear(a, [3.0, 5.0, 5.0])
    assert [round(v, 9) for v in x] == [1.0, 1.0, 1.0]


def test_every_bag_is_counted_once_by_how_it_was_won() -> None:
    sides = []
    for deal in range(12):
        for rotation in range(2):
            sides.extend(play((deal, rotation, "basic", 0)))
    assert sides  # most hands have a side without a nil
    for side in sides:
        assert 0 <= side["tricks"] <= 13
        assert side["tricks"] == sum(side["seat_tricks"])
        assert sum(side["bags"].values()) == max(0, side["tricks"] - side["bid"])
    lines = fitted(sides * 4, seed=1)  # enough rows for the 22 weights
    assert lines[0].startswith("fitted count")
    assert len(lines) == 5


def test_the_head_to_head_puts_the_count_back_and_scores_both_sides() -> None:
    from bench.bid_accuracy import head_to_head

    from spades.bots import bidding

    counted = bidding.count_tricks
    for rotation in range(2):
        deal, points, with_bags = head_to_head((3, rotation))
        assert deal == 3
        assert bidding.count_tricks is counted
        assert abs(points) < 600 and abs(with_bags) < 800
