"""Every example of docs/rules.md "Scoring a hand", plus the bag and nil corner cases."""

from spades.engine import Rules, score_hand, winner_after

IND = Rules(mode="individual")
PART = Rules(mode="partnership")
NIL = 0


def individual(
    bid: int, took: int, *, score: int = 0, bags: int = 0, blind: bool = False
) -> tuple[int, int, int]:
    """Seat 0's points, new score and bags; the other seats bid 1 and take the rest."""
    rest = 13 - took
    tricks = [took, rest, 0, 0]
    result = score_hand(
        IND, [bid, 1, 1, 1], [blind, False, False, False], tricks, [score, 0, 0, 0], [bags, 0, 0, 0]
    )
    return result.points[0], result.scores[0], result.bags[0]


def test_individual_bid_4_took_4() -> None:
    assert individual(4, 4) == (40, 40, 0)


def test_individual_bid_4_took_6() -> None:
    assert individual(4, 6) == (42, 42, 2)


def test_individual_set() -> None:
    assert individual(5, 3, score=100) == (-50, 50, 0)


def test_individual_nil_made_and_failed() -> None:
    assert individual(NIL, 0, score=400)[1] == 500
    points, score, bags = individual(NIL, 2, score=400)
    assert (points, score, bags) == (-98, 302, 2)


def test_individual_blind_nil_made_and_failed() -> None:
    assert individual(NIL, 0, score=300, blind=True)[1] == 500
    assert individual(NIL, 1, score=300, blind=True)[1] == 101


def test_individual_bag_limit_reached() -> None:
    points, score, bags = individual(3, 5, bags=8)
    assert (points, score, bags) == (-68, -68, 0)
    result = score_hand(IND, [3, 1, 1, 1], [False] * 4, [5, 8, 0, 0], [0] * 4, [8, 0, 0, 0])
    assert result.bags_added[0] == 2
    assert result.bag_penalty[0] == -100


def test_partnership_nil_made_partner_over() -> None:
    # South (0) nil took 0, North (2) bid 4 took 5; West/East bid 4+4 and take the rest.
    r = score_hand(PART, [NIL, 4, 4, 4], [False] * 4, [0, 4, 5, 4], [0, 0], [0, 0])
    assert r.points[0] == 141
    assert r.bags[0] == 1


def test_partnership_nil_failed_tricks_do_not_help_partner() -> None:
    r = score_hand(PART, [NIL, 4, 4, 4], [False] * 4, [2, 4, 3, 4], [0, 0], [0, 0])
    assert r.points[0] == -138
    assert r.bags_added[0] == 2
    assert r.contract_made[0] is False
    assert r.nil_made[0] is False


def test_partnership_contract_is_sum_of_bids() -> None:
    r = score_hand(PART, [3, 4, 2, 3], [False] * 4, [2, 5, 4, 2], [0, 0], [0, 0])
    assert r.points == (51, 70)  # side 0: bid 5 took 6; side 1: bid 7 took 7


def test_nil_tricks_count_for_partner_option() -> None:
    rules = Rules(nil_tricks_count_for_partner=True)
    # South nil took 2, North bid 4 took 3: the 2 nil tricks make North's contract, 1 bag.
    r = score_hand(rules, [NIL, 4, 4, 4], [False] * 4, [2, 4, 3, 4], [0, 0], [0, 0])
    assert r.points[0] == -100 + 40 + 1
    assert r.bags_added[0] == 1
    # Set even with the nil tricks: no bags at all.
    r = score_hand(rules, [NIL, 4, 6, 3], [False] * 4, [1, 6, 2, 4], [0, 0], [0, 0])
    assert r.points[0] == -100 - 60
    assert r.bags_added[0] == 0


def test_double_nil_every_trick_is_a_bag() -> None:
    r = score_hand(PART, [NIL, 6, NIL, 6], [False] * 4, [1, 6, 2, 4], [0, 0], [0, 0])
    assert r.points[0] == -100 - 100 + 3
    assert r.bags_added[0] == 3
    assert r.contract_made[0] is None
    r = score_hand(PART, [NIL, 6, NIL, 6], [False] * 4, [0, 6, 0, 7], [0, 0], [0, 0])
    assert r.points[0] == 200


