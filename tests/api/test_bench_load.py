"""`python -m bench.load` still runs end to end (tiny sizes: a smoke test, not a measurement)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ci_env import bench_smoke

ROOT = Path(__file__).resolve().parents[2]
pytestmark = bench_smoke


def load(*args: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.load", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("kind", ["humans", "solo"])
def test_two_driver_processes(kind: str) -> None:
    (out,) = load(
        "--kind",
        kind,
        "--rooms",
        "4",
        "--procs",
        "2",
        "--seconds",
        "3",
        "--warmup",
        "1",
        "--spread",
        "0.5",
    )
    assert out["rooms"] == 4
    assert out["connections"] == (16 if kind == "humans" else 4)
    assert out["errors"] == {} and out["disconnects"] == 0
    assert out["actions_per_s"] > 0
    latency = out["latency_ms"]
    assert isinstance(latency, dict) and latency["n"] > 0
    server = out["server"]
    assert isinstance(server, dict) and server["action_ms_p99_le"] is not None
    # the longest commit, so a store stall can be told from the server's own queueing
    assert server["commit_ms_max_le"] is not None
    reference = out["machine_reference_ms"]  # the machine's speed, beside the figures
    assert isinstance(reference, float) and reference > 0


def test_ramp_in_one_process_prints_the_last_good_size() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.load",
            "--ramp",
            "--start",
            "2",
            "--step",
            "2",
            "--max-rooms",
            "4",
            "--seconds",
            "2",
            "--warmup",
            "1",
            "--spread",
            "0.5",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "last good R:" in done.stdout


def test_idle_rooms_memory() -> None:
    (out,) = load("--idle", "20")
    assert out["idle_rooms"] == 20
    assert isinstance(out["bytes_per_idle_room"], int)


def test_rooms_play_game_after_game_without_getting_stuck() -> None:
    """Quick players, short games: every room ends games and starts the next (a seat that
    remembered its look from the last game's hand of the same number once stalled rooms)."""
    (out,) = load(
        "--kind",
        "humans",
        "--rooms",
        "6",
        "--think",
        "0.005",
        "--target",
        "250",
        "--until-games",
        "6",
        "--seconds",
        "150",  # a guard against a hang, not a measure: the window ends at 6 games
        "--warmup",
        "1",
        "--spread",
        "0.2",
    )
    assert out["errors"] == {} and out["disconnects"] == 0
    assert isinstance(out["games_ended"], int) and out["games_ended"] >= 6
    assert out["stalled_rooms"] == 0
    hands = out["hands_per_game"]
    assert isinstance(hands, dict) and hands["mean"] >= 1


def test_a_failed_step_names_a_store_stall() -> None:
    from bench.load import stalled_commit_ms

    assert stalled_commit_ms({"server": {"commit_ms_max_le": 1000.0}}) == 1000.0
    assert stalled_commit_ms({"server": {"commit_ms_max_le": 250.0}}) is None
    assert stalled_commit_ms({"server": {"commit_ms_max_le": None}}) is None
    assert stalled_commit_ms({"server": None}) is None  # a cluster's window has no server part
