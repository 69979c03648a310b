"""Nil bidders above Easy never win a trick they could have ducked; nil and blind nil by odds."""

from __future__ import annotations

from typing import Any

import pytest

from spades.bots import decide
from spades.bots.bidding import nil_odds, wants_blind_nil
from spades.bots.strong import decide_strong
from spades.engine import Game, Rules
from spades.engine.cards import parse_card

RANKS = "23456789TJQKA"


def _beats(card: str, win: str) -> bool:
    if card[1] == win[1]:
        return RANKS.index(card[0]) > RANKS.index(win[0])
    return card[1] == "S"


def _winning(cards: list[dict[str, Any]]) -> str:
    win = cards[0]["card"]
    for entry in cards[1:]:
        if _beats(entry["card"], win):
            win = entry["card"]
    return win


def _decide(level: str, view: dict[str, Any], n: int) -> dict[str, Any]:
    if level == "strong":
        return decide_strong(view, seed=n, iterations=40)
    return decide(level, view, seed=n)


@pytest.mark.parametrize(
    ("level", "mode", "deals"),
    [
        ("basic", "partnership", 150),
        ("basic", "individual", 150),
        ("strong", "partnership", 25),
        ("strong", "individual", 20),
    ],
)
def test_nil_bidder_never_wins_a_trick_it_could_duck(level: str, mode: str, deals: int) -> None:
    checked = 0
    for d in range(deals):
        game = Game.new(Rules(mode=mode, target=10_000), seed=f"nil-{mode}-{d}", dealer=d % 4)
        nil_seat = d % 4
        n = 0
        while game.phase != "over" and game.hand_number == 1:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            legal = view["legal"]
            if seat == nil_seat and {"type": "bid", "bid": "nil"} in legal:
                action: dict[str, Any] = {"type": "bid", "bid": "nil"}
            elif seat == nil_seat and view["phase"] == "playing":
                action = _decide(level, view, n)
                trick = view["current_trick"]["cards"]
                if trick and view["tricks_won"][seat] == 0:
                    win = _winning(trick)
                    cards = [a["card"] for a in legal]
                    losing = [c for c in cards if not _beats(c, win)]
                    if losing:
                        checked += 1
                        assert not _beats(action["card"], win), (view, action)
            else:
                action = decide("basic", view, seed=n)
            game.apply(seat, action)
            n += 1
    assert checked > deals  # the rule was exercised, not skipped


def test_nil_odds_rank_safe_hands_above_dangerous_ones() -> None:
    def hand(text: str) -> int:
        mask = 0
        for c in text.split():
            mask |= 1 << parse_card(c)
        return mask

    safe = hand("2S 3S 2H 3H 4H 5H 2D 3D 4D 6D 2C 3C 5C")
    risky = hand("KS QS 9S AH KH QH 7D 8D 9D TC JC QC KC")
    assert nil_odds(safe, True) > 0.7
    assert nil_odds(risky, True) < 0.1
    assert nil_odds(safe, False) < nil_odds(safe, True)  # no partner to cover
    assert nil_odds(hand("AS 2H 3H 4H 5H 2D 3D 4D 6D 2C 3C 5C 6C"), True) == 0.0


def test_blind_nil_is_not_bid_at_the_measured_odds() -> None:
    for scores in ([0, 0], [100, 480], [-200, 450]):
        assert not wants_blind_nil(scores, 0, 500, 2, [-1, -1, -1, -1])
    assert not wants_blind_nil([0, 0, 0, 480], 0, 500, -1, [-1, -1, -1, -1])


def _hunt_state(hands: dict[int, list[str]], trick: list[str], leader: int) -> Any:
    from spades.bots.state import NIL, PlayState

    st = PlayState()
    for seat, cards in hands.items():
        st.hands[seat] = sum(1 << parse_card(c) for c in cards)
    st.bids = [NIL, 3, 4, 3]
    st.prepare()
    st.leader = leader
    for card in trick:
        st.play(parse_card(card))
    return st


def test_a_hunter_stays_under_the_nil_and_plays_low_in_front_of_it() -> None:
    from spades.bots.worlds import hunt_card

    # The nil bidder (seat 0) is winning the trick: the highest card that still loses to it.
    st = _hunt_state({0: ["8H"], 1: ["2H", "7H", "9H", "KH"]}, ["8H"], leader=0)
    assert hunt_card(st, 1, 0) == parse_card("7H")
    # The nil bidder plays after: low, whatever the hunter's own contract needs.
    st = _hunt_state({2: ["KC"], 3: ["4C", "QC", "AC"]}, ["KC"], leader=2)
    assert hunt_card(st, 3, 0) == parse_card("4C")
    # Leads, a void in the suit led, nothing under the nil's card: basic's card instead.
    st = _hunt_state({1: ["5H", "3D", "9C"]}, [], leader=1)
    assert hunt_card(st, 1, 0) == -1
    st = _hunt_state({0: ["8H"], 1: ["2S", "7C"]}, ["8H"], leader=0)
    assert hunt_card(st, 1, 0) == -1
    st = _hunt_state({0: ["3H"], 1: ["9H", "KH"]}, ["3H"], leader=0)
    assert hunt_card(st, 1, 0) == -1


@pytest.mark.parametrize(("deal", "keeps"), [(23, True), (28, True), (19, False), (173, False)])
def test_hard_keeps_basic_nils_only_where_they_pay_at_the_table(
    deal: int, keeps: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Basic bids nil on all four (first to bid, 0-0; odds 0.81, 0.82, 0.71, 0.74); with the
    stretch on, Hard keeps the nil only where it still pays at the odds against a searching
    table; off (the default), it keeps every one."""
    from spades.bots import bid_search, strong
    from spades.bots.bidding import choose_bid

    monkeypatch.setattr(strong, "NIL_SEARCH_MIN", 0.0)  # (the nil by rollouts: its own tests)
    game = Game.new(Rules(mode="partnership", target=500), seed=f"hn:{deal}", dealer=3)
    view = game.view(0)
    assert choose_bid(view) == {"type": "bid", "bid": "nil"}
    assert decide_strong(view, seed=deal, iterations=40) == {"type": "bid", "bid": "nil"}
    monkeypatch.setattr(bid_search, "NIL_SLOPE", 1.6)
    action = decide_strong(view, seed=deal, iterations=40)
    assert (action["bid"] == "nil") == keeps
    assert action in view["legal"]


def test_hard_searches_twice_as_long_while_its_side_nil_stands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from spades.bots import card_search
    from spades.bots.strong import SearchStats

    game = Game.new(Rules(mode="partnership", target=500), seed="nil-iter", dealer=3)
    while game.phase == "bidding":
        seat = game.to_act
        assert seat is not None
        bid = {"type": "bid", "bid": "nil"} if seat == 0 else decide("basic", game.view(seat))
        game.apply(seat, bid)
    checked = 0
    while game.phase == "playing" and checked < 3:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        standing = view["tricks_won"][0] == 0
        if standing and seat in (0, 2) and len(view["legal"]) > 1:
            done = []
            for factor in (1.0, 2.0):
                monkeypatch.setattr(card_search, "NIL_SIDE_ITER", factor)
                stats = SearchStats()
                decide_strong(view, seed=1, iterations=40, stats=stats)
                done.append(stats.rollouts)
            if done[0]:  # (no search when one card is left worth searching)
                assert done[0] < 40 + 13 and done[1] >= 80
                checked += 1
        game.apply(seat, decide("basic", view))
    assert checked
