from __future__ import annotations

import random
from typing import Any

from spades.engine import Game, Rules


def random_state(
    seed: int,
    steps: int,
    *,
    mode: str = "partnership",
    scores: list[int] | None = None,
    rules: dict[str, Any] | None = None,
) -> Game:
    """A game after `steps` uniformly random legal actions (stops early at game over)."""
    r = Rules.from_dict({"mode": mode, "target": 300, **(rules or {})})
    game = Game(r, seed=f"bots-{seed}", first_dealer=seed % 4, scores=scores)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.phase == "over":
            break
        seat = game.to_act
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game


def play_through(game: Game, levels: list[str], decide: Any, max_decisions: int) -> int:
    """Play bots until the game ends or `max_decisions`; asserts every action is legal."""
    n = 0
    while game.phase != "over" and n < max_decisions:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        action = decide(levels[seat], view, n)
        assert action in view["legal"], (levels[seat], action, view["legal"])
        game.apply(seat, action)
        n += 1
    return n


def play_view(seed: int, moves: int) -> dict[str, Any]:
    """The view of the seat to act after basic bids and `moves` basic cards of a hand."""
    from spades.bots import decide

    game = random_state(seed, 0)
    while game.phase == "bidding":
        seat = game.to_act
        assert seat is not None
        game.apply(seat, decide("basic", game.view(seat)))
    for _ in range(moves):
        seat = game.to_act
        assert seat is not None
        game.apply(seat, decide("basic", game.view(seat)))
    seat = game.to_act
    assert seat is not None
    return game.view(seat)
