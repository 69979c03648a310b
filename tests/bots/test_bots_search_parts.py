"""The parts of the strong bot's search that were rewritten to cost less when compiled
(docs/bots.md, "Hard compiled, cheaper"): each gives what the code it replaced gave."""

from __future__ import annotations

import ast
import random
from pathlib import Path
from typing import Any

from spades.bots import card_search, state
from spades.bots.state import PlayState, from_view, popcount
from spades.bots.worlds import sample_world
from spades.engine import Game, Rules


def test_popcount_is_bit_count() -> None:
    rng = random.Random(611)
    masks = [0, 1, (1 << 56) - 1, *(rng.getrandbits(56) & rng.getrandbits(56) for _ in range(2000))]
    for mask in masks:
        assert popcount(mask) == mask.bit_count()


def _views(n: int) -> list[dict[str, Any]]:
    """Card-play views of one seeded hand of basic (Normal) play, tricks in progress too."""
    from spades.bots import decide

    out = []
    game = Game.new(Rules.from_dict({"mode": "partnership"}), seed="search-parts", dealer=1)
    while not game.history and len(out) < n:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if game.phase == "playing":
            out.append(view)
        game.apply(seat, decide("basic", view, seed=3))
    return out


# PlayState's fields (a compiled class keeps no __slots__ to read them from).
FIELDS = [
    "bag_limit",
    "bags",
    "bids",
    "blind",
    "broken",
    "contract",
    "count_seats",
    "deck",
    "hands",
    "leader",
    "must_break",
    "nil_counts",
    "nil_seats",
    "partnership",
    "played",
    "scores",
    "target",
    "trick",
    "tricks_done",
    "tricks_won",
    "voids",
]


def _fields(st: PlayState) -> dict[str, object]:
    return {name: getattr(st, name) for name in FIELDS}


def test_the_field_list_is_complete() -> None:
    source = Path(__file__).resolve().parents[2] / "server" / "spades" / "bots" / "state.py"
    tree = ast.parse(source.read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "PlayState")
    slots = next(
        n.value
        for n in cls.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "__slots__"
    )
    assert sorted(FIELDS) == sorted(ast.literal_eval(slots))


def _dealt(st: PlayState, view: dict[str, Any], seed: int) -> list[int]:
    """Every hand of a deal that fits the view (the seat's own as it is)."""
    sizes = [int(n) for n in view["hand_sizes"]]
    hands = sample_world(st, int(str(view["seat"])), sizes, random.Random(seed))
    assert hands is not None
    return hands


def test_deal_from_is_a_copy_with_the_hands_dealt() -> None:
    world = PlayState()
    for view in _views(30):
        st = from_view(view)
        hands = _dealt(st, view, len(st.trick))
        expected = st.copy()
        expected.hands = hands[:]
        world.deal_from(st, hands)
        assert _fields(world) == _fields(expected)
        # The world's lists are its own: playing on it changes nothing of the root's.
        before = _fields(st)
        before_lists = {k: list(v) for k, v in before.items() if isinstance(v, list)}
        while world.tricks_done < st.tricks_done + 1:
            seat = world.to_act
            world.play((world.hands[seat] & -world.hands[seat]).bit_length() - 1)
        assert {k: list(getattr(st, k)) for k in before_lists} == before_lists
        assert hands == _dealt(st, view, len(st.trick))


def test_play_empties_the_trick_of_its_own_state_only() -> None:
    view = next(v for v in _views(40) if from_view(v).trick)
    st = from_view(view)
    other = st.copy()
    other.hands = _dealt(st, view, 5)
    trick = list(st.trick)
    while other.trick:
        seat = other.to_act
        other.play((other.hands[seat] & -other.hands[seat]).bit_length() - 1)
    assert st.trick == trick
    assert other.tricks_done == st.tricks_done + 1


def _race_before(active: list[int], history: list[list[float]], weights: list[float]) -> list[int]:
    """`card_search._race` as it was written before (sums by `sum`, means in a dict)."""
    w_sum = sum(weights)
    if w_sum <= 0 or len(active) < 2:
        return active
    means = {
        i: sum(w * v for w, v in zip(weights, history[i], strict=True)) / w_sum for i in active
    }
    lead = max(active, key=lambda i: means[i])
    base = history[lead]
    n = len(weights)
    kept = []
    for i in active:
        if i == lead:
            kept.append(i)
            continue
        diffs = [b - v for b, v in zip(base, history[i], strict=True)]
        gap = means[lead] - means[i]
        var = max(
            0.0, sum(w * d * d for w, d in zip(weights, diffs, strict=True)) / w_sum - gap * gap
        )
        if gap > card_search.PRUNE_GAP and gap * gap > card_search.PRUNE_SE**2 * var / n:
            continue
        kept.append(i)
    return kept


def test_the_race_keeps_the_cards_it_kept_before() -> None:
    rng = random.Random(612)
    for _ in range(400):
        k = rng.randint(2, 8)
        race = card_search._Race(k)
        spread = rng.choice((5.0, 20.0, 60.0))
        edge = [rng.gauss(0.0, spread / 3) for _ in range(k)]
        for sample in range(1, 49):
            weight = rng.choice((1.0, 1.0, rng.random(), rng.random() * 1e-3))
            for i in race.active:
                race.add(i, weight, round(rng.gauss(edge[i], spread), rng.choice((0, 1, 6))))
            race.end_sample(weight)
            if sample >= 16 and sample % 8 == 0:
                expected = _race_before(race.active, race.history, race.weights)
                got = card_search._race(
                    race.active, race.history, race.weights, race.totals, race.weight_sum
                )
                assert got == expected
                race.active = got


def test_the_engines_masks_are_state_constants() -> None:
    """The constants `state` binds for a compiled build are the engine's."""
    from spades.engine import cards

    assert state._SUIT_MASKS == cards.SUIT_MASKS
    assert state._NON_SPADE_MASK == cards.NON_SPADE_MASK
