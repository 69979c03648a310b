"""The protocol's codes are spelled once (server/spades/codes.py); the docs and the client
get them generated from there, and the wire carries them as it always did."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import orjson

from spades.api import docgen
from spades.codes import CloseCode, ErrorCode

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "server" / "spades"
CODES = PACKAGE / "codes.py"

# Error codes that are also another word of the protocol: "abandoned" is a room status too.
# Their literals count only where they stand for a code (`code=...`, `"code": ...`, an
# argument of `error(...)` or `close_all(...)`, a comparison with `.code`).
SHARED_WORDS = {"abandoned"}

ERROR_VALUES = {code.value for code in ErrorCode}
CLOSE_VALUES = {code.value for code in CloseCode}


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _stands_for_a_code(node: ast.Constant, parents: dict[ast.AST, ast.AST]) -> bool:
    parent = parents.get(node)
    while isinstance(parent, ast.Tuple | ast.List | ast.Set):  # `code in ("a", "b")`
        parent = parents.get(parent)
    if isinstance(parent, ast.Call):
        return node in parent.args and _name(parent.func) in ("error", "_error", "close_all")
    if isinstance(parent, ast.keyword):
        return parent.arg == "code"
    if isinstance(parent, ast.Dict):
        keys = [k.value if isinstance(k, ast.Constant) else None for k in parent.keys]
        return any(v is node and k == "code" for k, v in zip(keys, parent.values, strict=True))
    if isinstance(parent, ast.Assign | ast.AnnAssign):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        return any(_name(t) == "code" for t in targets)
    if isinstance(parent, ast.Compare):
        return any(_name(side) == "code" for side in [parent.left, *parent.comparators])
    return False


def spelled(path: Path, *, shared_too: bool = False) -> list[str | int]:
    """The error and close codes written as literals in a Python file (once per literal);
    `shared_too`: a shared word counts wherever it stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[str | int] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant):
            continue
        value = node.value
        if isinstance(value, str) and value in ERROR_VALUES:
            if shared_too or value not in SHARED_WORDS or _stands_for_a_code(node, parents):
                found.append(value)
        elif type(value) is int and value in CLOSE_VALUES:
            found.append(value)
    return found


def test_codes_py_spells_each_code_once() -> None:
    found = spelled(CODES, shared_too=True)
    assert sorted(found, key=str) == sorted([*ERROR_VALUES, *CLOSE_VALUES], key=str)


def test_no_code_is_spelled_outside_codes_py() -> None:
    offenders = {
        (path.relative_to(PACKAGE).as_posix(), value)
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != CODES
        for value in spelled(path)
    }
    wrong = sorted(offenders, key=str)
    assert not wrong, f"use spades.codes (ErrorCode / CloseCode) instead of these literals: {wrong}"


def test_the_client_spells_no_code() -> None:
    """The client takes its codes from the generated client/js/codes.js."""
    found = []
    for path in sorted((ROOT / "client" / "js").rglob("*.js")):
        if path == docgen.CODES_JS:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = re.sub(r"//.*", "", line)  # comments may name a code
            words = {m[1] for m in re.finditer(r"[\"'`]([a-z_]+)[\"'`]", code)}
            numbers = {int(m) for m in re.findall(r"\b\d{4}\b", code)}
            wrong = (words & ERROR_VALUES) - SHARED_WORDS | (numbers & CLOSE_VALUES)
            found += [f"{path.relative_to(ROOT)}:{number}: {w}" for w in sorted(wrong, key=str)]
    assert not found, found


def test_codes_go_on_the_wire_as_plain_values() -> None:
    message = {"code": ErrorCode.BAD_TOKEN, "close": CloseCode.RECONNECT}
    plain = {"code": "bad_token", "close": 4012}
    assert orjson.dumps(message) == orjson.dumps(plain)
    assert json.dumps(message) == json.dumps(plain)
    assert f"{ErrorCode.BAD_TOKEN} {CloseCode.RECONNECT}" == "bad_token 4012"
    assert ErrorCode.BAD_TOKEN == "bad_token" and CloseCode.RECONNECT == 4012


def test_every_code_says_what_it_means() -> None:
    for code in [*ErrorCode, *CloseCode]:
        assert code.meaning and "\n" not in code.meaning, code
