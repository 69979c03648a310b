"""Engine speed: full random hands (deal, 4 bids, 52 plays, uniform among legal actions).

    python -m bench.engine [--seconds 3] [--repeat 3]

With `--repeat N` every driver runs N times and the last lines give the min / median / max
of its hands/s and µs per action over the runs, by the wall clock and in the process's CPU
time (on a shared machine the CPU figure is the steadier one).

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
import statistics
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


def measure(
    name: str, driver: Callable[[random.Random], int], seconds: float
) -> tuple[float, float, float]:
    """Hands/s and µs per action by the wall clock, and µs of the process's CPU per action
    (the steadier figure on a shared machine: time spent waiting for a core is not in it)."""
    rng = random.Random(1)
    hands = actions = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            actions += driver(rng)
        hands += 50
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    rate = hands / elapsed
    per_action = elapsed / actions * 1e6
    cpu_per_action = cpu / actions * 1e6
    print(
        f"{name:8} {rate:10,.0f} hands/s  {per_action:7.2f} µs/action  "
        f"{cpu_per_action:7.2f} µs CPU/action  ({hands} hands)"
    )
    return rate, per_action, cpu_per_action


def spread(values: list[float]) -> tuple[float, float, float]:
    """Min, median and max."""
    ordered = sorted(values)
    return ordered[0], statistics.median(ordered), ordered[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per driver")
    parser.add_argument("--repeat", type=int, default=1, help="runs of every driver")
    args = parser.parse_args()
    drivers: list[tuple[str, Callable[[random.Random], int]]] = [
        ("fast", fast_hand),
        ("game", game_hand),
    ]
    spiel = pyspiel_driver()
    if spiel is not None:
        drivers.append(("pyspiel", spiel))
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _ in drivers}
    for _ in range(max(1, args.repeat)):
        for name, driver in drivers:
            runs[name].append(measure(name, driver, args.seconds))
    fast = runs["fast"][-1][0]
    if spiel is None:
        print(f"engine: {fast:,.0f} hands/s; pyspiel: not installed (pip install -e '.[bench]')")
    else:
        other = runs["pyspiel"][-1][0]
        print(
            f"engine: {fast:,.0f} hands/s; pyspiel: {other:,.0f} hands/s; ratio {fast / other:.2f}"
        )
    if args.repeat > 1:
        for name, results in runs.items():
            low, mid, high = spread([r[0] for r in results])
            fast_us, mid_us, slow_us = spread([r[1] for r in results])
            cpu_low, cpu_mid, cpu_high = spread([r[2] for r in results])
            print(
                f"{name:8} min / median / max of {len(results)}: "
                f"{low:,.0f} / {mid:,.0f} / {high:,.0f} hands/s, "
                f"{fast_us:.2f} / {mid_us:.2f} / {slow_us:.2f} µs/action, "
                f"{cpu_low:.2f} / {cpu_mid:.2f} / {cpu_high:.2f} µs CPU/action"
            )


if __name__ == "__main__":
    main()
