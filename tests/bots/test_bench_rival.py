"""The benchmarks' independent opponent (bench/rival.py) plays legal, reproducible Spades in
both modes, beside the project's bots (bench/rival_match.py)."""

from __future__ import annotations

import pytest
from bench import rival, rival_match

from spades.engine import Game, Rules


@pytest.mark.parametrize("mode", ["partnership", "individual"])
def test_rival_plays_whole_hands_legally_and_the_same_twice(mode: str) -> None:
    for deal in range(6):
        game = Game.new(Rules.from_dict({"mode": mode, "target": 500}), seed=f"rival:{deal}")
        levels = ["rival", "basic"] * 2
        step = 0
        while not game.history:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            action = rival_match.decide(levels[seat], view, seed=step)
            assert action in view["legal"]
            if levels[seat] == "rival":
                assert rival.decide(view, seed=step) == action
            game.apply(seat, action)
            step += 1
        assert sum(game.history[-1]["tricks"]) == 13
