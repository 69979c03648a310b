"""Normal alone (`spades.bots.normal_individual`, issue 61): the threat's set, the nil
bidder's lead, the refitted nil odds, and the own nil's card by rule that Hard plays alone."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from spades.bots import decide
from spades.bots.normal import normal_card
from spades.bots.normal_individual import (
    individual_nil_odds,
    nil_lead,
    nil_shape,
    own_nil_card,
    threat_seat,
)
from spades.bots.state import NIL, UNKNOWN, PlayState, from_view, legal_mask, winning_index
from spades.bots.strong import decide_strong
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


def _own_nil(hand: list[str], trick: list[str], leader: int, unseen_gone: list[str]) -> str:
    """`own_nil_card` for the seat after `trick` (its nil standing, alone), with the cards
    `unseen_gone` already played."""
    seat = (leader + len(trick)) & 3
    bids = [3, 3, 3, 3]
    bids[seat] = NIL
    st = _alone(hand, trick, leader, bids, [0, 0, 0, 0])
    st.played |= _mask(unseen_gone)
    return card_text(own_nil_card(st, seat))


def test_the_own_nil_sheds_the_highest_card_under_the_winner() -> None:
    # The king of hearts is winning: the jack is the highest heart that stays under it.
    assert _own_nil(["AH", "JH", "4H", "2C"], ["KH"], 3, []) == "JH"
    # Nothing under the winner: the lowest, hoping a later card goes over it...
    assert _own_nil(["AH", "QH", "2C"], ["9H", "JH"], 2, []) == "QH"
    # ... and when last, the highest (the trick is taken anyway).
    assert _own_nil(["AH", "QH", "2C"], ["9H", "JH", "TH"], 1, []) == "AH"
    # Trumped: any heart is safe, so the highest goes.
    assert _own_nil(["AH", "QH", "2H"], ["9H", "3S"], 2, []) == "AH"


def test_the_own_nil_throws_the_card_likeliest_to_be_forced() -> None:
    # Void in clubs. The queen of diamonds has four of the seat's own diamonds under it; the
    # nine of hearts none, and seven unseen hearts under it: the nine goes first.
    hand = ["QD", "6D", "5D", "3D", "2D", "9H", "4S"]
    assert _own_nil(hand, ["KC"], 3, []) == "9H"
    # With the small hearts gone, the nine has one unseen heart under it and the queen of
    # diamonds two more than the seat's own. A spade under a winning spade is as safe as a
    # side card, and the seven of spades has five unseen spades under it: it goes first.
    gone = ["2H", "3H", "4H", "5H", "6H", "7H"]
    assert _own_nil(["QD", "6D", "5D", "3D", "2D", "9H", "7S"], ["KC", "QS"], 2, gone) == "7S"
    # Nobody has trumped: the seven would take the trick, so the queen of diamonds goes.
    assert _own_nil(["QD", "6D", "5D", "3D", "2D", "9H", "7S"], ["KC"], 3, gone) == "QD"


def test_the_own_nil_leads_as_normal_does() -> None:
    st = _alone(["4C", "9C", "3H", "KD"], [], 0, [NIL, 3, 3, 3], [0, 0, 0, 0])
    st.played |= _mask(["2C", "3C"])
    legal = legal_mask(st.hands[0], -1, st.broken, st.must_break)
    assert own_nil_card(st, 0) == nil_lead(st, 0, legal)


def _standing_nil_views(seed: int, mode: str, hands: int):  # type: ignore[no-untyped-def]
    """Views of a seat (the dealer's left) whose nil stands, from games where it bids nil
    whenever it may and the others play Normal."""
    game = Game.new(Rules(mode=mode, target=10_000), seed=f"own-nil-{seed}", dealer=seed % 4)
    nil_seat = (seed + 1) % 4
    while game.phase != "over" and game.hand_number <= hands:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if seat == nil_seat and {"type": "bid", "bid": "nil"} in view["legal"]:
            game.apply(seat, {"type": "bid", "bid": "nil"})
            continue
        if seat == nil_seat and view["phase"] == "playing" and view["tricks_won"][seat] == 0:
            yield view
        game.apply(seat, decide("basic", view, seed=seed))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=hst.integers(0, 1_000_000), hands=hst.integers(1, 3))
def test_property_the_own_nil_card_is_legal_and_ducks_when_it_can(seed: int, hands: int) -> None:
    """Whenever some legal card would not take the trick so far, the nil's card does not."""
    for view in _standing_nil_views(seed, "individual", hands):
        st = from_view(view)
        seat = int(view["seat"])
        card = own_nil_card(st, seat)
        first = st.trick[0] if st.trick else -1
        legal = legal_mask(st.hands[seat], first, st.broken, st.must_break)
        assert legal >> card & 1, view
        if not st.trick:
            continue
        takes = [winning_index([*st.trick, c]) == len(st.trick) for c in range(56)]
        if any(not takes[c] for c in range(56) if legal >> c & 1):
            assert not takes[card], view


@pytest.mark.parametrize("level", ["basic", "strong"])
def test_normal_and_hard_play_their_own_nil_by_rule_alone(level: str) -> None:
    seen = 0
    for seed in range(4):
        for view in _standing_nil_views(seed, "individual", 2):
            want = card_text(own_nil_card(from_view(view), int(view["seat"])))
            if level == "strong":
                assert decide_strong(view, seed=seed, iterations=64)["card"] == want
            else:
                assert decide(level, view, seed=seed)["card"] == want
            seen += 1
    assert seen > 20
