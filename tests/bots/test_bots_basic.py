"""The basic bot's heuristics on hand-made situations."""

from __future__ import annotations

import random

from spades.bots.basic import choose_card, count_tricks, decide, estimate_tricks, nil_danger
from spades.bots.state import PlayState, from_view
from spades.bots.strong import sample_world
from spades.engine import Game, Rules, parse_card
from spades.engine.cards import SUIT_MASKS


def mask(*cards: str) -> int:
    m = 0
    for c in cards:
        m |= 1 << parse_card(c)
    return m


def state(
    hand: list[str],
    trick: list[str],
    leader: int,
    bids: list[int],
    won: list[int] | None = None,
    partnership: bool = True,
    played: tuple[str, ...] = (),
) -> PlayState:
    st = PlayState()
    seat = (leader + len(trick)) & 3
    st.hands[seat] = mask(*hand)
    st.trick = [parse_card(c) for c in trick]
    st.leader = leader
    st.played = mask(*trick, *played)
    st.bids = bids
    st.tricks_won = won or [0, 0, 0, 0]
    st.tricks_done = sum(st.tricks_won)
    st.partnership = partnership
    st.prepare()
    return st


def card(st: PlayState) -> str:
    from spades.engine import card_text

    return card_text(choose_card(st, st.to_act))


def test_last_hand_wins_as_cheaply_as_possible() -> None:
    st = state(["AH", "QH", "JH", "2H", "3C"], ["5H", "9H", "TH"], 0, [3, 3, 3, 3])
    assert card(st) == "JH"


def test_second_hand_low() -> None:
    st = state(["KH", "3H", "4C"], ["5H"], 0, [3, 3, 3, 3])
    assert card(st) == "3H"


def test_second_hand_plays_the_boss_when_it_is_safe() -> None:
    st = state(["AH", "3H", "4C"], ["5H"], 0, [3, 3, 3, 3])
    assert card(st) == "AH"


def test_no_bags_once_the_contract_is_made() -> None:
    # Seat 3 and partner seat 1 bid 2 in all and already took 2: duck under the ten.
    st = state(["AH", "9H", "4C"], ["5H", "8H", "TH"], 0, [4, 1, 4, 1], won=[1, 1, 2, 1])
    assert card(st) == "9H"


def test_cover_a_nil_partner_who_plays_after() -> None:
    # Seat 0 bid nil and plays last; seat 2 must take the trick high.
    st = state(["AH", "3H", "4C"], ["5H"], 1, [0, 3, 4, 3])
    assert card(st) == "AH"


def test_nil_bidder_plays_under_the_winner() -> None:
    st = state(["AH", "QH", "2C"], ["KH"], 1, [0, 3, 4, 3])
    st_seat = st.to_act
    assert st_seat == 2
    st = state(["AH", "QH", "2C"], ["KH"], 1, [4, 3, 0, 3])
    assert card(st) == "QH"


def test_stay_under_an_opponents_nil() -> None:
    # Seat 1 bid nil and is winning with the nine; seat 2 stays under it.
    st = state(["KH", "5H", "4C"], ["2H", "9H"], 0, [4, 0, 4, 3])
    assert card(st) == "5H"


def test_trump_when_void_and_the_contract_needs_it() -> None:
    st = state(["4S", "9S", "2C"], ["AH", "KH", "3H"], 1, [3, 3, 3, 3])
    # Seat 0 is void in hearts; opponent seat 1 leads the ace: ruff low (last to play).
    assert card(st) == "4S"


def test_ruff_with_the_lowest_spade_not_a_sure_winner() -> None:
    # Individual play, seat 0 third to play, void in hearts, two tricks still to take: the
    # ace of spades wins a trick of its own later, so the five ruffs (the old rule spent
    # the ace as "the lowest boss spade").
    for partnership in (False, True):
        st = state(["AS", "5S", "2C", "3D"], ["4H", "8H"], 2, [3, 3, 3, 3], partnership=partnership)
        assert st.to_act == 0
        assert card(st) == "5S"


def _bid_view(hand: list[str], partner_bid: int | None = None) -> dict:
    others = [c for c in _deck() if c not in hand]
    hands = [hand, others[:13], others[13:26], others[26:39]]
    game = Game.from_deal(Rules(), hands, dealer=3, seed="t")
    return game.view(0)


def _deck() -> list[str]:
    return [r + s for s in "CDHS" for r in "23456789TJQKA"]


def test_nil_on_a_safe_hand() -> None:
    hand = ["2S", "3S", "2H", "3H", "4H", "5H", "2D", "3D", "4D", "5D", "2C", "3C", "4C"]
    assert nil_danger(mask(*hand)) < 1.0
    assert decide(_bid_view(hand)) == {"type": "bid", "bid": "nil"}


