"""Normal (`basic`) as a partner (issue 61): it covers a nil partner and leaves a partner's
sure winner alone."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from spades.bots import decide
from spades.bots.normal import normal_card
from spades.bots.state import PlayState
from spades.engine import Game, Rules, card_text, parse_card

RANKS = "23456789TJQKA"


def _beats(card: str, win: str) -> bool:
    if card[1] == win[1]:
        return RANKS.index(card[0]) > RANKS.index(win[0])
    return card[1] == "S"


def _winner(cards: list[dict[str, Any]]) -> dict[str, Any]:
    win = cards[0]
    for entry in cards[1:]:
        if _beats(entry["card"], win["card"]):
            win = entry
    return win


def test_a_nil_partner_winning_the_trick_is_always_overtaken_when_a_card_can() -> None:
    """Property over 300 deals: whenever the partner of a Normal bot bid nil and is winning
    the trick so far, and the bot holds a legal card that takes it, the bot plays one (unless
    it bid nil too and its own nil still stands)."""
    checked = 0
    for d in range(300):
        game = Game.new(Rules(target=10_000), seed=f"normal-cover-{d}", dealer=d % 4)
        nil_seat = d % 4
        while game.phase != "over" and game.hand_number == 1:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            if seat == nil_seat and {"type": "bid", "bid": "nil"} in view["legal"]:
                game.apply(seat, {"type": "bid", "bid": "nil"})
                continue
            action = decide("basic", view, seed=d)
            trick = view["current_trick"]["cards"] if view["phase"] == "playing" else []
            own_nil = view["bids"][seat] == "nil" and view["tricks_won"][seat] == 0
            if seat == (nil_seat + 2) % 4 and trick and not own_nil:
                win = _winner(trick)
                if win["seat"] == nil_seat:
                    taking = [a["card"] for a in view["legal"] if _beats(a["card"], win["card"])]
                    if taking:
                        checked += 1
                        assert action["card"] in taking, (view, action)
            game.apply(seat, action)
    assert checked > 100  # the rule was exercised, not skipped


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=hst.integers(0, 1_000_000),
    nil_seat=hst.integers(0, 3),
    opponent_nil=hst.booleans(),
    hands=hst.integers(1, 3),
)
def test_property_a_winning_nil_partner_is_overtaken(
    seed: int, nil_seat: int, opponent_nil: bool, hands: int
) -> None:
    """Hypothesis over deals, scores and a second nil on the other side (the hunt): whenever a
    Normal bot's partner bid nil and is winning the trick so far, and the bot holds a legal card
    that takes it, the bot plays one (unless its own nil stands)."""
    game = Game.new(Rules(target=10_000), seed=f"normal-prop-{seed}", dealer=seed % 4)
    forced = {nil_seat, (nil_seat + 1) % 4} if opponent_nil else {nil_seat}
    while game.phase != "over" and game.hand_number <= hands:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if seat in forced and {"type": "bid", "bid": "nil"} in view["legal"]:
            game.apply(seat, {"type": "bid", "bid": "nil"})
            continue
        action = decide("basic", view, seed=seed)
        trick = view["current_trick"]["cards"] if view["phase"] == "playing" else []
        own_nil = view["bids"][seat] == "nil" and view["tricks_won"][seat] == 0
        if view["bids"][(seat + 2) % 4] == "nil" and trick and not own_nil:
            win = _winner(trick)
            if win["seat"] == (seat + 2) % 4:
                taking = [a["card"] for a in view["legal"] if _beats(a["card"], win["card"])]
                if taking:
                    assert action["card"] in taking, (view, action)
        game.apply(seat, action)


def test_the_coverer_ruffs_low_in_front_of_its_nil_partner() -> None:
    # Seat 1 leads a club; seat 2 (void in clubs) covers its partner seat 0, who bid nil and
    # plays last: the lowest spade takes the trick as well as the ace would.
    st = _state(["AS", "KS", "3S", "4H"], ["9C"], 1, [0, 3, 4, 3])
    st.voids[2] = 1 << 0
    assert card_text(normal_card(st, 2)) == "3S"


def test_a_hunter_stays_low_in_front_of_a_nil_and_under_it() -> None:
    # Seat 1 bid nil. Seat 0 leads: a low card of a suit the nil may hold.
    st = _state(["2H", "KH", "AC", "9C", "5S"], [], 0, [3, 0, 4, 3])
    assert card_text(normal_card(st, 0)) == "2H"
    # Seat 2 (the partner) leads the 6 of diamonds, seat 3 (the nil's partner) plays the 2;
    # the nil, seat 1, plays after seat 0: the bar stays the 6, and seat 0 keeps its 3 for later.
    st = _state(["5D", "3D", "KD", "AC"], ["6D", "2D"], 2, [3, 0, 4, 3])
    assert card_text(normal_card(st, 0)) == "5D"


def _state(hand: list[str], trick: list[str], leader: int, bids: list[int]) -> PlayState:
    st = PlayState()
    seat = (leader + len(trick)) & 3
    for c in hand:
        st.hands[seat] |= 1 << parse_card(c)
    st.trick = [parse_card(c) for c in trick]
    st.leader = leader
    for c in trick:
        st.played |= 1 << parse_card(c)
    st.bids = bids
    st.prepare()
    return st


def test_a_partners_sure_winner_is_not_overtaken() -> None:
    # Seat 1 leads the king of hearts, seat 2 follows; seat 0, still to play, is void in hearts
    # (it may ruff). The ace is in seat 3's hand: no unseen heart is above the king, so seat 3
    # plays low (the basic policy would spend the ace against the ruff).
    st = _state(["AH", "4H", "5C"], ["KH", "3H"], 1, [3, 3, 3, 3])
    st.voids[0] = 1 << 2
    assert card_text(normal_card(st, 3)) == "4H"


def test_one_trick_less_when_the_side_reaches_the_target_anyway() -> None:
    from spades.bots.bidding import bid_for_count, count_tricks
    from spades.bots.normal import normal_bid_number

    hand = 0
    for c in ("AS", "KS", "QS", "5S", "AH", "KH", "4H", "AD", "3D", "2D", "4C", "3C", "2C"):
        hand |= 1 << parse_card(c)
    bids = [4, 3, -1, -1]  # seat 2 bids after its partner's 4
    n = bid_for_count(count_tricks(hand, True), 2, bids, True, 0)
    assert n > 1
    far = {"scores": [100, 100], "bags": [0, 0], "rules": {"target": 500}}
    near = {"scores": [460, 100], "bags": [0, 0], "rules": {"target": 500}}
    assert normal_bid_number(hand, 2, bids, True, False, far) == n
    assert normal_bid_number(hand, 2, bids, True, False, near) == n - 1
