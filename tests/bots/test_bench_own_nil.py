"""The own-nil bench (bench/own_nil.py) plays each of Hard's nils alone once per way of
choosing the nil bidder's cards, from the same start and with the same seeds elsewhere."""

from __future__ import annotations

import copy

from bench.own_nil import VARIANTS, play_hand, report

from spades.bots import decide
from spades.engine import Game, Rules


def _nil_hand(seed: int) -> Game:
    """An individual game in its play, seat 1 having bid nil, the others as Normal bids."""
    game = Game.new(Rules(mode="individual", target=500), seed=f"own-nil-test-{seed}", dealer=0)
    while game.phase == "bidding":
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        nil = {"type": "bid", "bid": "nil"}
        game.apply(seat, nil if seat == 1 else decide("basic", view, seed=seed))
    return game


def test_every_variant_plays_the_same_nil_from_the_same_start() -> None:
    start = _nil_hand(3)
    results = {}
    for variant in VARIANTS:
        game = copy.deepcopy(start)
        tricks = play_hand(game, [1], variant, 1000, iterations=64)
        assert sum(tricks) == 13
        again = play_hand(copy.deepcopy(start), [1], variant, 1000, iterations=64)
        assert again == tricks  # seeded: the same hand twice
        results[variant] = tricks[1] == 0
    assert set(results) == set(VARIANTS)


def test_the_report_counts_each_variant_and_the_pairs() -> None:
    rows = [
        {"made": {"search": True, "rule": True}},
        {"made": {"search": False, "rule": True}},
        {"made": {"search": False, "rule": False}},
    ]
    lines = report(rows, ("search", "rule"))
    assert lines[0] == "3 nils"
    assert lines[1].startswith("search: 1 of 3 = 33.3% (CI")
    assert lines[2].startswith("rule: 2 of 3 = 66.7% (CI")
    assert lines[3] == "search vs rule: made only by search 0, only by rule 1"
