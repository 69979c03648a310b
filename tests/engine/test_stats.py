"""Statistics per seat of a finished game (engine/stats.py), from the rule book's worked
examples (docs/rules.md "Scoring a hand") and from whole games played and replayed."""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import make

from spades.engine import Game, Rules, score_hand
from spades.engine.game import format_bid
from spades.engine.stats import (
    COUNTERS,
    Counts,
    game_stats,
    rates,
    record_stats,
    seat_stats,
    totals,
)

INDIVIDUAL = Rules(mode="individual")
PARTNERSHIP = Rules()


def hand(
    rules: Rules,
    bids: list[int | str],
    tricks: list[int],
    scores: list[int] | None = None,
    bags: list[int] | None = None,
) -> dict[str, Any]:
    """A hand summary as `Game.history` keeps it, scored by the engine."""
    values = [0 if isinstance(b, str) else b for b in bids]
    blind = [b == "blind nil" for b in bids]
    n = rules.sides
    result = score_hand(rules, values, blind, tricks, scores or [0] * n, bags or [0] * n)
    return {
        "bids": [format_bid(v, b) for v, b in zip(values, blind, strict=True)],
        "tricks": tricks,
        "points": list(result.points),
        "bags_added": list(result.bags_added),
        "bag_penalty": list(result.bag_penalty),
        "scores": list(result.scores),
        "bags": list(result.bags),
        "contract_made": list(result.contract_made),
        "nil_made": list(result.nil_made),
    }


def test_individual_bid_made_with_bags() -> None:
    # "A player bids 4 and takes exactly 4: 40. Had they taken 6, 42 and 2 bags."
    exact = seat_stats(INDIVIDUAL, [hand(INDIVIDUAL, [4, 3, 3, 3], [4, 3, 3, 3])], None)[0]
    assert exact.counts == Counts(games=1, hands=1, contracts_bid=1, contracts_made=1, points=40)
    over = seat_stats(INDIVIDUAL, [hand(INDIVIDUAL, [4, 3, 3, 3], [6, 3, 2, 2])], None)
    assert over[0].counts.points == 42 and over[0].counts.bags == 2
    assert over[0].mode == "individual" and over[0].seat == 0
    # The others in that hand: 3 made exactly, and two set by one trick each.
    assert [s.counts.sets for s in over] == [0, 0, 1, 1]
    assert [s.counts.points for s in over] == [42, 30, -30, -30]


def test_individual_set_nil_and_blind_nil() -> None:
    # "A player on 100 bids 5 but takes only 3: they lose 50."
    set_hand = hand(INDIVIDUAL, [5, 3, 3, 2], [3, 4, 3, 3], scores=[100, 0, 0, 0])
    south = seat_stats(INDIVIDUAL, [set_hand], None)[0].counts
    assert (south.contracts_bid, south.contracts_made, south.sets, south.points) == (1, 0, 1, -50)
    # "A player on 400 makes a nil: 500. If instead they took 2 tricks: 302."
    made = hand(INDIVIDUAL, ["nil", 4, 4, 5], [0, 4, 4, 5], scores=[400, 0, 0, 0])
    made_stats = seat_stats(INDIVIDUAL, [made], 0)[0].counts
    assert made_stats == Counts(games=1, won=1, hands=1, nils_bid=1, nils_made=1, points=100)
    failed = hand(INDIVIDUAL, ["nil", 4, 4, 3], [2, 4, 4, 3], scores=[400, 0, 0, 0])
    failed_stats = seat_stats(INDIVIDUAL, [failed], None)[0].counts
    # A nil bidder alone has no contract: nothing bid, nothing set.
    assert failed_stats == Counts(games=1, hands=1, nils_bid=1, bags=2, points=-98)
    # "A player on 300 makes a blind nil: 500. One that catches a trick: 101."
    blind = hand(INDIVIDUAL, ["blind nil", 4, 4, 4], [1, 4, 4, 4], scores=[300, 0, 0, 0])
    blind_stats = seat_stats(INDIVIDUAL, [blind], None)[0].counts
    assert (blind_stats.blind_nils_bid, blind_stats.blind_nils_made) == (1, 0)
    assert (blind_stats.nils_bid, blind_stats.points, blind_stats.bags) == (0, -199, 1)


def test_bag_penalty_counts_in_points_and_the_bags_taken() -> None:
    # "Carrying 8 bags, bids 3 and takes 5: the hand is worth -68."
    penalty = hand(INDIVIDUAL, [3, 3, 3, 2], [5, 3, 3, 2], bags=[8, 0, 0, 0])
    south = seat_stats(INDIVIDUAL, [penalty], None)[0].counts
    assert (south.points, south.bags, south.contracts_made) == (-68, 2, 1)


