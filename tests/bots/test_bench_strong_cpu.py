"""The strong CPU bench (bench/strong_cpu.py) times real choices: card plays from fixed
deals, each with more than one legal card, the same on every run."""

from __future__ import annotations

from bench.strong_cpu import views


def test_the_views_are_real_choices_and_fixed() -> None:
    first = views(1, "partnership")
    assert first and all(v["phase"] == "playing" and len(v["legal"]) > 1 for v in first)
    assert first == views(1, "partnership")
