from __future__ import annotations

import pytest
from engine_helpers import BY_SUIT, bid_all, make, play_first_legal

from spades.engine import (
    ActionError,
    BidOutOfRange,
    BlindNilNotAllowed,
    CardNotInHand,
    Game,
    GameOver,
    MalformedAction,
    MustFollowSuit,
    MustLookFirst,
    NilNotAllowed,
    NothingToLook,
    NotYourTurn,
    Rules,
    SpadesNotBroken,
    WrongPhase,
)
from spades.engine.cards import ALL_CARDS, card_text
from spades.engine.game import _Bid, _code_action, _Look, _op_code, _Play, _TimeUp


def refused(game: Game, seat: int | None, action: object, error: type[ActionError]) -> str:
    """Assert the action is refused with `error` and that nothing changed."""
    before = game.state_key()
    n_actions = len(game.actions)
    assert not game.can(seat, action)  # type: ignore[arg-type]
    with pytest.raises(error) as info:
        game.apply(seat, action)  # type: ignore[arg-type]
    assert game.state_key() == before
    assert len(game.actions) == n_actions
    assert info.value.code and info.value.message
    return info.value.message


def test_seat_left_of_dealer_bids_first_and_leads() -> None:
    game = make(dealer=1)
    assert game.to_act == 2
    bid_all(game, [3, 3, 3, 3])
    assert game.phase == "playing"
    assert game.to_act == 2


def test_not_your_turn() -> None:
    game = make()
    assert "seat 0" in refused(game, 1, {"type": "bid", "bid": 3}, NotYourTurn)
    bid_all(game, [3, 3, 3, 3])
    refused(game, 2, {"type": "play", "card": "3C"}, NotYourTurn)


@pytest.mark.parametrize("bid", [14, -1, 0, 100])
def test_bid_out_of_range_partnership(bid: int) -> None:
    refused(make(), 0, {"type": "bid", "bid": bid}, BidOutOfRange)


def test_individual_zero_is_nil() -> None:
    game = make(mode="individual")
    refused(game, 0, {"type": "bid", "bid": 14}, BidOutOfRange)
    recorded = game.apply(0, {"type": "bid", "bid": 0})
    assert recorded == {"type": "bid", "bid": "nil"}
    assert game.view(1)["bids"][0] == "nil"


def test_nil_option_off() -> None:
    game = make(nil=False)
    refused(game, 0, {"type": "bid", "bid": "nil"}, NilNotAllowed)
    assert {"type": "bid", "bid": "nil"} not in game.legal_actions()
    ind = make(mode="individual", nil=False)
    refused(ind, 0, {"type": "bid", "bid": 0}, NilNotAllowed)
    assert [a["bid"] for a in ind.legal_actions()] == list(range(1, 14))


@pytest.mark.parametrize(
    "action",
    [
        {"type": "dance"},
        {"bid": 3},
        "bid 3",
        None,
        {"type": "bid", "bid": "seven"},
        {"type": "bid", "bid": 3.5},
        {"type": "bid", "bid": True},
        {"type": "bid"},
    ],
)
def test_malformed_actions(action: object) -> None:
    refused(make(), 0, action, MalformedAction)


def test_malformed_card_and_bad_seat() -> None:
    game = make()
    bid_all(game, [3, 3, 3, 3])
    refused(game, 0, {"type": "play", "card": "ZZ"}, MalformedAction)
    refused(game, 0, {"type": "play"}, MalformedAction)
    refused(game, 7, {"type": "play", "card": "2C"}, MalformedAction)
    refused(game, 0, {"type": "time_up"}, MalformedAction)


def test_play_during_bidding_and_bid_during_play() -> None:
    game = make()
    refused(game, 0, {"type": "play", "card": "2C"}, WrongPhase)
    bid_all(game, [3, 3, 3, 3])
    refused(game, 0, {"type": "bid", "bid": 3}, WrongPhase)


def test_card_not_in_hand() -> None:
    game = make()
    bid_all(game, [3, 3, 3, 3])
    assert "3C" in refused(game, 0, {"type": "play", "card": "3C"}, CardNotInHand)


def test_spades_not_broken_and_must_follow() -> None:
    game = make()
    bid_all(game, [3, 3, 3, 3])
    # Seat 0 holds 3S, 7S, JS and clubs, diamonds, hearts: no spade lead yet.
    refused(game, 0, {"type": "play", "card": "3S"}, SpadesNotBroken)
    assert all(not a["card"].endswith("S") for a in game.legal_actions())
    game.apply(0, {"type": "play", "card": "2C"})
    # Seat 1 holds 3C, 7C, JC: must follow clubs.
    assert "clubs" in refused(game, 1, {"type": "play", "card": "2D"}, MustFollowSuit)
    assert [a["card"] for a in game.legal_actions()] == ["3C", "7C", "JC"]


def test_leader_with_only_spades_may_lead_them() -> None:
    game = make(BY_SUIT, dealer=2)  # seat 3 (all spades) leads the first trick
    bid_all(game, [3, 3, 3, 3])
    assert game.to_act == 3
    assert len(game.legal_actions()) == 13
    game.apply(3, {"type": "play", "card": "2S"})
    assert game.spades_broken


