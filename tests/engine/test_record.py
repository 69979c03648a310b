from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import BY_SUIT

from spades.engine import Game, RecordError, Rules, card_text
from spades.engine.cards import cards_of
from spades.engine.record import HandRecordError, load_hand, score_record


def random_hand_record(seed: int, mode: str = "partnership", plays: int = 52) -> dict[str, Any]:
    rng = random.Random(seed)
    game = Game.new(Rules(mode=mode), seed=seed)
    record: dict[str, Any] = {
        "rules": {"mode": mode},
        "dealer": game.dealer,
        "hands": [[card_text(c) for c in cards_of(m)] for m in game.dealt],
        "bids": [],
        "plays": [],
    }
    while game.hand_number == 1 and len(record["plays"]) < plays:
        seat = game.to_act
        action = rng.choice(game.legal_actions())
        game.apply(seat, action)
        key = "bids" if action["type"] == "bid" else "plays"
        record[key].append(action.get("bid", action.get("card")))
    return record


def test_complete_record_scores_like_the_game() -> None:
    for seed in range(5):
        record = random_hand_record(seed)
        out = score_record(record)
        game = load_hand(record)
        assert out["complete"]
        assert sum(out["tricks"]) == 13
        assert out["points"] == game.history[0]["points"]
        assert out["scores"] == game.scores


def test_rule_book_example_as_a_hand_record() -> None:
    # East holds every spade and takes all 13 tricks.
    record = {
        "rules": {"mode": "partnership"},
        "dealer": 3,
        "hands": BY_SUIT,
        "bids": ["nil", 4, 1, 1],
        "plays": [],
    }
    game = load_hand(record)
    while game.hand_number == 1:
        record["plays"].append(game.legal_actions()[0]["card"])
        game.apply(game.to_act, game.legal_actions()[0])
    out = score_record(record)
    # South nil made (+100), North bid 1 took 0 (-10); East/West bid 5 took 13: 50 + 8 bags.
    assert out == {
        "complete": True,
        "tricks": [0, 0, 0, 13],
        "points": [90, 58],
        "bags_added": [0, 8],
        "bag_penalty": [0, 0],
        "scores": [90, 58],
        "bags": [0, 8],
        "winner": None,
    }


def test_unfinished_record() -> None:
    record = random_hand_record(3, plays=10)
    out = score_record(record)
    assert out["complete"] is False
    assert sum(out["tricks"]) == 2


def test_blind_nil_in_a_record_needs_the_deficit() -> None:
    record = {"rules": {}, "dealer": 3, "hands": BY_SUIT, "bids": ["blind nil", 1, 1, 1]}
    with pytest.raises(HandRecordError) as info:
        score_record(record)
    assert (info.value.index, info.value.seat) == (0, 0)
    record["scores"] = [0, 100]
    assert score_record(record)["complete"] is False


def test_broken_records_name_index_seat_and_reason() -> None:
    record = random_hand_record(1)
    record["plays"][5] = record["plays"][4]  # a card already played
    with pytest.raises(HandRecordError) as info:
        score_record(record)
    assert info.value.index == 4 + 5
    assert "not in your hand" in info.value.reason
    with pytest.raises(RecordError):
        score_record({"rules": {"mode": "bridge"}, "hands": BY_SUIT})
    with pytest.raises(RecordError):
        score_record({"dealer": 0, "hands": [BY_SUIT[0]] * 4})


def run_score(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "records.jsonl"
    path.write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "spades.cli", "score", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_spades_score_cli(tmp_path: Path) -> None:
    good = random_hand_record(7)
    bad = random_hand_record(8)
    bad["bids"][0] = 14
    text = "\n".join(json.dumps(r) for r in (good, bad)) + "\n"
    proc = run_score(tmp_path, text)
    assert proc.returncode == 1
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["complete"] is True
    assert lines[1] == {
        "error": {
            "index": 0,
            "seat": (bad["dealer"] + 1) % 4,
            "reason": "a bid is 1..13 tricks or nil, not 14",
        }
    }
    one = run_score(tmp_path, json.dumps(good, indent=2))
    assert one.returncode == 0
    assert json.loads(one.stdout)["complete"] is True
    unreadable = run_score(tmp_path, json.dumps(good) + "\n{not json\n")
    assert unreadable.returncode == 2
    assert "line 2" in unreadable.stderr


def test_spades_score_stdin() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "spades.cli", "score", "-"],
        input=json.dumps(random_hand_record(9, mode="individual")),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert len(out["scores"]) == 4
