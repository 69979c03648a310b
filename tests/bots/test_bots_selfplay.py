"""Self-play: 10,000 decisions of random and basic bots, both modes, all legal; strong briefly."""

from __future__ import annotations

from typing import Any

from bot_helpers import play_through

from spades.bots import decide
from spades.bots.strong import decide_strong
from spades.engine import Game, Rules


def _decide(level: str, view: dict[str, Any], n: int) -> dict[str, Any]:
    if level == "strong":
        return decide_strong(view, seed=n, iterations=12, budget_ms=1e9)
    return decide(level, view, seed=n)


def test_ten_thousand_decisions_random_and_basic_both_modes() -> None:
    total = 0
    game_no = 0
    tables = [
        ("partnership", ["basic", "random", "basic", "random"]),
        ("partnership", ["basic", "basic", "basic", "basic"]),
        ("individual", ["basic", "random", "basic", "basic"]),
        ("individual", ["basic", "basic", "basic", "basic"]),
    ]
    while total < 10_000:
        mode, levels = tables[game_no % len(tables)]
        game = Game.new(Rules(mode=mode, target=300), seed=f"selfplay-{game_no}")
        total += play_through(game, levels, _decide, max_decisions=3_000)
        game_no += 1
    assert total >= 10_000


def test_strong_self_play_both_modes_stays_legal() -> None:
    for mode, levels in (
        ("partnership", ["strong", "basic", "strong", "random"]),
        ("individual", ["strong", "basic", "random", "basic"]),
    ):
        game = Game.new(Rules(mode=mode, target=100), seed=f"strong-{mode}")
        assert play_through(game, levels, _decide, max_decisions=180) == 180 or (
            game.phase == "over"
        )
