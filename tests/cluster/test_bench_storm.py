"""`python -m bench.cluster storm` still runs end to end (ten rooms: a smoke test, not a
measurement): the victim's players all come back, and no acknowledged action is lost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ci_env import bench_smoke

ROOT = Path(__file__).resolve().parents[2]
pytestmark = bench_smoke


def test_a_small_reconnect_storm(services: None) -> None:
    command = ["storm", "--rooms", "10", "--warmup", "6", "--after", "8", "--spread", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "bench.cluster", *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (out,) = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert out["rooms_on_victim"] > 0
    assert out["players_of_victim"] == 4 * out["rooms_on_victim"]
    assert out["players_not_back"] == 0
    assert out["ms_until_playing_again"]["n"] == out["players_of_victim"]
    assert out["acknowledged_actions"] > 0 and out["actions_lost"] == 0
    assert len(out["survivor_p99_ms_per_s_own_rooms"]) == 8
