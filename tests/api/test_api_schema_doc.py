"""Every copy the docs and the web client hold of the source is current (`spades.api.docgen`):
the JSON Schema, the message costs and client/js/messages.js, the code tables and
client/js/codes.js, and the settings' defaults and limits in docs/protocol.md and rules.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from spades.api import docgen
from spades.api.doc_sections import markers


def test_every_generated_file_is_current() -> None:
    assert docgen.stale() == [], f"run: {docgen.COMMAND}"


def test_check_reports_a_stale_copy_and_a_run_mends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("PROTOCOL", "RULES", "MESSAGES_JS", "CODES_JS"):
        real: Path = getattr(docgen, name)
        copy = tmp_path / real.name
        copy.write_text(real.read_text(encoding="utf-8"), encoding="utf-8")
        monkeypatch.setattr(docgen, name, copy)
    begin, end = markers("MESSAGE COSTS")
    text = docgen.PROTOCOL.read_text(encoding="utf-8")
    head, rest = text.split(begin)
    docgen.PROTOCOL.write_text(f"{head}{begin}\nold\n{end}{rest.split(end)[1]}")
    docgen.MESSAGES_JS.write_text("export const GAME_ACTIONS = [];\n", encoding="utf-8")
    assert docgen.main(["--check"]) == 1
    assert docgen.main([]) == 0
    assert docgen.main(["--check"]) == 0
    assert "| `ping` | 1 |" in docgen.PROTOCOL.read_text(encoding="utf-8")


def test_a_document_without_its_markers_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = tmp_path / "rules.md"
    bare.write_text("no markers here\n", encoding="utf-8")
    monkeypatch.setattr(docgen, "RULES", bare)
    assert docgen.main(["--check"]) == 2
