from __future__ import annotations

from pathlib import Path

import pytest

from spades.api import clientmessages
from spades.rooms.protocol import CLIENT_TYPES, GAME_ACTIONS


def test_client_messages_module_is_current() -> None:
    text = clientmessages.MODULE.read_text(encoding="utf-8")
    assert text == clientmessages.generated(), "run: python -m spades.api.clientmessages"
    assert all(f'"{name}"' in text for name in CLIENT_TYPES | GAME_ACTIONS)


def test_check_reports_a_stale_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "messages.js"
    stale.write_text("export const GAME_ACTIONS = [];\n", encoding="utf-8")
    monkeypatch.setattr(clientmessages, "MODULE", stale)
    assert clientmessages.main(["--check"]) == 1
    assert clientmessages.main([]) == 0
    assert clientmessages.main(["--check"]) == 0
