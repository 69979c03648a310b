"""Hard's nil judged by rollouts against a hunting table (`nil_search`, `strong.NIL_SEARCH_MIN`)
and the bench that screens it (`bench/nil_screen.py`)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from bench.nil_screen import auc, collect_deal, collect_game, held_out

from spades.bots import strong
from spades.bots.nil_search import nil_chance
from spades.bots.state import from_view
from spades.engine import Game, Rules


def _first_view(deal: int) -> dict[str, Any]:
    game = Game.new(Rules(mode="partnership", target=500), seed=f"hn:{deal}", dealer=3)
    return game.view(0)


def test_the_chance_is_a_share_and_a_seed_fixes_it() -> None:
    view = _first_view(173)
    st = from_view(view)
    a = nil_chance(view, st, random.Random(5), 60)
    assert 0.0 < a < 1.0
    assert nil_chance(view, st, random.Random(5), 60) == a
    assert 0.0 < nil_chance(view, st, random.Random(5), 60, careless=False) < 1.0


def test_the_ace_of_spades_never_survives() -> None:
    deal = next(d for d in range(200) if "AS" in _first_view(d)["hand"])
    view = _first_view(deal)
    assert nil_chance(view, from_view(view), random.Random(1), 40) == 0.0


def test_a_hand_of_low_cards_survives_more_often_than_one_with_high_cards() -> None:
    # Deal 28 (8S 5S, no ace; odds 0.82) and deal 173 (A and J of hearts, 8S 4S; odds 0.74).
    low, high = _first_view(28), _first_view(173)
    rng = random.Random(3)
    assert nil_chance(low, from_view(low), rng, 200) > nil_chance(high, from_view(high), rng, 200)


@pytest.mark.parametrize(("deal", "keeps"), [(28, True), (173, False)])
def test_hard_keeps_a_nil_only_where_the_rollouts_clear_the_bar(
    deal: int, keeps: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = _first_view(deal)
    monkeypatch.setattr(strong, "NIL_SEARCH_MIN", 0.0)  # off: Hard bids basic's nil
    assert strong.decide_strong(view, seed=deal, iterations=40) == {"type": "bid", "bid": "nil"}
    monkeypatch.setattr(strong, "NIL_SEARCH_MIN", 0.87)  # 28: about 0.95, 173: about 0.72
    action = strong.decide_strong(view, seed=deal, iterations=40)
    assert (action["bid"] == "nil") == keeps
    assert action in view["legal"]
    if not keeps:
        assert isinstance(action["bid"], int) and action["bid"] >= 1


def test_auc_and_the_held_out_fit() -> None:
    assert auc([0.9, 0.8, 0.1], [True, True, False]) == 1.0
    assert auc([0.5, 0.5], [True, False]) == 0.5
    feats = [[float(i % 7) - 3.0] for i in range(60)]
    made = [f[0] + (i % 3) - 1 > 0 for i, f in enumerate(feats)]
    train = [i % 2 == 0 for i in range(60)]
    area, loss = held_out(feats, made, train)
    assert 0.5 < area <= 1.0 and 0.0 < loss < 0.7


def test_the_screen_records_a_nil_with_its_bidding_view() -> None:
    rows = next(r for r in (collect_deal((d, "partnership")) for d in range(12)) if r)
    (row,) = rows
    view = row["view"]
    assert view["phase"] == "bidding" and int(view["seat"]) == row["seat"]
    assert 0.0 < row["odds"] < 1.0 and isinstance(row["made"], bool)


def test_the_screen_alone_records_every_nil_of_the_deal() -> None:
    rows = next(r for r in (collect_deal((d, "individual")) for d in range(200)) if r)
    assert len({row["seat"] for row in rows}) == len(rows)
    for row in rows:
        assert row["view"]["mode"] == "individual" and row["view"]["phase"] == "bidding"
        assert row["view"]["hand_number"] == 1 and isinstance(row["made"], bool)


def test_a_dropped_nil_keeps_to_a_spent_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the time budget spent by the estimate, the count is the basic one (no search)."""
    view = _first_view(173)
    monkeypatch.setattr(strong, "NIL_SEARCH_MIN", 1.01)  # no nil passes
    action = strong.decide_strong(view, seed=1, iterations=40, budget_ms=0.0)
    assert isinstance(action["bid"], int) and action in view["legal"]


def test_on_by_default() -> None:
    assert strong.NIL_SEARCH_MIN == 0.7 and strong.NIL_SEARCH_SAMPLES == 300


def test_alone_the_bar_is_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Individual play asks NIL_SEARCH_MIN_ALONE of the estimate, partnership NIL_SEARCH_MIN."""
    assert strong.NIL_SEARCH_MIN_ALONE == 0.8
    monkeypatch.setattr(strong, "nil_chance", lambda *args: 0.75)
    monkeypatch.setattr(strong, "choose_bid_by_sampling", _nil_or_count)
    for mode, keeps in (("partnership", True), ("individual", False)):
        game = Game.new(Rules(mode=mode, target=500), seed="bar", dealer=3)
        view = game.view(0)
        action = strong.decide_strong(view, seed=1, iterations=40)
        assert (action["bid"] == "nil") == keeps, mode


def _nil_or_count(view: dict[str, Any], *args: Any) -> dict[str, Any]:
    """The bid search's stand-in: nil while nil is offered, else 2."""
    if any(a.get("bid") == "nil" for a in view["legal"]):
        return {"type": "bid", "bid": "nil"}
    return {"type": "bid", "bid": 2}


def test_the_game_screen_records_nils_at_the_scores_games_reach() -> None:
    rows = collect_game((7, "individual"))  # a nil in its 20th hand
    assert any(row["view"]["hand_number"] > 1 for row in rows)
    for row in rows:
        assert row["view"]["phase"] == "bidding" and int(row["view"]["seat"]) == row["seat"]