def test_thirteen_bags_carry_three() -> None:
    # Side 0 bid 0 of contract via double nil? No: bid 1 + nil, took 13 -> 12 bags... use 3 carried.
    r = score_hand(PART, [1, 0, 1, 0], [False] * 4, [7, 0, 6, 0], [0, 0], [1, 0])
    # contract 2, took 13: 11 bags + 1 carried = 12 -> -100, 2 carried; side 1 double nil failed.
    assert r.bags[0] == 2
    assert r.bag_penalty[0] == -100
    r = score_hand(PART, [1, 4, 1, 4], [False] * 4, [7, 0, 6, 0], [0, 0], [2, 0])
    assert r.bags_added[0] == 11
    assert r.bags[0] == 3  # 13 bags: -100 and 3 carried
    assert r.points[0] == 20 + 11 - 100


def test_twenty_three_bags_two_penalties() -> None:
    r = score_hand(IND, [1, 1, 1, 1], [False] * 4, [13, 0, 0, 0], [0] * 4, [11, 0, 0, 0])
    assert r.bags_added[0] == 12
    assert r.bag_penalty[0] == -200
    assert r.bags[0] == 3


def test_bag_value_and_no_limit_options() -> None:
    r = score_hand(
        Rules(mode="individual", bag_value=-1),
        [3, 1, 1, 1],
        [False] * 4,
        [5, 8, 0, 0],
        [0] * 4,
        [0] * 4,
    )
    assert r.points[0] == 28
    r = score_hand(
        Rules(mode="individual", bag_limit=0),
        [1, 1, 1, 1],
        [False] * 4,
        [13, 0, 0, 0],
        [0] * 4,
        [50, 0, 0, 0],
    )
    assert r.bags[0] == 62
    assert r.bag_penalty[0] == 0


def test_negative_scores() -> None:
    r = score_hand(IND, [5, 1, 1, 1], [False] * 4, [0, 13, 0, 0], [-30, 0, 0, 0], [0] * 4)
    assert r.scores[0] == -80


def test_game_end_by_target_and_ties() -> None:
    rules = Rules(mode="partnership", target=500)
    assert winner_after(rules, [480, 300], time_up=False) is None
    assert winner_after(rules, [510, 300], time_up=False) == 0
    assert winner_after(rules, [510, 530], time_up=False) == 1
    assert winner_after(rules, [520, 520], time_up=False) is None  # tie plays on
    ind = Rules(mode="individual", target=200)
    assert winner_after(ind, [210, 220, 220, 0], time_up=False) is None
    assert winner_after(ind, [210, 220, 221, 0], time_up=False) == 2


def test_time_up_highest_wins_ties_play_on() -> None:
    rules = Rules(mode="partnership", target=500)
    assert winner_after(rules, [120, 90], time_up=True) == 0
    assert winner_after(rules, [120, 120], time_up=True) is None


def partnership(
    bids: tuple[int, int],
    took: tuple[int, int],
    *,
    score: int = 0,
    bags: int = 0,
    blind: bool = False,
) -> tuple[int, int, int]:
    """Side 0's points, new score and bags: South and North bid and take as given."""
    rest = 13 - sum(took)
    tricks = [took[0], rest, took[1], 0]
    result = score_hand(
        PART,
        [bids[0], 1, bids[1], 1],
        [blind, False, False, False],
        tricks,
        [score, 0],
        [bags, 0],
    )
    return result.points[0], result.scores[0], result.bags[0]


def test_individual_examples_hold_for_a_partnership_side() -> None:
    assert partnership((2, 2), (2, 2)) == (40, 40, 0)
    assert partnership((2, 2), (3, 3)) == (42, 42, 2)
    assert partnership((3, 2), (1, 2), score=100) == (-50, 50, 0)
    assert partnership((2, 1), (4, 1), bags=8) == (-68, -68, 0)
    # Nil with a partner who makes exactly 3: the nil part matches the individual example.
    assert partnership((NIL, 3), (0, 3), score=400)[1] == 400 + 100 + 30
    assert partnership((NIL, 3), (2, 3), score=400) == (-100 + 30 + 2, 332, 2)
    assert partnership((NIL, 3), (0, 3), score=300, blind=True)[1] == 300 + 200 + 30
    assert partnership((NIL, 3), (1, 3), score=300, blind=True)[1] == 300 - 200 + 30 + 1
