"""Differential test: our engine against OpenSpiel's C++ Spades (`pyspiel`, game "spades").

Seeded random games: every deal, bid and card comes from one `random.Random`, is applied to
OpenSpiel and replayed in one `Game` (standard partnership rules, `OPENSPIEL_RULES`), and
at every decision the two legal action sets must agree; at each hand's end the hand's
points and the running scores must agree. Skips when `pyspiel` is not installed
(`pip install -e '.[spiel]'`; `.ci/run` installs it).

The mapping (read from OpenSpiel's source and checked by probing its Python API):
- Cards: OpenSpiel's card action is suit * 13 + rank, suits C, D, H, S and ranks 2..A,
  which is our card number: no translation.
- The deal: 52 chance actions, the i-th card dealt to player i % 4.
- Bids: actions 52 + n, n = 0 being nil; no blind nil, no look.
- Seats: an OpenSpiel state is one hand in which player 0 bids first and leads the first
  trick. Our dealer rotates, so in our hand h the seat bidding first is (h - 1) % 4 = r
  and OpenSpiel's player p is our seat (p + r) % 4; its partnership q (players q and
  q + 2) is our side (q + r) % 2.
- Scores: `set_current_scores` gives OpenSpiel each hand the running scores of our game
  before it; `returns()` is then the hand's points per player and `get_current_scores()`
  the running scores after it.

Our rules matched to OpenSpiel's: target 500 (its `win_threshold`), nil 100 either way, no
blind nil, a nil bidder's tricks count toward the partner's contract
(`nil_tricks_count_for_partner`), 10 per trick bid (made or set), one point per bag and
100 off per 10 bags, spades must be broken to be led. `mercy_score` 350 (its
`mercy_threshold` -350) only ends our games sooner: the end of a game is not compared, as
an OpenSpiel state is one hand (its `is_game_over` compares the hand's own points with 500
and -350, which no hand reaches).

Three genuine rule differences, no option of ours matching them, so the comparison is
restricted as follows (each restriction is asserted exactly, not skipped):
1. Team bid limit: OpenSpiel refuses a bid that takes the partners' sum over 13. Our bid
   list is compared with OpenSpiel's after dropping those bids; OpenSpiel's bids are chosen.
2. Spades are never broken in OpenSpiel (its `is_spades_broken_` is never set): a leader
   holding another suit may never lead a spade. When spades are broken in our hand, a lead
   is compared with our rule as if they were not (`legal_mask(..., broken=False)`); cards
   are always chosen from OpenSpiel's list, which is a subset of ours.
3. Bags below zero: OpenSpiel reads a side's bags from its score's last digit with C++'s
   `%`, negative for a negative score (-47 % 10 == -7), so a side under zero all but never
   pays a bag penalty; we keep bags as a count (3 at -47). Where the running score is
   negative the hand's points are compared after swapping our bag penalty for the one
   OpenSpiel's arithmetic gives; where it is zero or more the points must agree as they are.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from spades.engine import Game, Rules, card_text, legal_mask, parse_card
from spades.engine.cards import cards_of, mask_of

try:
    import pyspiel  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the environment
    pyspiel = None

needs_pyspiel = pytest.mark.skipif(
    pyspiel is None,
    reason="pyspiel (OpenSpiel) is not installed: pip install -e '.[spiel]' to run the "
    "OpenSpiel differential test",
)

GAMES = 300  # seeded random games, each to 500 or -350 (3 to 4 hands each)
MAX_HANDS = 100  # deals made ready per game (a game that long fails the test)
BID_BASE = 52  # OpenSpiel's action for a bid of n tricks is BID_BASE + n (n = 0: nil)
OPENSPIEL_RULES = Rules(
    mode="partnership",
    target=500,
    nil=True,
    nil_value=100,
    blind_nil=False,
    nil_tricks_count_for_partner=True,
    bag_value=1,
    bag_limit=10,
    bag_penalty=100,
    spades_must_be_broken=True,
    mercy_score=350,
)


def _c_remainder(a: int, b: int) -> int:
    """C++'s `a % b`: the sign of `a` (Python's `%` takes the sign of `b`)."""
    return abs(a) % b * (1 if a >= 0 else -1)


def _c_quotient(a: int, b: int) -> int:
    """C++'s `a / b` on ints: toward zero."""
    return abs(a) // b * (1 if a >= 0 else -1)


def openspiel_bag_penalty(score: int, bags_added: int) -> int:
    """The bag penalty OpenSpiel's scoring gives a side at `score` taking `bags_added`."""
    return -100 * _c_quotient(_c_remainder(score, 10) + bags_added, 10)


def deal_masks(order: list[int], rotation: int) -> list[int]:
    """Our deal for OpenSpiel's chance actions `order` (card i to player i % 4)."""
    hands: list[list[int]] = [[], [], [], []]
    for i, card in enumerate(order):
        hands[(i % 4 + rotation) % 4].append(card)
    return [mask_of(hand) for hand in hands]


