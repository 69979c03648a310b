"""The server's safety cap on strong: a search cut before enough sampled deals plays basic.

Measured with bench.bot_ab, strong on 8 sampled deals per card lost to basic by 17 points
per deal; a search the cap stops that early (a server with too few bot workers) plays the
basic plan's move instead, and says so in its stats.
"""

from __future__ import annotations

from bot_helpers import play_view, random_state

from spades.bots.basic import decide as basic_decide
from spades.bots.strong import SearchStats, decide_strong


def _views(seeds: range) -> list[dict]:
    """Card-play views at several points of a hand, and the first bidder's view."""
    views = []
    for seed in seeds:
        game = random_state(seed, 0)
        seat = game.to_act
        assert seat is not None
        if game.view(seat)["hand"] is None:
            game.apply(seat, {"type": "look"})
        views.append(game.view(seat))
        views.append(play_view(seed, seed % 23))
    return views


def test_a_search_cut_early_plays_the_basic_move() -> None:
    thin = 0
    for view in _views(range(24)):
        for budget in (0.0, 1e-3):  # no time at all, or out of time after the first deals
            stats = SearchStats()
            action = decide_strong(view, seed=3, budget_ms=budget, stats=stats)
            assert action in view["legal"]
            if stats.thin:
                thin += 1
                assert stats.cut
                # Hard falls back on the plain basic policy (`basic.decide`), not on Normal.
                assert action == basic_decide(view), view
    assert thin >= 30  # most views had more than one move worth searching


def test_an_uncut_search_is_not_thin() -> None:
    for view in _views(range(3)):
        stats = SearchStats()
        decide_strong(view, seed=1, iterations=60, stats=stats)
        assert not stats.cut and not stats.thin
