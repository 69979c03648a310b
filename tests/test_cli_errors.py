"""A bad argument to any `spades` command is one clear line on stderr and exit status 2:
no traceback, no usage block, and nothing started (no server, no game, no database)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BAD = {
    "unknown command": ["nosuch"],
    "log level": ["serve", "--log-level", "loud"],
    "database URL": ["serve", "--database-url", "notaurl"],
    "port out of range": ["serve", "--port", "99999"],
    "port not a number": ["serve", "--port", "http"],
    "log format": ["serve", "--log-format", "xml"],
    "rules not JSON": ["simulate", "--rules", "notjson"],
    "rules not an object": ["simulate", "--rules", "[1]"],
    "rules out of range": ["simulate", "--target", "0"],
    "no games": ["simulate", "--games", "0"],
    "seats": ["simulate", "--seats", "basic,genius,basic,basic"],
    "strong iterations": ["simulate", "--strong-iterations", "-3"],
    "strong budget": ["simulate", "--strong-budget-ms", "soon"],
    "results file": ["simulate", "--games", "1", "--results", "missing/dir/results.jsonl"],
    "bot level": ["bot", "--level", "genius"],
    "bot iterations": ["bot", "--iterations", "0"],
    "bot budget": ["bot", "--budget-ms", "-1"],
    "score file": ["score", "missing.json"],
    "score without a file": ["score"],
    "backup without a path": ["db", "backup"],
    "backup of no database": ["db", "backup", "copy.db"],
    "restore of no backup": ["db", "restore", "missing.db"],
    "backup on PostgreSQL": ["db", "backup", "x.db", "--url", "postgresql://u@127.0.0.1:1/x"],
    "admin without a username": ["admin", "grant"],
    "admin with a bad URL": ["admin", "grant", "alice", "--url", "notaurl"],
}


def spades(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        # Should a check be missing, the server must not touch a real database or port.
        "SPADES_DATABASE_URL": f"sqlite+aiosqlite:///{cwd / 'never.db'}",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "spades.cli", *args],
        cwd=cwd,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def assert_refused(done: subprocess.CompletedProcess[str], cwd: Path) -> None:
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("spades"), done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert not (cwd / "never.db").exists()


@pytest.mark.parametrize("args", BAD.values(), ids=BAD.keys())
def test_a_bad_argument_is_one_line_and_status_2(args: list[str], tmp_path: Path) -> None:
    assert_refused(spades(args, tmp_path), tmp_path)


@pytest.mark.parametrize(
    ("name", "value"),
    [("SPADES_DATABASE_URL", "notaurl"), ("SPADES_MAX_ROOMS", "many")],
)
def test_a_bad_setting_is_one_line_naming_its_variable(
    name: str, value: str, tmp_path: Path
) -> None:
    done = spades(["serve", "--port", "0"], tmp_path, **{name: value})
    assert_refused(done, tmp_path)
    assert name in done.stderr


def test_the_message_says_what_is_wrong(tmp_path: Path) -> None:
    done = spades(["serve", "--log-level", "loud"], tmp_path)
    assert "--log-level" in done.stderr and "'loud'" in done.stderr and "info" in done.stderr
    done = spades(["simulate", "--rules", "notjson"], tmp_path)
    assert "--rules" in done.stderr and "not JSON" in done.stderr
