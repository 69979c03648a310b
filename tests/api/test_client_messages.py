"""The registry's generated copies (client/js/messages.js, the cost table of
docs/protocol.md) are current, and the doc's table of client messages lists every type."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spades.api import clientmessages
from spades.rooms.protocol import CLIENT_TYPES, GAME_ACTIONS


def test_client_messages_module_is_current() -> None:
    text = clientmessages.MODULE.read_text(encoding="utf-8")
    assert text == clientmessages.generated(), "run: python -m spades.api.clientmessages"
    assert all(f'"{name}"' in text for name in CLIENT_TYPES | GAME_ACTIONS)


def test_protocol_doc_costs_are_current() -> None:
    text = clientmessages.DOC.read_text(encoding="utf-8")
    assert clientmessages.render(text) == text, "run: python -m spades.api.clientmessages"


def test_protocol_doc_describes_every_client_message() -> None:
    text = clientmessages.DOC.read_text(encoding="utf-8")
    section = text.split("### Client → server", 1)[1].split(clientmessages.BEGIN, 1)[0]
    described = set(re.findall(r'^\| `\{"type":"(\w+)"', section, flags=re.MULTILINE))
    assert described == CLIENT_TYPES


def test_check_reports_a_stale_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, doc = tmp_path / "messages.js", tmp_path / "protocol.md"
    module.write_text("export const GAME_ACTIONS = [];\n", encoding="utf-8")
    doc.write_text(f"head\n{clientmessages.BEGIN}\nold\n{clientmessages.END}\ntail\n")
    monkeypatch.setattr(clientmessages, "MODULE", module)
    monkeypatch.setattr(clientmessages, "DOC", doc)
    assert clientmessages.main(["--check"]) == 1
    assert clientmessages.main([]) == 0
    assert clientmessages.main(["--check"]) == 0
    assert "| `ping` | 1 |" in doc.read_text() and doc.read_text().endswith("tail\n")