def as_our_action(action: int) -> dict[str, Any]:
    if action >= BID_BASE:
        n = action - BID_BASE
        return {"type": "bid", "bid": "nil" if n == 0 else n}
    return {"type": "play", "card": card_text(action)}


def check_bids(game: Game, seat: int, theirs: list[int], ours: list[dict[str, Any]]) -> None:
    assert all(a["type"] == "bid" for a in ours), ours  # no look, no blind nil
    partner = game.bids[(seat + 2) % 4]
    room = 13 - (partner.tricks if partner is not None else 0)
    # Difference 1: OpenSpiel keeps the partners' sum at 13 or less.
    ours_within = [a["bid"] for a in ours if a["bid"] == "nil" or a["bid"] <= room]
    assert [as_our_action(a)["bid"] for a in theirs] == ours_within


def check_cards(game: Game, seat: int, theirs: list[int], ours: list[dict[str, Any]]) -> None:
    ours_cards = sorted(parse_card(a["card"]) for a in ours)
    play = game.play
    expected = ours_cards
    if not play.trick and play.broken:
        # Difference 2: OpenSpiel leads as if spades were never broken.
        expected = cards_of(legal_mask(play.hands[seat], -1, False, True))
        assert set(expected) <= set(ours_cards)
    assert sorted(theirs) == expected


def check_scores(state: Any, game: Game, rotation: int, start: list[int]) -> int:
    """Compare the hand just scored; returns how many sides needed difference 3."""
    entry = game.history[-1]
    returns = state.returns()
    after = state.get_current_scores()
    adjusted = 0
    for q in (0, 1):
        side = (q + rotation) % 2
        assert entry["scores"][side] - entry["points"][side] == start[q]
        assert entry["bags"][side] == entry["scores"][side] % 10  # the last digit, as theirs
        penalty = openspiel_bag_penalty(start[q], entry["bags_added"][side])
        if start[q] >= 0:
            assert entry["bag_penalty"][side] == penalty
        elif entry["bag_penalty"][side] != penalty:
            adjusted += 1  # Difference 3: a negative score's bags
        points = entry["points"][side] - entry["bag_penalty"][side] + penalty
        assert returns[q] == returns[q + 2] == points, (q, entry)
        assert after[q] == start[q] + points
    return adjusted


def play_hand(spiel_game: Any, game: Game, order: list[int], rng: random.Random) -> int:
    """Play one hand in both engines from OpenSpiel's legal actions; compare throughout."""
    rotation = (game.hand_number - 1) % 4
    assert game.dealer == (rotation + 3) % 4
    start = [game.scores[(q + rotation) % 2] for q in (0, 1)]
    state = spiel_game.new_initial_state()
    state.set_current_scores(start)
    for card in order:
        assert state.is_chance_node()
        state.apply_action(card)
    while not state.is_terminal():
        seat = (state.current_player() + rotation) % 4
        assert game.to_act == seat
        theirs = state.legal_actions()
        ours = game.legal_actions()
        if game.phase == "bidding":
            check_bids(game, seat, theirs, ours)
        else:
            assert game.phase == "playing"
            check_cards(game, seat, theirs, ours)
        action = rng.choice(theirs)
        state.apply_action(action)
        game.apply(seat, as_our_action(action))
    assert game.history[-1]["hand"] == game.hand_number - (game.winner is None)
    return check_scores(state, game, rotation, start)


def play_game(spiel_game: Any, seed: int) -> tuple[int, int]:
    """One seeded game to its end; returns (hands played, sides needing difference 3)."""
    rng = random.Random(seed)
    orders = [rng.sample(range(52), 52) for _ in range(MAX_HANDS)]
    deals = [deal_masks(order, hand % 4) for hand, order in enumerate(orders)]
    game = Game(OPENSPIEL_RULES, seed=f"openspiel-{seed}", first_dealer=3, deals=deals)
    adjusted = 0
    for order in orders:
        adjusted += play_hand(spiel_game, game, order, rng)
        if game.winner is not None:
            return len(game.history), adjusted
    raise AssertionError(f"game {seed} lasted more than {MAX_HANDS} hands")


def test_bag_penalty_arithmetic_of_openspiel() -> None:
    assert openspiel_bag_penalty(98, 3) == -100
    assert openspiel_bag_penalty(91, 22) == -200
    assert openspiel_bag_penalty(-47, 3) == 0  # ours: 3 bags + 3 = 6, no penalty either
    assert openspiel_bag_penalty(-47, 8) == 0  # ours: 3 + 8 = 11, a penalty


@needs_pyspiel
def test_random_games_agree_with_openspiel() -> None:
    spiel_game = pyspiel.load_game("spades")
    hands = adjusted = 0
    for seed in range(GAMES):
        played, differ = play_game(spiel_game, seed)
        hands += played
        adjusted += differ
    assert hands >= GAMES  # every game played at least one hand, all compared
    print(f"{GAMES} games, {hands} hands; {adjusted} side-hands scored with difference 3")
