"""Invariants over random games: hypothesis picks the seed, the rules and every choice."""

from __future__ import annotations

import json
import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spades.engine import ActionError, Game, Rules, card_text, parse_card
from spades.engine.cards import ALL_CARDS, cards_of, deck_of, sort_for_display

CARD_IN_JSON = re.compile(r'"((?:[2-9TJQKA])[CDHS]|DS|DD|LJ|BJ)"')

rules_strategy = st.builds(
    Rules,
    mode=st.sampled_from(["partnership", "individual"]),
    target=st.sampled_from([100, 200, 500]),
    nil=st.booleans(),
    blind_nil=st.booleans(),
    blind_nil_deficit=st.sampled_from([0, 50, 100]),
    bag_value=st.sampled_from([-1, 0, 1]),
    bag_limit=st.sampled_from([0, 5, 10]),
    spades_must_be_broken=st.booleans(),
    nil_tricks_count_for_partner=st.booleans(),
)


def played_cards(game: Game) -> set[str]:
    """Cards played so far in the current hand."""
    cards = {card_text(c) for _, trick, _ in game.trick_log for c in trick}
    return cards | {card_text(c) for c in game.play.trick}


def public_cards(game: Game) -> set[str]:
    """Cards any seat may see: this hand's played cards and the previous hand's last trick."""
    cards = played_cards(game)
    last = game.last_trick
    if last is not None and last["hand"] < game.hand_number:
        cards |= {c["card"] for c in last["cards"]}
    return cards


def check_views(game: Game) -> None:
    played = public_cards(game)
    for seat in (None, 0, 1, 2, 3):
        view = game.view(seat)
        text = json.dumps(view)
        own = set(view["hand"] or [])
        if seat is not None and view["hand"] is not None:
            assert own == {card_text(c) for c in range(ALL_CARDS) if game.hands[seat] >> c & 1}
            # In display order, however many times the hand was shown before (views keep it).
            assert view["hand"] == [
                card_text(c) for c in sort_for_display(cards_of(game.hands[seat]))
            ]
        if seat is None or game.blind_nil_open(seat):
            assert view["hand"] is None
        for card in CARD_IN_JSON.findall(text):
            assert card in own or card in played, f"seat {seat} sees unplayed {card}"
        assert view["hand_sizes"] == [h.bit_count() for h in game.hands]
        for action in view["legal"]:
            assert game.can(seat, action)
    if game.action_count:
        assert game.last_action == game.actions[-1]
    # The views' lists are kept between actions: they equal a fresh game's, made from the
    # record (nothing cached), and a consumer that changed one would be caught here.
    fresh = Game.from_record(game.to_record())
    for seat in (None, 0, 1, 2, 3):
        assert game.view(seat) == fresh.view(seat)


def check_cards_conserved(game: Game) -> None:
    union = 0
    for hand in game.hands:
        assert union & hand == 0
        union |= hand
    played = {parse_card(c) for c in played_cards(game)}
    for c in played:
        assert not union >> c & 1
        union |= 1 << c
    assert union == deck_of(game.rules.jokers, game.rules.deuces)


def play_random(game: Game, rng: random.Random, max_hands: int, *, check: bool) -> None:
    while game.phase != "over" and game.hand_number <= max_hands:
        # Sometimes a blind-nil-eligible seat looks out of turn.
        for seat in range(4):
            if game.blind_nil_open(seat) and rng.random() < 0.2:
                game.apply(seat, {"type": "look"})
        seat = game.to_act
        legal = game.legal_actions()
        assert legal, "the seat to act always has a legal action"
        action = rng.choice(legal)
        if action["type"] == "play":
            # A card outside `legal` is always refused, and refusing changes nothing.
            illegal = [c for c in range(52) if {"type": "play", "card": card_text(c)} not in legal]
            before = game.state_key()
            wrong = {"type": "play", "card": card_text(rng.choice(illegal))}
            try:
                game.apply(seat, wrong)
            except ActionError:
                pass
            else:
                raise AssertionError(f"accepted an illegal action {wrong}")
            assert game.state_key() == before
        game.apply(seat, action)
        if check:
            check_cards_conserved(game)
            check_views(game)
        if game.history:
            assert all(sum(h["tricks"]) == 13 for h in game.history)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules_strategy, seed=st.integers(0, 2**32), choices=st.integers(0, 2**32))
def test_random_games_keep_every_invariant(rules: Rules, seed: int, choices: int) -> None:
    game = Game.new(rules, seed=seed)
    play_random(game, random.Random(choices), max_hands=2, check=True)
    assert len(game.history) >= 1 or game.phase == "over"
    for h in game.history:
        assert sum(h["tricks"]) == 13


@settings(max_examples=25, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32), choices=st.integers(0, 2**32))
def test_records_replay_to_the_identical_state(rules: Rules, seed: int, choices: int) -> None:
    game = Game.new(rules, seed=seed)
    rng = random.Random(choices)
    play_random(game, rng, max_hands=3, check=False)
    record = json.loads(json.dumps(game.to_record()))
    assert Game.from_record(record).state_key() == game.state_key()
    # every prefix replays too
    cut = rng.randrange(len(record["actions"]) + 1)
    record["actions"] = record["actions"][:cut]
    replay = Game.from_record(record)
    assert len(replay.actions) == cut


def test_a_full_game_to_the_target_ends_with_a_winner() -> None:
    rng = random.Random(5)
    for mode in ("partnership", "individual"):
        game = Game.new(Rules(mode=mode, target=100, bag_limit=0), seed=mode)
        while game.phase != "over":
            seat = game.to_act
            legal = game.legal_actions()
            if game.phase == "bidding":
                # Bid what a seat holds in spades, at least 1: contracts are often made.
                hand = game.view(seat)["hand"]
                if hand is None:
                    action = {"type": "look"}
                else:
                    want = max(1, sum(c.endswith("S") for c in hand))
                    action = {"type": "bid", "bid": want}
            else:
                action = rng.choice(legal)
            game.apply(seat, action)
            assert game.hand_number < 200
        assert game.winner is not None
        assert max(game.scores) >= 100
        assert game.scores[game.winner] == max(game.scores)
