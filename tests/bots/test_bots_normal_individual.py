"""Normal alone (`spades.bots.normal_individual`, issue 61): the threat's set, the nil
bidder's lead and the refitted nil odds."""

from __future__ import annotations

from spades.bots import decide
from spades.bots.normal import normal_card
from spades.bots.normal_individual import (
    individual_nil_odds,
    nil_lead,
    nil_shape,
    threat_seat,
)
from spades.bots.state import UNKNOWN, PlayState, legal_mask
from spades.engine import Game, Rules, card_text, parse_card


def _mask(cards: list[str]) -> int:
    out = 0
    for c in cards:
        out |= 1 << parse_card(c)
    return out


def _alone(
    hand: list[str], trick: list[str], leader: int, bids: list[int], scores: list[int]
) -> PlayState:
    st = PlayState()
    st.partnership = False
    seat = (leader + len(trick)) & 3
    st.hands[seat] = _mask(hand)
    st.trick = [parse_card(c) for c in trick]
    st.leader = leader
    st.played = _mask(trick)
    st.bids = bids
    st.scores = scores
    st.bags = [0, 0, 0, 0]
    st.prepare()
    return st


def test_the_threat_is_the_player_who_wins_with_its_contract() -> None:
    st = _alone(["2H"], [], 0, [3, 4, 2, 3], [300, 470, 200, 250])
    assert threat_seat(st, 0) == 1
    # Far from the target nobody threatens; nor a player whose contract is made already.
    assert threat_seat(_alone(["2H"], [], 0, [3, 4, 2, 3], [300, 300, 200, 250]), 0) == -1
    st = _alone(["2H"], [], 0, [3, 4, 2, 3], [300, 470, 200, 250])
    st.tricks_won[1] = 4
    assert threat_seat(st, 0) == -1
    # Normal itself ending higher: no threat.
    assert threat_seat(_alone(["2H"], [], 0, [5, 2, 2, 3], [480, 470, 200, 250]), 0) == -1
    # Partnership: never.
    st = _alone(["2H"], [], 0, [3, 4, 2, 3], [300, 470])
    st.partnership = True
    assert threat_seat(st, 0) == -1


def test_normal_overtakes_the_threat_even_with_its_contract_made() -> None:
    # Seat 1 (the threat, 470 + 4 tricks) leads the queen of hearts; seat 2 plays under it
    # and seat 3 follows... seat 2 is Normal here, its one trick already taken: basic would
    # duck (no bags), Normal takes the trick with the ace.
    st = _alone(["AH", "3H", "5C"], ["QH"], 1, [3, 4, 1, 3], [300, 470, 200, 250])
    st.tricks_won[2] = 1
    st.tricks_done = 1
    assert card_text(normal_card(st, 2)) == "AH"
    # Far from the target the same cards duck.
    st = _alone(["AH", "3H", "5C"], ["QH"], 1, [3, 4, 1, 3], [300, 300, 200, 250])
    st.tricks_won[2] = 1
    st.tricks_done = 1
    assert card_text(normal_card(st, 2)) == "3H"


def test_the_nil_bidder_leads_the_card_hardest_to_duck() -> None:
    # Seat 0 bid nil: the 4 of clubs (the 2 and 3 already played) has no unseen card under
    # it, the 3 of hearts has one (the 2).
    st = _alone(["4C", "9C", "3H", "KD"], [], 0, [0, 3, 3, 3], [0, 0, 0, 0])
    st.played |= _mask(["2C", "3C"])
    legal = legal_mask(st.hands[0], -1, st.broken, st.must_break)
    assert card_text(nil_lead(st, 0, legal)) == "4C"
    assert card_text(normal_card(st, 0)) == "4C"


def test_the_refitted_nil_odds_read_the_table_and_the_low_cards() -> None:
    hand = _mask(["2C", "5C", "9C", "3D", "7D", "JD", "2H", "4H", "8H", "TH", "QH", "3S", "6S"])
    assert nil_shape(hand) == (0, 4)
    first = individual_nil_odds(hand, 0, [UNKNOWN] * 4)
    last = individual_nil_odds(hand, 0, [UNKNOWN, 3, 4, 2])
    assert 0.0 < first < last < 1.0
    # The same hand with its low clubs and diamonds swapped for high ones: worse odds.
    high = _mask(["7C", "8C", "9C", "8D", "9D", "JD", "2H", "4H", "8H", "TH", "QH", "3S", "6S"])
    assert nil_shape(high) == (2, 2)
    assert individual_nil_odds(high, 0, [UNKNOWN] * 4) < first
    assert individual_nil_odds(hand | 1 << parse_card("AS"), 0, [UNKNOWN] * 4) == 0.0


def test_individual_games_stay_legal() -> None:
    for d in range(6):
        game = Game.new(
            Rules(mode="individual", target=300), seed=f"normal-alone-{d}", dealer=d % 4
        )
        while game.phase != "over":
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            action = decide("basic", view, seed=d)
            assert action in view["legal"]
            game.apply(seat, action)


def test_the_score_leader_is_set_once_it_needs_all_but_one_trick() -> None:
    from spades.bots.normal_individual import leader_to_set

    # Seat 0 (Normal) made its 2; seat 1 leads the scores and needs 4 of the 5 tricks left.
    st = _alone(["AH", "3H", "5C"], [], 0, [2, 5, 2, 3], [200, 300, 100, 150])
    st.tricks_won = [2, 1, 3, 2]
    st.tricks_done = 8
    assert leader_to_set(st, 0) == 1
    # A trailing player in the same spot is left alone, and so is the leader with tricks to spare.
    st.scores = [200, 100, 300, 150]
    assert leader_to_set(st, 0) == -1
    st.scores = [200, 300, 100, 150]
    st.tricks_won = [2, 2, 3, 1]
    assert leader_to_set(st, 0) == -1


def test_a_bid_that_wins_the_game_over_ours_is_seen() -> None:
    from spades.bots.bidding import BidContext
    from spades.bots.normal import _lost_unless

    ctx = BidContext(scores=(300, 470, 200, 250), bags=(0, 0, 0, 0), target=500)
    assert _lost_unless(ctx, 0, [UNKNOWN, 4, UNKNOWN, UNKNOWN], 3)
    assert not _lost_unless(ctx, 0, [UNKNOWN, 2, UNKNOWN, UNKNOWN], 3)
    assert not _lost_unless(BidContext(scores=(480, 470, 0, 0), target=500), 0, [-1, 4, -1, -1], 3)
