"""The marked sections of the docs that code writes, and how one is replaced.

A generated section sits between two HTML comments, `<!-- BEGIN GENERATED NAME (command) -->`
and `<!-- END GENERATED NAME -->`, so the text around it stays hand-written. Every generator
names the one command that rewrites them all (`spades.api.docgen`).
"""

from __future__ import annotations

COMMAND = "python -m spades.api.docgen"


class MissingMarkers(ValueError):
    """A document lacks the markers of a section it should hold."""


def markers(name: str) -> tuple[str, str]:
    return f"<!-- BEGIN GENERATED {name} ({COMMAND}) -->", f"<!-- END GENERATED {name} -->"


def replace_section(text: str, name: str, body: str) -> str:
    """`text` with the section `name` holding `body` (between a newline after the opening
    marker and one before the closing marker)."""
    begin, end = markers(name)
    head, found, rest = text.partition(begin)
    _, found_end, tail = rest.partition(end)
    if not found or not found_end:
        raise MissingMarkers(f"the markers of the generated {name.lower()} are missing")
    return f"{head}{begin}\n{body}\n{end}{tail}"
