"""Every worked example of docs/rules.md "House rules": bid rules."""

from __future__ import annotations

import pytest
from engine_helpers import BY_SUIT, bid_all, make, play_first_legal

from spades.engine import ActionError, Game, Rules, RulesError, game_winner, score_hand
from spades.engine.cards import mask_of, parse_card

BID_RULES = Rules(big_bid=10, big_bid_value=200, moon_bonus=200)
NIL = 0


def bids_offered(game: Game) -> list[object]:
    return [a["bid"] for a in game.legal_actions() if a["type"] == "bid"]


@pytest.mark.parametrize(
    ("south", "north_least", "nil_ok"), [("nil", 4, False), (2, 2, False), (5, 1, True)]
)
def test_minimum_team_bid_holds_the_second_partner(
    south: object, north_least: int, nil_ok: bool
) -> None:
    game = make(dealer=3, min_team_bid=4, blind_nil=False)  # South (0) bids first
    bid_all(game, [south, 1])  # South, then West
    offered = bids_offered(game)  # North's
    assert ("nil" in offered) is nil_ok
    assert [b for b in offered if b != "nil"] == list(range(north_least, 14))
    if north_least > 1:
        with pytest.raises(ActionError, match="at least 4"):
            game.apply(2, {"type": "bid", "bid": north_least - 1})
    if not nil_ok:
        with pytest.raises(ActionError, match="at least 4"):
            game.apply(2, {"type": "bid", "bid": "nil"})
    game.apply(2, {"type": "bid", "bid": north_least})


def test_minimum_team_bid_refuses_blind_nil_below_it() -> None:
    game = make(dealer=3, min_team_bid=4, scores=[0, 300], blind_nil_deficit=100)
    bid_all(game, [2, 1])
    assert game.legal_actions() == [{"type": "look"}]  # North may only look
    with pytest.raises(ActionError):
        game.apply(2, {"type": "bid", "bid": "blind nil"})


def test_partnership_only_rules_are_refused_in_individual_play() -> None:
    for name in ("min_team_bid", "set_out_after", "mercy_score"):
        with pytest.raises(RulesError, match="partnership"):
            Rules.from_dict({"mode": "individual", name: 2})


def team_points(rules: Rules, bids: list[int], tricks: list[int]) -> int:
    return score_hand(rules, bids, [False] * 4, tricks, [0, 0], [0, 0]).points[0]


def test_ten_for_two_hundred() -> None:
    # South 6 + North 4 = 10; they take 11 (6 + 5): 201. Take 9: -200.
    assert team_points(BID_RULES, [6, 1, 4, 1], [6, 1, 5, 1]) == 201
    assert team_points(BID_RULES, [6, 2, 4, 2], [5, 2, 4, 2]) == -200
    assert team_points(Rules(), [6, 1, 4, 1], [6, 1, 5, 1]) == 101


def test_moon_bonus_and_moon_wins() -> None:
    assert team_points(BID_RULES, [5, 1, 4, 1], [9, 0, 4, 0]) == 294
    result = score_hand(BID_RULES, [5, 1, 4, 1], [False] * 4, [9, 0, 4, 0], [0, 0], [0, 0])
    assert result.moon == 0
    # The game: East (3) holds every spade and leads (dealer North), so West-East take 13.
    game = make(BY_SUIT, dealer=2, scores=[400, 0], moon_wins=True, moon_bonus=0)
    bid_all(game, [5, 1, 1, 4])  # East, South, West, North
    play_first_legal(game, 52)
    assert game.history[0]["tricks"] == [0, 0, 0, 13]
    assert game.winner == 1 and game.phase == "over"
    assert game.scores[1] < game.scores[0]


def test_set_out_after_two_sets_in_a_row() -> None:
    rules = Rules(set_out_after=2)
    assert game_winner(rules, [100, 400], (0, 2), None, False) == 0
    # South (0) holds every spade and leads: West and East bid 1 each and take nothing.
    deal = [list(hand) for hand in BY_SUIT]
    deal[0], deal[3] = deal[3], deal[0]
    masks = [mask_of(parse_card(c) for c in hand) for hand in deal]
    game = Game(rules, seed="t", first_dealer=3, deals=[masks, masks])
    for _ in range(2):
        assert game.phase == "bidding"
        bid_all(game, [13, 1, "nil", 1] if game.dealer == 3 else [1, "nil", 1, 13])
        play_first_legal(game, 52)
    assert game.sets_in_row == (0, 2)
    assert game.winner == 0 and game.phase == "over"
    assert game.scores[0] < rules.target


def test_mercy_score() -> None:
    rules = Rules(mercy_score=200)
    # South 5 + North 1 = 6, and they take 3: -60, from -150 to -210.
    result = score_hand(rules, [5, 3, 1, 3], [False] * 4, [3, 5, 0, 5], [-150, 0], [0, 0])
    assert result.scores[0] == -210
    assert game_winner(rules, result.scores, (1, 0), None, False) == 1
    # Both out: the higher score wins; level, another hand.
    assert game_winner(rules, [-300, -250], (1, 1), None, False) == 1
    assert game_winner(rules, [-300, -300], (1, 1), None, False) is None
