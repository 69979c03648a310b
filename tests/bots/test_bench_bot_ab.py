"""bench.bot_ab: every job starts from the strong bot's own constants."""

import pytest
from bench import bot_ab

from spades.bots import card_search, worlds


def _constants() -> dict[str, object]:
    # CARELESS is read by the card search under its own name: both must change.
    return {
        "sigma": worlds.BID_SIGMA,
        "careless": worlds.CARELESS,
        "careless_in_search": card_search.CARELESS,
    }


def test_a_variant_does_not_leak_into_the_next_job() -> None:
    defaults = _constants()
    try:
        bot_ab._configure({"BID_SIGMA": 2.5, "CARELESS": [0.0, 0.1]})
        assert _constants() == {
            "sigma": 2.5,
            "careless": (0.0, 0.1),
            "careless_in_search": (0.0, 0.1),
        }
        bot_ab._configure({})  # the baseline: the module's defaults again
        assert _constants() == defaults
        bot_ab._configure({"ITER": 100})
        assert _constants() == defaults
    finally:
        bot_ab._configure({})


def test_an_unknown_constant_is_refused() -> None:
    with pytest.raises(ValueError, match="NO_SUCH"):
        bot_ab._configure({"NO_SUCH": 1})
