import pytest

from spades.engine import Rules, RulesError


def test_defaults_follow_the_rule_book() -> None:
    r = Rules()
    assert r.mode == "partnership"
    assert r.target == 500
    assert r.nil and r.blind_nil
    assert r.blind_nil_deficit == 100
    assert (r.nil_value, r.blind_nil_value) == (100, 200)
    assert (r.bag_value, r.bag_limit, r.bag_penalty) == (1, 10, 100)
    assert r.spades_must_be_broken
    assert not r.nil_tricks_count_for_partner


def test_sides() -> None:
    p = Rules(mode="partnership")
    assert p.sides == 2
    assert [p.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert p.seats_of(1) == (1, 3)
    i = Rules(mode="individual")
    assert i.sides == 4
    assert [i.side_of(s) for s in range(4)] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mode": "teams"}, "mode"),
        ({"target": 0}, "target"),
        ({"target": "500"}, "target"),
        ({"nil": "yes"}, "nil"),
        ({"bag_limit": -1}, "bag_limit"),
        ({"bag_value": 11}, "bag_value"),
        ({"nil_value": True}, "nil_value"),
        ({"blind_nil_deficit": -5}, "blind_nil_deficit"),
    ],
)
def test_invalid_options_raise_clear_errors(options: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules.from_dict(options)


def test_from_dict_defaults_and_unknown_fields() -> None:
    assert Rules.from_dict({"mode": "individual"}) == Rules(mode="individual")
    assert Rules.from_dict(None) == Rules()
    with pytest.raises(RulesError, match="unknown rule option"):
        Rules.from_dict({"wild_cards": True})
    r = Rules(mode="individual", target=200, bag_value=-1)
    assert Rules.from_dict(r.to_dict()) == r


def test_rules_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Rules().target = 100  # type: ignore[misc]
