"""The room's parts import one another without a circle, and none of them imports the room:
each is given the parts it uses (TYPE_CHECKING imports count as imports here)."""

from __future__ import annotations

import ast
from pathlib import Path

import spades.rooms

PACKAGE = Path(spades.rooms.__file__).parent


def _imports() -> dict[str, set[str]]:
    """Each module of spades.rooms -> the modules of spades.rooms it imports."""
    modules = {path.stem: path for path in PACKAGE.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 and node.module:
                    found.add(node.module.split(".")[0])
                elif node.level == 1:
                    found.update(alias.name for alias in node.names)
                elif node.module and node.module.startswith("spades.rooms."):
                    found.add(node.module.split(".")[2])
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("spades.rooms."):
                        found.add(alias.name.split(".")[2])
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for dep in sorted(graph[module]):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if dep not in state and (found := visit(dep)) is not None:
                return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)) is not None:
            return found
    return None


def test_the_rooms_package_has_no_import_circle() -> None:
    assert _circle(_imports()) is None


def test_only_the_manager_and_the_package_import_the_room() -> None:
    importers = {name for name, deps in _imports().items() if "room" in deps}
    assert importers <= {"manager", "__init__"}


def test_the_circle_finder_finds_one() -> None:
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