def test_no_nil_with_the_ace_of_spades() -> None:
    hand = ["AS", "3S", "2H", "3H", "4H", "5H", "2D", "3D", "4D", "5D", "2C", "3C", "4C"]
    action = decide(_bid_view(hand))
    assert action["bid"] != "nil" and isinstance(action["bid"], int)


def test_strong_hand_bids_high() -> None:
    hand = ["AS", "KS", "QS", "JS", "TS", "AH", "KH", "AD", "KD", "AC", "KC", "2C", "3D"]
    assert estimate_tricks(mask(*hand)) >= 9
    assert decide(_bid_view(hand))["bid"] >= 8


def test_the_partnership_count_ranks_hands_as_a_player_would() -> None:
    """The fitted count (partnership) grows with honours and long spades; alone, a seat
    bids on the estimate itself."""
    strong = mask("AS", "KS", "QS", "JS", "TS", "AH", "KH", "AD", "KD", "AC", "KC", "2C", "3D")
    middling = mask("AS", "8S", "4S", "KH", "7H", "3H", "AD", "9D", "5D", "QC", "8C", "6C", "2C")
    weak = mask("2S", "3S", "2H", "3H", "4H", "5H", "2D", "3D", "4D", "5D", "2C", "3C", "4C")
    counts = [count_tricks(h, True) for h in (strong, middling, weak)]
    assert counts[0] > 8 > counts[1] > 1.5 > counts[2]
    for h in (strong, middling, weak):
        assert count_tricks(h, False) == estimate_tricks(h)


def test_view_knowledge_remembers_voids() -> None:
    game = Game.from_deal(
        Rules(),
        [
            [r + "C" for r in "23456789TJQKA"],
            [r + "D" for r in "23456789TJQKA"],
            [r + "H" for r in "23456789TJQKA"],
            [r + "S" for r in "23456789TJQKA"],
        ],
        dealer=3,
        seed="v",
    )
    for _ in range(4):
        seat = game.to_act
        assert seat is not None
        game.apply(seat, {"type": "bid", "bid": 3})
    game.apply(0, {"type": "play", "card": "2C"})
    game.apply(1, {"type": "play", "card": "2D"})
    st = from_view(game.view(2))
    assert st.voids[1] & 1  # seat 1 showed out of clubs
    assert st.trick == [parse_card("2C"), parse_card("2D")]


def test_sampled_worlds_respect_voids_and_sizes() -> None:
    st = PlayState()
    st.hands[0] = mask(*[r + "S" for r in "23456789TJQKA"])
    st.voids = [0, 1 << 2, 0, 1 << 0]  # seat 1 has no hearts, seat 3 no clubs
    rng = random.Random(5)
    for _ in range(50):
        hands = sample_world(st, 0, [13, 13, 13, 13], rng)
        assert hands is not None
        assert [h.bit_count() for h in hands] == [13, 13, 13, 13]
        assert not hands[1] & SUIT_MASKS[2]
        assert not hands[3] & SUIT_MASKS[0]
        assert hands[0] | hands[1] | hands[2] | hands[3] == (1 << 52) - 1


def _set_in_reach(partnership: bool, bags: list[int]) -> PlayState:
    """Seat 0 to lead 4 tricks from the end, its contract made (5 of 3); the seats after
    it still need 2 of the 4 tricks left: a set is in reach if seat 0 takes 3 of them."""
    st = PlayState()
    st.partnership = partnership
    st.hands = [0, 0, 0, 0]
    for text in ("AH", "2C", "3C", "4D"):
        st.hands[0] |= 1 << parse_card(text)
    if partnership:
        st.bids, st.tricks_won = [2, 3, 1, 3], [3, 2, 2, 2]
    else:
        st.bids, st.tricks_won = [3, 4, 1, 1], [5, 2, 1, 1]
    st.tricks_done, st.leader = 9, 0
    st.bags = bags
    st.prepare()
    return st


def test_basic_goes_for_a_set_with_two_tricks_to_spare_only_with_a_partner() -> None:
    ace, low = parse_card("AH"), parse_card("2C")
    # With a partner it cashes its winner to set the other side...
    assert choose_card(_set_in_reach(True, [0, 0]), 0) == ace
    # ...but not with its side's bags near the limit, where the set must be closer.
    assert choose_card(_set_in_reach(True, [8, 0]), 0) == low
    # Alone, the others would share what the set gains: it ducks, to take no bags.
    assert choose_card(_set_in_reach(False, [0, 0, 0, 0]), 0) == low
