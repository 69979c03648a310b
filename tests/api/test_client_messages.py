"""docs/protocol.md's hand-written table of client messages lists every registered type
(its generated copies are checked with the others, test_api_schema_doc.py)."""

from __future__ import annotations

import re

from spades.api import docgen
from spades.api.doc_sections import markers
from spades.rooms.protocol import CLIENT_TYPES


def test_protocol_doc_describes_every_client_message() -> None:
    text = docgen.PROTOCOL.read_text(encoding="utf-8")
    section = text.split("### Client → server", 1)[1].split(markers("MESSAGE COSTS")[0], 1)[0]
    described = set(re.findall(r'^\| `\{"type":"(\w+)"', section, flags=re.MULTILINE))
    assert described == CLIENT_TYPES