def test_partnership_nil_and_contract_are_the_sides() -> None:
    # "South bids nil and takes nothing; North bids 4 and takes 5: 141, with 1 bag."
    good = hand(PARTNERSHIP, ["nil", 4, 4, 4], [0, 4, 5, 4])
    south, west, north, east = (s.counts for s in seat_stats(PARTNERSHIP, [good], 0))
    assert south == Counts(
        games=1,
        won=1,
        hands=1,
        contracts_bid=1,
        contracts_made=1,
        nils_bid=1,
        nils_made=1,
        bags=1,
        points=141,
    )
    assert north == Counts(
        games=1, won=1, hands=1, contracts_bid=1, contracts_made=1, bags=1, points=141
    )
    assert west == east and west.won == 0 and west.contracts_bid == 1
    # "South bids nil but takes 2; North bids 4 and takes 3: -138." Both are set.
    bad = hand(PARTNERSHIP, ["nil", 4, 4, 4], [2, 4, 3, 4])
    stats = seat_stats(PARTNERSHIP, [bad], 1)
    assert [s.counts.sets for s in stats] == [1, 0, 1, 0]
    assert [s.counts.points for s in stats] == [-138, 80, -138, 80]
    assert [s.counts.won for s in stats] == [0, 1, 0, 1]
    assert (stats[0].counts.nils_bid, stats[0].counts.nils_made, stats[0].counts.bags) == (1, 0, 2)


def test_a_double_nil_side_has_no_contract() -> None:
    both = hand(PARTNERSHIP, ["nil", 6, "nil", 6], [1, 6, 0, 6])
    south, _, north, _ = (s.counts for s in seat_stats(PARTNERSHIP, [both], None))
    assert south.contracts_bid == north.contracts_bid == 0
    assert (south.nils_made, north.nils_made, south.bags, south.points) == (0, 1, 1, 1)


def test_hands_add_up_over_a_game() -> None:
    first = hand(PARTNERSHIP, ["nil", 4, 4, 4], [0, 4, 5, 4])
    second = hand(PARTNERSHIP, [3, 4, 5, 1], [3, 3, 5, 2], scores=first["scores"])
    south = seat_stats(PARTNERSHIP, [first, second], 0)[0].counts
    assert south.hands == 2 and south.contracts_bid == 2 and south.contracts_made == 2
    assert south.points == first["points"][0] + second["points"][0] == second["scores"][0]


def played(rules: Rules, seed: str) -> Game:
    """A whole game: each seat bids 3 (South nil every other hand) and plays its first
    legal card."""
    game = Game.new(rules, seed=seed)
    while game.phase != "over":
        assert game.hand_number < 100
        seat = game.to_act
        assert seat is not None
        if game.phase == "playing":
            game.apply(seat, game.legal_actions(seat)[0])
            continue
        if game.blind_nil_open(seat):
            game.apply(seat, {"type": "look"})
        nil = seat == 0 and game.hand_number % 2 == 0
        game.apply(seat, {"type": "bid", "bid": "nil" if nil else 3})
    return game


@pytest.mark.parametrize("mode", ["partnership", "individual"])
def test_a_played_game_and_its_replay_agree(mode: str) -> None:
    game = played(Rules(mode=mode, target=150), seed=f"stats-{mode}")  # type: ignore[arg-type]
    stats = game_stats(game)
    assert stats == record_stats(game.to_record())
    assert sum(s.counts.won for s in stats) == (2 if mode == "partnership" else 1)
    for s in stats:
        side = game.rules.side_of(s.seat)
        assert s.counts.points == game.scores[side]  # from zero, every hand's points
        assert s.counts.hands == len(game.history)
        assert s.counts.contracts_made + s.counts.sets == s.counts.contracts_bid


def test_a_game_not_over_has_no_statistics() -> None:
    with pytest.raises(ValueError):
        game_stats(make())


def test_totals_and_rates() -> None:
    a = Counts(games=1, won=1, hands=4, contracts_bid=3, contracts_made=2, sets=1, bags=6)
    b = Counts(games=1, hands=4, contracts_bid=1, contracts_made=1, nils_bid=1, points=-40)
    total = totals([a, b])
    assert total.to_dict() == {
        **dict.fromkeys(COUNTERS, 0),
        "games": 2,
        "won": 1,
        "hands": 8,
        "contracts_bid": 4,
        "contracts_made": 3,
        "sets": 1,
        "nils_bid": 1,
        "bags": 6,
        "points": -40,
    }
    assert rates(total) == {
        "won_pct": 50.0,
        "contracts_made_pct": 75.0,
        "nils_made_pct": 0.0,
        "blind_nils_made_pct": None,
        "bags_per_hand": 0.75,
        "points_per_hand": -5.0,
    }
    assert rates(Counts())["won_pct"] is None