def test_spades_may_be_led_any_time_when_option_off() -> None:
    game = make(spades_must_be_broken=False)
    bid_all(game, [3, 3, 3, 3])
    game.apply(0, {"type": "play", "card": "3S"})


def test_void_player_may_trump_and_spade_wins() -> None:
    game = make(BY_SUIT)
    bid_all(game, [1, 1, 1, 1])
    play_first_legal(game, 4)
    assert game.trick_log[0][2] == 3
    assert game.tricks_won == [0, 0, 0, 1]
    assert game.to_act == 3


def test_highest_of_suit_led_wins_without_spades() -> None:
    game = make()
    bid_all(game, [3, 3, 3, 3])
    for seat, card in [(0, "AC"), (1, "JC"), (2, "QC"), (3, "KC")]:
        game.apply(seat, {"type": "play", "card": card})
    assert game.trick_log[-1][2] == 0
    assert game.to_act == 0


def full_hand_by_suit(game: Game) -> None:
    bid_all(game, [1, 1, 1, 1])
    play_first_legal(game, 52)


def test_full_hand_scores_rotates_dealer_and_deals_again() -> None:
    game = make(BY_SUIT, dealer=3)
    full_hand_by_suit(game)
    # Seat 3 (all spades) takes every trick: side 1 bid 2, took 13 -> 20 + 11 bags - 100.
    assert game.scores == [-20, -69]
    assert game.bags == [0, 1]
    assert game.hand_number == 2
    assert game.dealer == 0
    assert game.to_act == 1
    assert game.phase == "bidding"
    hand = game.history[0]
    assert hand["tricks"] == [0, 0, 0, 13]
    # The 13th trick of the finished hand stays visible after the next deal.
    last = game.view(1)["last_trick"]
    assert last["hand"] == 1
    assert last["winner"] == 3
    assert [c["card"] for c in last["cards"]] == ["AS", "AC", "AD", "AH"]
    assert game.view(1)["tricks"] == []
    assert hand["bag_penalty"] == [0, -100]


def test_game_over_when_target_reached() -> None:
    game = make(BY_SUIT, scores=[530, 400], target=500)
    full_hand_by_suit(game)
    assert game.phase == "over"
    assert game.winner == 0  # 510 vs 331
    assert game.to_act is None
    assert game.legal_actions() == []
    refused(game, 0, {"type": "bid", "bid": 3}, GameOver)


def test_tie_at_target_plays_another_hand() -> None:
    game = make(BY_SUIT, scores=[520, 569], target=500)
    full_hand_by_suit(game)
    assert game.scores == [500, 500]
    assert game.winner is None
    assert game.phase == "bidding"
    assert game.hand_number == 2


def test_individual_tie_only_matters_for_the_highest() -> None:
    game = make(BY_SUIT, mode="individual", scores=[600, 0, 600, 0], target=500)
    bid_all(game, [1, 1, 1, 1])
    play_first_legal(game, 52)
    # seats 0 and 2 set (-10 each), tied at 590 for the lead: play on.
    assert game.scores[0] == game.scores[2] == 590
    assert game.winner is None


def test_end_of_time_finishes_hand_then_highest_wins() -> None:
    game = make(BY_SUIT, target=500)
    bid_all(game, [1, 1, 1, 1])
    play_first_legal(game, 10)
    game.time_up()
    assert game.view(0)["time_up"]
    refused(game, None, {"type": "time_up"}, WrongPhase)
    play_first_legal(game, 42)
    assert game.phase == "over"
    assert game.winner == 0  # -20 beats -69, far below the target


def test_end_of_time_tie_plays_on_hand_by_hand() -> None:
    game = make(BY_SUIT, scores=[0, 49])
    game.time_up()
    full_hand_by_suit(game)
    assert game.scores == [-20, -20]
    assert game.phase == "bidding"
    assert game.hand_number == 2
    # the next hand (dealt from the seed) ends the game unless tied again
    while game.phase != "over" and game.hand_number == 2:
        seat = game.to_act
        game.apply(seat, game.legal_actions(seat)[-1 if game.phase == "bidding" else 0])
    assert game.phase == "over" or game.scores[0] == game.scores[1]


