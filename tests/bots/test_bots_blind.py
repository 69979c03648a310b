"""Blind 6+ (issue 60 item 6): the bots and the hint bid a blind number only when the rule
offers it and it pays (far behind: `bots/blind.py`), never otherwise, and a partner bids
knowing the blind contract needs its tricks."""

from __future__ import annotations

import random

import pytest

from spades.bots import LEVELS, decide
from spades.bots.blind import blind_bid_choice
from spades.bots.strong import decide_strong
from spades.engine import Game, Rules

STRONG_SOUTH = [
    ["AS", "KS", "QS", "JS", "TS", "9S", "AH", "KH", "AD", "KD", "AC", "KC", "QC"],
    ["8S", "7S", "QH", "JH", "TH", "9H", "QD", "JD", "TD", "9D", "JC", "TC", "9C"],
    ["6S", "5S", "8H", "7H", "6H", "5H", "8D", "7D", "6D", "5D", "8C", "7C", "6C"],
    ["4S", "3S", "2S", "4H", "3H", "2H", "4D", "3D", "2D", "5C", "4C", "3C", "2C"],
]


def level_action(level: str, game: Game, seat: int, seed: int = 1) -> dict:
    view = game.view(seat)
    if level == "strong":
        return decide_strong(view, seed=seed, iterations=8, budget_ms=1e9)
    return decide(level, view, seed=seed)


@pytest.mark.parametrize("level", ["basic", "strong"])
def test_far_behind_the_bots_bid_blind_6_and_a_strong_hand_makes_it_double(level: str) -> None:
    # South and North 300 behind with West and East at 300 of 500: South bids first, blind.
    rules = Rules(blind_bid_deficit=250)
    game = Game.from_deal(rules, STRONG_SOUTH, dealer=3, scores=[0, 300], seed="far")
    assert game.view(0)["hand"] is None
    action = level_action(level, game, 0)
    assert action == {"type": "bid", "bid": "blind 6"}
    game.apply(0, action)
    step = 0
    while game.hand_number == 1:
        seat = game.to_act
        step += 1
        game.apply(seat, level_action("basic", game, seat, step))
    hand = game.history[0]
    assert hand["blind"][0] and hand["bids"][0] == 6
    north = hand["bids"][2]
    assert isinstance(north, int) and north <= 2  # North leaves the tricks to the blind six
    taken = hand["tricks"][0] + hand["tricks"][2]
    assert taken >= 6 + north and hand["contract_made"][0]
    assert hand["points"][0] == 20 * (6 + north) + (taken - 6 - north)  # scored double


def test_the_hint_is_the_blind_bid_too() -> None:
    # The hint is the room's bot level on the asker's own view (rooms/commands.py, `hint`):
    # with the blind bid open and paying, it says "blind 6"; without the rule, "look".
    game = Game.from_deal(
        Rules(blind_bid_deficit=250), STRONG_SOUTH, dealer=3, scores=[0, 300], seed="h"
    )
    view = game.view(0)
    assert decide("basic", view) == {"type": "bid", "bid": "blind 6"}
    assert blind_bid_choice(view, {a.get("bid") for a in view["legal"]}) == 6
    off = Game.from_deal(Rules(), STRONG_SOUTH, dealer=3, scores=[0, 300], seed="h")
    assert decide("basic", off.view(0)) == {"type": "look"}


@pytest.mark.parametrize(
    ("scores", "why"),
    [
        ([0, 240], "behind by less than the margin: not offered"),
        ([0, 470], "the others all but home: a blind six cannot catch them"),
        ([250, 0], "ahead"),
    ],
)
def test_no_blind_bid_where_it_is_not_offered_or_does_not_pay(scores: list[int], why: str) -> None:
    game = Game.from_deal(
        Rules(blind_bid_deficit=250), STRONG_SOUTH, dealer=3, scores=scores, seed="n"
    )
    for level in ("basic", "strong"):
        action = level_action(level, game, 0)
        assert not str(action.get("bid", "")).startswith("blind"), why
        assert action in game.view(0)["legal"]


@pytest.mark.parametrize("level", LEVELS)
def test_the_bots_never_bid_a_blind_number_the_rules_do_not_offer(level: str) -> None:
    # Random games, far behind or not, with the rule off or on: every blind number a bot
    # bids is offered (in `legal`), and none is bid without the rule.
    rng = random.Random(level)
    for index in range(4 if level == "strong" else 12):
        deficit = rng.choice([0, 0, 250])
        behind = rng.choice([0, 100, 300, 400])
        rules = Rules(blind_bid_deficit=deficit, target=500)
        game = Game(rules, seed=f"{level}{index}", first_dealer=index % 4, scores=[0, behind])
        step = 0
        while game.phase == "bidding":
            seat = game.to_act
            step += 1
            view = game.view(seat)
            action = level_action(level, game, seat, step)
            assert action in view["legal"]
            bid = str(action.get("bid", ""))
            if bid.startswith("blind ") and bid != "blind nil":
                assert deficit and behind >= deficit and seat % 2 == 0
            game.apply(seat, action)


def test_alone_a_blind_six_never_pays() -> None:
    # Individual: a blind six alone is made 14% of the time (bench.blind_odds); the win
    # model never finds it worth it, however far behind: the bots look.
    rules = Rules(mode="individual", blind_bid_deficit=250)
    for scores in ([0, 320, 150, 100], [-200, 300, 0, 0], [100, 450, 0, 0]):
        game = Game.from_deal(rules, STRONG_SOUTH, dealer=3, scores=scores, seed="i")
        assert "blind 6" in {a.get("bid") for a in game.view(0)["legal"]}
        assert decide("basic", game.view(0)) == {"type": "look"}


def test_under_suicide_no_blind_number_that_would_stand_alone() -> None:
    # A blind number first of the team would force the partner's nil (suicide): the unseen
    # hand would make its contract alone, so the bots look.
    rules = Rules(blind_bid_deficit=250, suicide=True)
    game = Game.from_deal(rules, STRONG_SOUTH, dealer=3, scores=[0, 300], seed="s")
    assert "blind 6" in {a.get("bid") for a in game.view(0)["legal"]}
    assert decide("basic", game.view(0)) == {"type": "look"}
