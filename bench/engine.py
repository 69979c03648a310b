"""Engine speed: full random hands (deal, 4 bids, 52 plays, uniform among legal actions).

    python -m bench.engine [--seconds 3]

Measures three drivers of the same work in one run and prints hands/s and µs per action:
- `fast`: the integer layer the search bots use (`FastHand`, masks, random bid numbers);
- `game`: the full `Game` API with JSON-ready actions (`legal_actions` + `apply`), as the
  server drives it;
- `pyspiel`: OpenSpiel's C++ Spades driven from Python, when `open-spiel` is installed
  (`pip install -e '.[bench]'`). Its deal is 52 chance steps, counted as the deal.
The last line compares the fast layer with OpenSpiel.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from spades.engine import Game, Rules
from spades.engine.cards import cards_of
from spades.engine.fast import FastHand, random_deal


def fast_hand(rng: random.Random) -> int:
    hands = random_deal(rng)
    dealer = rng.randrange(4)
    _bids = [rng.randrange(14) for _ in range(4)]
    hand = FastHand(hands, (dealer + 1) & 3)
    choice = rng.choice
    while hand.played < 52:
        hand.play(choice(cards_of(hand.legal())))
    return 56


def game_hand(rng: random.Random) -> int:
    game = Game.new(Rules(target=10_000), seed=rng.getrandbits(64))
    actions = 0
    while game.hand_number == 1:
        seat = game.to_act
        game.apply(seat, rng.choice(game.legal_actions()))
        actions += 1
    return actions


def pyspiel_driver() -> Callable[[random.Random], int] | None:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("spades")

    def hand(rng: random.Random) -> int:
        state = game.new_initial_state()
        actions = 0
        choice = rng.choice
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                actions += 1
        return actions

    return hand


def measure(name: str, driver: Callable[[random.Random], int], seconds: float) -> float:
    rng = random.Random(1)
    hands = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            actions += driver(rng)
        hands += 50
    elapsed = time.perf_counter() - start
    rate = hands / elapsed
    per_action = elapsed / actions * 1e6
    print(f"{name:8} {rate:10,.0f} hands/s  {per_action:7.2f} µs/action  ({hands} hands)")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per driver")
    args = parser.parse_args()
    fast = measure("fast", fast_hand, args.seconds)
    measure("game", game_hand, args.seconds)
    spiel = pyspiel_driver()
    if spiel is None:
        print(f"engine: {fast:,.0f} hands/s; pyspiel: not installed (pip install -e '.[bench]')")
        return
    other = measure("pyspiel", spiel, args.seconds)
    print(f"engine: {fast:,.0f} hands/s; pyspiel: {other:,.0f} hands/s; ratio {fast / other:.2f}")


if __name__ == "__main__":
    main()
