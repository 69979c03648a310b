from __future__ import annotations

from spades.api import schema, settings_doc


def test_protocol_doc_schema_is_current() -> None:
    text = schema.DOC.read_text(encoding="utf-8")
    assert schema.render(text) == text, "run: python -m spades.api.schema"


def test_settings_docs_are_current() -> None:
    # docs/rules.md and docs/protocol.md state the room settings' defaults and limits in
    # sections generated from RoomSettings.
    assert settings_doc.stale() == [], "run: python -m spades.api.settings_doc"
