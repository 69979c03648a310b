"""Normal alone at the end of the game (`spades.bots.normal_individual`, issue 61): the
desperate nil, the desperate overbid and the safe bid, judged on the game, not the points."""

from __future__ import annotations

import pytest

from spades.bots import normal_individual as ni
from spades.bots.bidding import BidContext
from spades.bots.state import NIL, UNKNOWN


def _ctx(*scores: int) -> BidContext:
    return BidContext(scores=scores, bags=(0, 0, 0, 0), target=500)


def test_the_threat_is_the_best_score_a_made_bid_takes_past_ours() -> None:
    bids = [UNKNOWN, 4, UNKNOWN, UNKNOWN]
    assert ni.threat_score(_ctx(300, 470, 200, 250), 0, bids, 3) == 510
    # Our own bid ends higher, or nobody reaches the target: no threat.
    assert ni.threat_score(_ctx(480, 470, 200, 250), 0, bids, 4) == 0
    assert ni.threat_score(_ctx(300, 450, 200, 250), 0, [UNKNOWN, 4, 3, 2], 3) == 0
    # A player still to bid is counted at DESPERATE_EST tricks; a nil at the nil's value.
    assert ni.threat_score(_ctx(300, 200, 480, 250), 0, bids, 3) == 480 + 10 * ni.DESPERATE_EST
    assert ni.threat_score(_ctx(300, 420, 200, 250), 0, [UNKNOWN, NIL, 2, 2], 3) == 520


def test_a_desperate_nil_only_when_a_made_nil_passes_the_threat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ni, "DESPERATE_P_MIN", 0.5)
    bids = [UNKNOWN, 4, UNKNOWN, UNKNOWN]
    assert ni.desperate_nil(_ctx(420, 470, 200, 250), 0, bids, 3, 0.55)
    assert not ni.desperate_nil(_ctx(420, 470, 200, 250), 0, bids, 3, 0.45)  # odds too low
    assert not ni.desperate_nil(_ctx(300, 470, 200, 250), 0, bids, 3, 0.9)  # nil falls short
    assert not ni.desperate_nil(_ctx(420, 400, 200, 250), 0, bids, 3, 0.9)  # nobody wins
    monkeypatch.setattr(ni, "DESPERATE_P_MIN", 2.0)
    assert not ni.desperate_nil(_ctx(420, 470, 200, 250), 0, bids, 3, 0.99)  # off


def test_the_desperate_overbid_passes_the_threat_within_its_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ni, "DESPERATE_OVER", 2)
    bids = [UNKNOWN, 4, UNKNOWN, UNKNOWN]  # seat 1 ends on 510 with its 4
    assert ni.desperate_bid(_ctx(480, 470, 200, 250), 0, bids, 2) == 4  # 520 passes 510
    assert ni.desperate_bid(_ctx(480, 470, 200, 250), 0, bids, 1) == 1  # 3 over: out of reach
    assert ni.desperate_bid(_ctx(450, 470, 200, 250), 0, bids, 3) == 3  # 7 needed
    assert ni.desperate_bid(_ctx(480, 470, 200, 250), 0, [UNKNOWN, 4, 4, 4], 2) == 2  # no room
    monkeypatch.setattr(ni, "DESPERATE_OVER", 0)
    assert ni.desperate_bid(_ctx(480, 470, 200, 250), 0, bids, 2) == 2


def test_the_safe_bid_when_one_less_still_wins_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ni, "SAFE_ALONE", True)
    bids = [UNKNOWN, 3, UNKNOWN, UNKNOWN]
    assert ni.desperate_bid(_ctx(470, 400, 200, 250), 0, bids, 4) == 3  # 500 wins anyway
    assert ni.desperate_bid(_ctx(460, 400, 200, 250), 0, bids, 4) == 4  # 490: short of it
    assert ni.desperate_bid(_ctx(470, 480, 200, 250), 0, bids, 4) == 4  # 510 would win
    monkeypatch.setattr(ni, "SAFE_ALONE", False)
    assert ni.desperate_bid(_ctx(470, 400, 200, 250), 0, bids, 4) == 4


def test_normal_bids_the_desperate_nil_and_overbid_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    from spades.bots.normal import normal_bid_number
    from spades.engine import parse_card

    hand = 0
    for c in ["2C", "4C", "7C", "9C", "3D", "5D", "8D", "2H", "6H", "9H", "JH", "3S", "KS"]:
        hand |= 1 << parse_card(c)
    view = {"scores": [420, 470, 200, 250], "bags": [0, 0, 0, 0], "rules": {"target": 500}}
    bids = [UNKNOWN, 4, UNKNOWN, UNKNOWN]  # seat 1 ends on 510 with its 4
    monkeypatch.setattr(ni, "DESPERATE_OVER", 0)
    monkeypatch.setattr(ni, "DESPERATE_P_MIN", 2.0)
    plain = normal_bid_number(hand, 0, bids, False, True, view)
    assert plain != NIL
    monkeypatch.setattr(ni, "DESPERATE_P_MIN", 0.0)
    assert normal_bid_number(hand, 0, bids, False, True, view) == NIL
    assert normal_bid_number(hand, 0, bids, False, False, view) == plain  # no nil in this room
    # No nil to bid: the overbid that passes 510 when it is within reach.
    monkeypatch.setattr(ni, "DESPERATE_OVER", 2)
    view["scores"] = [510 - 10 * plain - 10, 470, 200, 250]
    assert normal_bid_number(hand, 0, bids, False, False, view) == plain + 2
    # The partnership path is untouched.
    assert normal_bid_number(hand, 0, bids, True, False, view) == plain
