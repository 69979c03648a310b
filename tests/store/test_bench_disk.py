"""The disk bench (bench/disk.py) times real durable appends in the folder it is given and
leaves nothing behind there."""

from __future__ import annotations

from pathlib import Path

from bench.disk import one_run


def test_a_run_times_every_sync_and_removes_its_file(tmp_path: Path) -> None:
    result = one_run(str(tmp_path), 20)
    assert 0 < result["p50_ms"] <= result["p99_ms"] <= result["p999_ms"] <= result["max_ms"]
    assert 0 <= result["over_100ms"] <= 20
    assert list(tmp_path.iterdir()) == []
