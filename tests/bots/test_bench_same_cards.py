"""bench/same_cards.py pairs each seat's cards as basic held them with the same cards in the
opponent's hands, and counts only pairs where both bid the same number."""

from __future__ import annotations

import pytest
from bench import same_cards


@pytest.mark.parametrize(("mode", "rotations"), [("individual", 4), ("partnership", 2)])
def test_every_rotation_is_played_and_paired(mode: str, rotations: int) -> None:
    results = [
        same_cards.play((deal, rotation, mode, "rival"))
        for deal in range(3)
        for rotation in range(rotations)
    ]
    for _deal, _rotation, record in results:
        assert sum(record["tricks"]) == 13
    out = same_cards.report(mode, results)
    assert out["hands"] == 3 * rotations
    # Each seat's cards: held by basic in 1 (2 in partnership) rotations, the opponent in
    # the rest; every numeric pair is counted once in the bid differences.
    pairs_per_seat = 3 if mode == "individual" else 1
    assert sum(out["bid_minus_opponent_bid"].values()) <= 3 * 4 * pairs_per_seat
    assert out["same_bid_pairs"] == out["bid_minus_opponent_bid"].get(0, 0)


def test_the_same_cards_give_the_same_report_twice() -> None:
    jobs = [(deal, rotation, "individual", "rival") for deal in range(2) for rotation in range(4)]
    first = same_cards.report("individual", [same_cards.play(j) for j in jobs])
    again = same_cards.report("individual", [same_cards.play(j) for j in jobs])
    assert first == again