class TestBlindNil:
    def test_not_allowed_when_not_trailing(self) -> None:
        game = make()
        assert not game.blind_nil_open(0)
        assert "trail" in refused(game, 0, {"type": "bid", "bid": "blind nil"}, BlindNilNotAllowed)
        assert game.view(0)["hand"] is not None

    def test_partnership_eligibility_and_hidden_cards(self) -> None:
        game = make(scores=[0, 100])
        assert [game.blind_nil_open(s) for s in range(4)] == [True, False, True, False]
        view = game.view(0)
        assert view["hand"] is None
        assert view["blind_nil_open"]
        assert view["legal"] == [{"type": "look"}, {"type": "bid", "bid": "blind nil"}]
        assert game.view(2)["legal"] == [{"type": "look"}]
        assert game.view(2)["hand"] is None
        assert game.view(1)["hand"] is not None
        refused(game, 0, {"type": "bid", "bid": 3}, MustLookFirst)
        refused(game, 0, {"type": "bid", "bid": "nil"}, MustLookFirst)
        game.apply(0, {"type": "bid", "bid": "blind nil"})
        assert game.view(0)["hand"] is not None  # has bid: now sees the cards
        assert game.view(1)["bids"][0] == "blind nil"
        assert game.view(1)["blind"][0]

    def test_after_looking_no_blind_nil(self) -> None:
        game = make(scores=[0, 150])
        game.apply(2, {"type": "look"})  # partner may look out of turn
        assert game.view(2)["hand"] is not None
        refused(game, 2, {"type": "look"}, NothingToLook)
        game.apply(0, {"type": "look"})
        msg = refused(game, 0, {"type": "bid", "bid": "blind nil"}, BlindNilNotAllowed)
        assert "looked" in msg
        assert {"type": "bid", "bid": "blind nil"} not in game.legal_actions()

    def test_deficit_is_configurable_and_option_off(self) -> None:
        assert make(scores=[0, 99]).blind_nil_open(0) is False
        assert make(scores=[0, 50], blind_nil_deficit=50).blind_nil_open(0) is True
        off = make(scores=[0, 300], blind_nil=False)
        assert not off.blind_nil_open(0)
        assert "not played" in refused(
            off, 0, {"type": "bid", "bid": "blind nil"}, BlindNilNotAllowed
        )

    def test_individual_eligibility_uses_the_highest_other_score(self) -> None:
        game = make(mode="individual", scores=[50, 120, 160, 200])
        assert [game.blind_nil_open(s) for s in range(4)] == [True, False, False, False]
        game = make(mode="individual", scores=[50, 120, 160, 60])
        assert [game.blind_nil_open(s) for s in range(4)] == [True, False, False, True]

    def test_blind_nil_scored_at_blind_value(self) -> None:
        game = make(BY_SUIT, dealer=3, scores=[0, 100])
        game.apply(0, {"type": "bid", "bid": "blind nil"})
        bid_all(game, [1, 1, 1])
        play_first_legal(game, 52)
        # Seat 0 took nothing: +200; North bid 1 and took 0: -10.
        assert game.history[0]["points"][0] == 190
        assert game.history[0]["bids"][0] == "blind nil"


def test_dealer_from_seed_is_reproducible() -> None:
    a = Game.new(Rules(), seed=42)
    b = Game.new(Rules(), seed=42)
    assert a.dealer == b.dealer
    assert a.hands == b.hands
    assert Game.new(Rules(), seed=42, dealer=2).dealer == 2
    assert Game.new(Rules(), seed=43).hands != a.hands


def test_commitment_and_seed_revealed_after_hand() -> None:
    from spades.engine import deal_commitment, deal_from_seed, hand_seed

    game = Game.new(Rules(target=10_000), seed="s3cret")
    commit = game.view(0)["commitment"]
    seed = hand_seed("s3cret", 1)
    assert commit == deal_commitment(seed)
    assert "s3cret" not in repr(game.view(0))
    assert seed not in repr(game.view(0))
    dealt = list(game.hands)
    while game.hand_number == 1:
        seat = game.to_act
        game.apply(seat, game.legal_actions()[-1 if game.phase == "bidding" else 0])
    revealed = game.view(0)["history"][0]
    assert revealed["seed"] == seed
    assert revealed["commitment"] == commit
    assert deal_from_seed(seed) == dealt


def test_every_kind_of_action_is_kept_exactly_in_the_compact_log() -> None:
    ops = [_Play(c) for c in range(ALL_CARDS)] + [_Look(), _TimeUp()]
    ops += [_Bid(t, blind=False) for t in range(14)] + [_Bid(0, blind=True)]
    for seat in (0, 1, 2, 3, None):
        for op in ops:
            code = _op_code(seat, op)
            assert 0 <= code < 2**16
            got_seat, action = _code_action(code)
            assert got_seat == seat
            if isinstance(op, _Play):
                assert action == {"type": "play", "card": card_text(op.card)}
            elif isinstance(op, _Bid):
                assert action["type"] == "bid"
                assert action["bid"] == (
                    "blind nil" if op.blind else "nil" if not op.tricks else op.tricks
                )
            else:
                assert action == {"type": "look" if isinstance(op, _Look) else "time_up"}


def test_the_action_log_counts_and_lists_what_was_accepted() -> None:
    game = make(dealer=3)
    bid_all(game, [3, 4, "nil", 2])
    play_first_legal(game, 5)
    assert game.action_count == len(game.actions) == 9
    assert game.actions[0] == (0, {"type": "bid", "bid": 3})
    assert game.actions[2] == (2, {"type": "bid", "bid": "nil"})
    assert all(action["type"] == "play" for _, action in game.actions[4:])
