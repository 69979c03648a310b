"""The Normal CPU bench (bench/normal_cpu.py) times both levels on the same views."""

from __future__ import annotations

from bench.normal_cpu import one_run


def test_both_levels_are_timed_on_every_view() -> None:
    out = one_run(1, 0)
    assert out["normal"]["n"] == out["frozen"]["n"] > 100
    assert all(out[level]["p99_ms"] >= out[level]["p50_ms"] >= 0 for level in out)
