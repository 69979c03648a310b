"""The import directions of ARCHITECTURE.md, checked on the source (nothing imports upward)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "spades"

# What each layer may import of the project, besides itself.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "bots": {"engine"},
    "store": {"engine"},
    "rooms": {"engine", "bots", "store.protocol"},
    "cluster": {"engine", "bots", "rooms", "store", "config", "logs"},
    "api": {"engine", "bots", "rooms", "store", "config", "logs", "cluster"},
}


def project_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found.update(n.removeprefix("spades.") for n in names if n.startswith("spades."))
    return found


def allowed(layer: str, imported: str) -> bool:
    return (
        imported == layer
        or imported.startswith(layer + ".")
        or any(imported == ok or imported.startswith(ok + ".") for ok in ALLOWED[layer])
    )


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_what_is_below_it(layer: str) -> None:
    wrong = {
        f"{path.relative_to(PACKAGE)} imports spades.{name}"
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for name in project_imports(path)
        if not allowed(layer, name)
    }
    assert not wrong, sorted(wrong)
