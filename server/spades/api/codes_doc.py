"""Write the protocol's codes (spades/codes.py) where they are read outside Python: the
tables of error and close codes in docs/protocol.md, and the web client's module
`client/js/codes.js`.

`python -m spades.api.codes_doc` rewrites both; `--check` exits 1 when either is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from spades.codes import CloseCode, ErrorCode

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "protocol.md"
CLIENT = ROOT / "client" / "js" / "codes.js"
COMMAND = "python -m spades.api.codes_doc"

# (the name in the table's markers, its codes, its head row)
_TABLES: tuple[tuple[str, type[ErrorCode] | type[CloseCode], str], ...] = (
    ("ERROR CODES", ErrorCode, "| code | meaning |"),
    ("CLOSE CODES", CloseCode, "| code | reason |"),
)


def _begin(name: str) -> str:
    return f"<!-- BEGIN GENERATED {name} ({COMMAND}) -->"


def _end(name: str) -> str:
    return f"<!-- END GENERATED {name} -->"


def _row(member: ErrorCode | CloseCode) -> str:
    shown = f"`{member.value}`" if isinstance(member, ErrorCode) else str(member.value)
    if "|" in member.meaning:
        raise ValueError(f"{member!r}: a meaning cannot hold '|' (it ends a table cell)")
    return f"| {shown} | {member.meaning} |"


def table(codes: type[ErrorCode] | type[CloseCode], head: str) -> str:
    rows = [head, "|---|---|", *(_row(member) for member in codes)]
    return "\n".join(rows) + "\n"


def render_doc(text: str) -> str:
    """`text` (docs/protocol.md) with each generated table as codes.py has it now."""
    for name, codes, head in _TABLES:
        begin, end = _begin(name), _end(name)
        before, found, rest = text.partition(begin)
        _, found_end, after = rest.partition(end)
        if not found or not found_end:
            raise ValueError(f"{DOC}: the markers of the {name.lower()} table are missing")
        text = f"{before}{begin}\n\n{table(codes, head)}\n{end}{after}"
    return text


def _js_object(name: str, codes: type[ErrorCode] | type[CloseCode], doc: str) -> list[str]:
    lines = [f"/** {doc} */", f"export const {name} = Object.freeze({{"]
    for member in codes:
        value = f'"{member.value}"' if isinstance(member.value, str) else str(member.value)
        lines.append(f"  {member.name}: {value}, // {member.meaning}")
    return [*lines, "});"]


def render_js() -> str:
    """The whole of client/js/codes.js."""
    lines = [
        f"// Generated from server/spades/codes.py by `{COMMAND}`: do not edit.",
        "// The protocol's codes by name; docs/protocol.md says the same in its tables.",
        "",
        *_js_object("CloseCode", CloseCode, "WebSocket close codes the server sends."),
        "",
        *_js_object("ErrorCode", ErrorCode, "The `code` of the server's `error` messages."),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    doc = DOC.read_text(encoding="utf-8")
    try:
        new_doc = render_doc(doc)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    new_js = render_js()
    old_js = CLIENT.read_text(encoding="utf-8") if CLIENT.exists() else ""
    if "--check" in argv:
        outputs = ((DOC, doc, new_doc), (CLIENT, old_js, new_js))
        stale = [path for path, old, new in outputs if old != new]
        for path in stale:
            print(f"{path} is stale: run {COMMAND}", file=sys.stderr)
        return 1 if stale else 0
    DOC.write_text(new_doc, encoding="utf-8")
    CLIENT.write_text(new_js, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
