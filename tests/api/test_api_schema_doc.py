from __future__ import annotations

from spades.api import schema


def test_protocol_doc_schema_is_current() -> None:
    text = schema.DOC.read_text(encoding="utf-8")
    assert schema.render(text) == text, "run: python -m spades.api.schema"
