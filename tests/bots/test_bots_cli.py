"""`spades bot` through a real subprocess, and `spades simulate --json`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from spades.bots import decide
from spades.cli import main
from spades.engine import Game, Rules


def test_spades_bot_answers_each_line_as_it_comes() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "spades.cli", "bot", "--level", "basic"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        game = Game.new(Rules(mode="individual", target=500), seed="proto")
        for _ in range(60):  # one line at a time: the answer must arrive before the next view
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            proc.stdin.write(json.dumps(view) + "\n")
            proc.stdin.flush()
            action = json.loads(proc.stdout.readline())
            assert action in view["legal"]
            game.apply(seat, action)
        proc.stdin.write("not json\n")
        proc.stdin.flush()
        assert "error" in json.loads(proc.stdout.readline())
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0


def test_spades_bot_strong_with_fixed_iterations_is_reproducible() -> None:
    game = Game.new(Rules(), seed="proto-strong")
    while game.phase == "bidding":
        seat = game.to_act
        assert seat is not None
        game.apply(seat, decide("basic", game.view(seat)))
    seat = game.to_act
    assert seat is not None
    line = json.dumps(game.view(seat)) + "\n"
    outs = []
    for _ in range(2):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "spades.cli",
                "bot",
                "--level",
                "strong",
                "--seed",
                "7",
                "--iterations",
                "30",
                "--budget-ms",
                "100000",
            ],
            input=line,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        outs.append(json.loads(done.stdout))
    assert outs[0] == outs[1]
    assert outs[0] in game.view(seat)["legal"]


def test_simulate_json_partnership(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "simulate",
            "--games",
            "2",
            "--target",
            "150",
            "--seats",
            "basic,random,basic,random",
            "--json",
            "--no-progress",
        ]
    )
    assert code == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["games"] == 2
    assert len(rep["wins"]) == len(rep["win_rate"]) == len(rep["ci95"]) == 2
    assert sum(rep["wins"]) + rep["draws"] == 2
    assert rep["decision_ms"]["basic"]["n"] > 0
    assert {"p50", "p99", "cpu_p50", "cpu_p99"} <= set(rep["decision_ms"]["basic"])
    diff = rep["point_diff_per_hand"]
    assert len(diff) == 2 and diff[0]["n"] == rep["hands"]
    assert diff[0]["lo"] <= diff[0]["mean"] <= diff[0]["hi"]
    assert diff[0]["mean"] == -diff[1]["mean"]
    for key in ("nil_made_pct", "blind_nil_attempts", "blind_nil_made_pct", "contracts_made_pct"):
        assert len(rep[key]) == 2


def test_simulate_json_individual_two_workers(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "simulate",
            "--mode",
            "individual",
            "--games",
            "4",
            "--target",
            "100",
            "--seats",
            "strong,basic,basic,basic",
            "--strong-iterations",
            "8",
            "--workers",
            "2",
            "--json",
            "--no-progress",
        ]
    )
    assert code == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["games"] == 4
    assert len(rep["wins"]) == len(rep["ci95"]) == 4
    assert rep["sides"] == ["strong", "basic", "basic", "basic"]


def test_simulate_rejects_bad_seats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--seats", "basic,genius,basic,basic", "--no-progress"]) == 2


def test_simulate_checkpoints_the_games_so_far(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "so-far.json"
    args = ["simulate", "--games", "20", "--target", "100", "--seats", "basic,random,basic,random"]
    code = main([*args, "--json", "--no-progress", "--checkpoint", str(path)])
    assert code == 0
    final = json.loads(capsys.readouterr().out)
    so_far = json.loads(path.read_text())
    assert so_far["games"] == 20 and so_far["wins"] == final["wins"]
    assert not (tmp_path / "so-far.json.part").exists()


def test_simulate_resumes_a_stopped_run_from_its_results_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["simulate", "--target", "100", "--seats", "basic,random,basic,random", "--json"]
    args += ["--no-progress"]
    assert main([*args, "--games", "12"]) == 0
    whole = json.loads(capsys.readouterr().out)

    path = tmp_path / "games.jsonl"
    assert main([*args, "--games", "5", "--results", str(path)]) == 0  # "stopped" after 5
    capsys.readouterr()
    with path.open("a") as f:
        f.write('{"game": 5, "resu')  # the line the kill cut short
    assert main([*args, "--games", "12", "--results", str(path)]) == 0
    resumed = json.loads(capsys.readouterr().out)
    for key in ("games", "wins", "hands", "nil_attempts", "contracts_made_pct"):
        assert resumed[key] == whole[key], key
    assert resumed["point_diff_per_hand"] == whole["point_diff_per_hand"]
    assert len(path.read_text().splitlines()) == 1 + 12

    # the same file with another run's settings is refused, and left as it was
    assert main([*args, "--games", "12", "--seed", "2", "--results", str(path)]) == 2
    assert "another run" in capsys.readouterr().err
    assert len(path.read_text().splitlines()) == 1 + 12


def test_simulate_plays_a_house_rules_preset(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--games", "2", "--target", "100", "--json", "--no-progress"]
    assert main([*args, "--preset", "Suicide", "--seats", "basic,easy,basic,easy"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2
    with pytest.raises(SystemExit):
        main([*args, "--preset", "Poker"])
