"""The import directions of ARCHITECTURE.md, checked on the source (nothing imports upward)."""

from __future__ import annotations

import ast
import sys
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


# What each layer must not import from outside the project (top-level module names).
FORBIDDEN: dict[str, set[str]] = {
    "engine": {"asyncio", "pydantic", "sqlalchemy"},
    "bots": {"sqlalchemy", "fastapi", "starlette", "redis"},
    "rooms": {"fastapi", "starlette", "sqlalchemy", "redis", "uvicorn"},
}


def absolute_imports(path: Path) -> set[str]:
    """Every module named by an absolute import, anywhere in the file (functions too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def project_imports(path: Path) -> set[str]:
    return {n.removeprefix("spades.") for n in absolute_imports(path) if n.startswith("spades.")}


def allowed(layer: str, imported: str) -> bool:
    return (
        imported in (layer, "codes")  # spades/codes.py: every layer's, the engine's too
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


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_no_forbidden_library(layer: str) -> None:
    wrong = {
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for name in absolute_imports(path)
        if name.split(".")[0] in FORBIDDEN[layer]
    }
    assert not wrong, sorted(wrong)


def test_the_engine_uses_the_standard_library_only() -> None:
    wrong = {
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in sorted((PACKAGE / "engine").rglob("*.py"))
        for name in absolute_imports(path)
        if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith("spades.")
    }
    assert not wrong, sorted(wrong)


def test_bots_import_nothing_of_rooms() -> None:
    wrong = {
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in sorted((PACKAGE / "bots").rglob("*.py"))
        for name in absolute_imports(path)
        if name == "spades.rooms" or name.startswith("spades.rooms.")
    }
    assert not wrong, sorted(wrong)
