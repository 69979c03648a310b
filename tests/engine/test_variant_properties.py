"""Each house rule over random games: 13 tricks a hand, 52 cards dealt, only legal actions
applied, every view hiding the other hands, and every score equal to an independent
recomputation from the record (tests/engine/recompute.py)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recompute import hands_of, scores_of
from test_properties import check_cards_conserved, check_views

from spades.engine import Game, Rules

BID_RULES = st.builds(
    Rules,
    target=st.sampled_from([100, 300]),
    min_team_bid=st.sampled_from([0, 4, 6]),
    big_bid=st.sampled_from([0, 8, 10]),
    big_bid_value=st.sampled_from([150, 200]),
    moon_bonus=st.sampled_from([0, 200]),
    moon_wins=st.booleans(),
    set_out_after=st.sampled_from([0, 1, 2]),
    mercy_score=st.sampled_from([0, 50, 200]),
    nil_tricks_count_for_partner=st.booleans(),
)


def play_legal(game: Game, rng: random.Random, max_hands: int, check_every: int) -> None:
    """Random legal actions only (each one checked legal before it is applied)."""
    steps = 0
    while game.phase != "over" and game.hand_number <= max_hands:
        legal = game.legal_actions()
        action = rng.choice(legal)
        assert game.can(game.to_act, action)
        game.apply(game.to_act, action)
        steps += 1
        if steps % check_every == 0:
            check_views(game)
            check_cards_conserved(game)


def check_record(game: Game) -> None:
    record = json.loads(json.dumps(game.to_record()))
    hands = hands_of(record)
    assert len(hands) == len(game.history)
    for hand in hands:
        cards = [c for dealt in hand["dealt"] for c in dealt]
        assert len(cards) == 52 and len(set(cards)) == 52
        assert sum(hand["tricks"]) == 13
    assert [h["scores"] for h in game.history] == scores_of(record)
    assert Game.from_record(record).state_key() == game.state_key()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=BID_RULES, seed=st.integers(0, 2**32), choices=st.integers(0, 2**32))
def test_bid_rules_games_keep_every_invariant(rules: Rules, seed: int, choices: int) -> None:
    game = Game.new(rules, seed=seed)
    play_legal(game, random.Random(choices), max_hands=4, check_every=17)
    check_record(game)
    if rules.min_team_bid:
        for h in game.history:
            bids = [0 if isinstance(b, str) else b for b in h["bids"]]
            assert bids[0] + bids[2] >= rules.min_team_bid
            assert bids[1] + bids[3] >= rules.min_team_bid


# The decks: standard, jokers, and jokers with Deuce-Deuce (which needs them).
DECKS = st.sampled_from([{}, {"jokers": True}, {"jokers": True, "deuces": True}])


def with_deck(deck: dict[str, bool], **options: object) -> Rules:
    return Rules.from_dict({**deck, **options})


JOKER_RULES = st.builds(
    with_deck,
    DECKS.filter(bool),
    mode=st.sampled_from(["partnership", "individual"]),
    target=st.sampled_from([100, 300]),
    spades_must_be_broken=st.booleans(),
    big_bid=st.sampled_from([0, 10]),
    moon_bonus=st.sampled_from([0, 200]),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=JOKER_RULES, seed=st.integers(0, 2**32), choices=st.integers(0, 2**32))
def test_jokers_games_keep_every_invariant(rules: Rules, seed: int, choices: int) -> None:
    game = Game.new(rules, seed=seed)
    play_legal(game, random.Random(choices), max_hands=3, check_every=13)
    check_record(game)
    for hand in hands_of(json.loads(json.dumps(game.to_record()))):
        cards = {c for dealt in hand["dealt"] for c in dealt}
        assert {"LJ", "BJ"} <= cards and not {"2C", "2H"} & cards
        if rules.deuces:  # Deuce-Deuce: the 2 of diamonds and of spades as DD and DS
            assert {"DD", "DS"} <= cards and not {"2D", "2S"} & cards
        else:
            assert not {"DD", "DS"} & cards


FORCED_RULES = st.builds(
    with_deck,
    DECKS,
    whiz=st.just(True),
    mode=st.sampled_from(["partnership", "individual"]),
    target=st.sampled_from([100, 300]),
) | st.builds(
    with_deck,
    DECKS,
    mirror=st.just(True),
    mode=st.sampled_from(["partnership", "individual"]),
    target=st.sampled_from([100, 300]),
    nil=st.booleans(),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=FORCED_RULES, seed=st.integers(0, 2**32), choices=st.integers(0, 2**32))
def test_forced_bids_games_keep_every_invariant(rules: Rules, seed: int, choices: int) -> None:
    game = Game.new(rules, seed=seed)
    play_legal(game, random.Random(choices), max_hands=3, check_every=13)
    check_record(game)
    for hand in hands_of(json.loads(json.dumps(game.to_record()))):
        for seat in range(4):
            held = sum(c[1] == "S" or c in ("DD", "LJ", "BJ") for c in hand["dealt"][seat])
            allowed = {0, held} if rules.whiz else {held}
            assert hand["bids"][seat] in allowed
            assert not hand["blind"][seat]


SUICIDE_RULES = st.builds(
    Rules,
    suicide=st.just(True),
    suicide_min_bid=st.sampled_from([1, 4, 6]),
    target=st.sampled_from([100, 300]),
    blind_nil_deficit=st.sampled_from([0, 100]),
    jokers=st.booleans(),
)  # (with jokers, Deuce-Deuce or not: the same bids)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=SUICIDE_RULES, seed=st.integers(0, 2**32), choices=st.integers(0, 2**32))
def test_suicide_games_keep_every_invariant(rules: Rules, seed: int, choices: int) -> None:
    game = Game.new(rules, seed=seed)
    rng = random.Random(choices)
    while game.phase != "over" and game.hand_number <= 3:
        for seat in range(4):  # sometimes a seat looks out of turn
            if game.blind_nil_open(seat) and rng.random() < 0.2:
                game.apply(seat, {"type": "look"})
        play_legal(game, rng, max_hands=game.hand_number, check_every=13)
    check_record(game)
    for hand in hands_of(json.loads(json.dumps(game.to_record()))):
        for side in (0, 1):
            pair = sorted(hand["bids"][seat] for seat in (side, side + 2))
            assert pair[0] == 0 and pair[1] >= rules.suicide_min_bid


BLIND_RULES = st.builds(
    Rules,
    blind_bid_deficit=st.sampled_from([1, 50]),
    mode=st.sampled_from(["partnership", "individual"]),
    target=st.sampled_from([200, 300]),
    blind_nil=st.booleans(),
    big_bid=st.sampled_from([0, 10]),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=BLIND_RULES, seed=st.integers(0, 2**32), choices=st.integers(0, 2**32))
def test_blind_bid_games_keep_every_invariant(rules: Rules, seed: int, choices: int) -> None:
    n = rules.sides
    game = Game(rules, seed=str(seed), first_dealer=seed % 4, scores=[0] * (n - 1) + [100])
    rng = random.Random(choices)
    while game.phase != "over" and game.hand_number <= 3:
        for seat in range(4):  # sometimes a seat looks out of turn
            if game.blind_nil_open(seat) and rng.random() < 0.3:
                game.apply(seat, {"type": "look"})
        play_legal(game, rng, max_hands=game.hand_number, check_every=13)
    check_record(game)
    for entry, hand in zip(
        game.history, hands_of(json.loads(json.dumps(game.to_record()))), strict=True
    ):
        assert entry["blind"] == hand["blind"]
        for seat in range(4):
            if hand["blind"][seat] and hand["bids"][seat]:
                assert hand["bids"][seat] >= 6
