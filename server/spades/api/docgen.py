"""Write everything the docs and the web client copy from the source, in one command.

    python -m spades.api.docgen           rewrites every generated file and section
    python -m spades.api.docgen --check   writes nothing; exits 1 naming each stale file

What is copied, and from where: docs/protocol.md's JSON Schema (the wire models), its table
of message rate costs and client/js/messages.js (the message registry), its tables of error
and close codes and client/js/codes.js (spades.codes), and the settings' defaults and limits
in docs/protocol.md and docs/rules.md (RoomSettings). A test runs the check.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import clientmessages, codes_doc, schema, settings_doc
from .doc_sections import COMMAND, MissingMarkers

ROOT = Path(__file__).resolve().parents[3]
PROTOCOL = ROOT / "docs" / "protocol.md"
RULES = ROOT / "docs" / "rules.md"
MESSAGES_JS = ROOT / "client" / "js" / "messages.js"
CODES_JS = ROOT / "client" / "js" / "codes.js"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def outputs() -> dict[Path, str]:
    """Each generated file's whole text as the source has it now."""
    protocol = _read(PROTOCOL)
    for render in (
        schema.render,
        clientmessages.render,
        codes_doc.render_doc,
        settings_doc.render_protocol,
    ):
        protocol = render(protocol)
    return {
        PROTOCOL: protocol,
        RULES: settings_doc.render_rules(_read(RULES)),
        MESSAGES_JS: clientmessages.generated(),
        CODES_JS: codes_doc.render_js(),
    }


def stale() -> list[Path]:
    """The generated files whose text differs from what the source makes of them."""
    return [path for path, text in outputs().items() if _read(path) != text]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        made = outputs()
    except MissingMarkers as exc:
        print(f"spades.api.docgen: {exc}", file=sys.stderr)
        return 2
    changed = [path for path, text in made.items() if _read(path) != text]
    if "--check" in argv:
        for path in changed:
            print(f"{path} is stale: run {COMMAND}", file=sys.stderr)
        return 1 if changed else 0
    for path in changed:
        path.write_text(made[path], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
