"""Write the protocol's codes (spades/codes.py) where they are read outside Python: the
tables of error and close codes in docs/protocol.md, and the web client's module
`client/js/codes.js`.

`python -m spades.api.docgen` writes both.
"""

from __future__ import annotations

from spades.codes import CloseCode, ErrorCode

from .doc_sections import COMMAND, replace_section

# (the name in the table's markers, its codes, its head row)
_TABLES: tuple[tuple[str, type[ErrorCode] | type[CloseCode], str], ...] = (
    ("ERROR CODES", ErrorCode, "| code | meaning |"),
    ("CLOSE CODES", CloseCode, "| code | reason |"),
)


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
        text = replace_section(text, name, f"\n{table(codes, head)}")
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
