"""Rooms nobody wants to live in: a file in `server/spades/` over 600 lines, a function over 80.

The engine's `game.py` may be longer: it is the rules' one state machine, read top to bottom.
There is no other exception: a file or function that grows past its limit is cut at a seam.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "spades"

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80

ALWAYS_LONG = {"engine/game.py"}


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def long_files() -> dict[str, int]:
    out = {}
    for path in sources():
        rel = path.relative_to(PACKAGE).as_posix()
        lines = len(path.read_text().splitlines())
        if lines > MAX_FILE_LINES and rel not in ALWAYS_LONG:
            out[rel] = lines
    return out


def long_functions() -> dict[str, int]:
    """Every def and async def, nested ones and methods included, from `def` to its last line."""
    out = {}
    for path in sources():
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    out[f"{rel}:{node.name}"] = lines
    return out


def test_no_file_is_too_long() -> None:
    wrong = long_files()
    assert not wrong, f"files over {MAX_FILE_LINES} lines: {wrong}"


def test_no_function_is_too_long() -> None:
    wrong = long_functions()
    assert not wrong, f"functions over {MAX_FUNCTION_LINES} lines: {wrong}"
