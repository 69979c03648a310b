"""The layers of docs/architecture.md, checked on the source.

Every module of `server/spades/` belongs to a layer (a package such as `rooms`, or a top-level
module such as `config`). A layer imports only the layers below it, only the libraries that
are its job, and no package has an import circle inside it.

An import is any of: `import spades.x`, `from spades import x`, `from spades.x import y`,
`from . import x` / `from ..x import y` (resolved to the absolute module), and
`importlib.import_module("spades.x")`. A load whose name is computed at run time counts every
project module the file spells out as a string (that is how `cli.py` names its subcommands).
Imports inside functions and under `if TYPE_CHECKING:` count like any other: a type-only
import still ties the two modules together for whoever reads or moves them.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[1] / "server"
PACKAGE = SERVER / "spades"
MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"

# What each layer may import of the project, besides itself. `codes` (error and close codes)
# is standard library only and every layer, the engine included, may name a code.
ALLOWED: dict[str, set[str]] = {
    "__init__": set(),
    "codes": set(),
    "engine": {"codes"},
    "bots": {"engine", "codes"},
    "store": {"engine", "codes"},
    "rooms": {"engine", "bots", "store.protocol", "codes"},
    "cluster": {"engine", "bots", "rooms", "store", "config", "logs", "codes"},
    "api": {"engine", "bots", "rooms", "store", "cluster", "config", "logs", "codes"},
    # Settings that a room also limits are capped at the room's own number (one source).
    "config": {"codes", "engine", "rooms.settings"},
    "logs": {"codes"},
    "score_cli": {"engine", "codes"},
    # The command line is the entry point: it loads each subcommand's module on demand.
    "cli": {"api", "store", "bots", "score_cli", "config", "logs", "codes"},
}

# Layers that import the standard library only (besides the project modules they may use).
STDLIB_ONLY = {"codes", "engine", "score_cli", "cli", "logs", "__init__"}

# A library that is one layer's job is imported by that layer only.
OWNED_BY: dict[str, set[str]] = {
    # SQL: the store (and migrations/, outside the package)
    "sqlalchemy": {"store"},
    "alembic": {"store"},
    "asyncpg": {"store"},
    "aiosqlite": {"store"},
    # Redis: the cluster adapters
    "redis": {"cluster"},
    "cryptography": {"cluster"},  # the relay's seal
    # The web stack and its metrics: the api adapters
    "fastapi": {"api"},
    "starlette": {"api"},
    "uvicorn": {"api"},
    "websockets": {"api"},
    "httptools": {"api"},
    "prometheus_client": {"api"},
    # Password hashing (argon2id): the accounts routes
    "argon2": {"api"},
    "webauthn": {"api"},
    # Validation: wire models, room settings, configuration (bots and the engine stay plain)
    "pydantic": {"api", "rooms", "config"},
    "pydantic_settings": {"config"},
    # Terminal output: the self-play report
    "rich": {"bots"},
    # Ratings (OpenSkill): computed in the room process
    "openskill": {"rooms"},
}

# Imports that break the layers today and are being removed: none.
KNOWN_WRONG_IMPORTS: set[str] = set()


@dataclass(frozen=True)
class Module:
    name: str  # "spades.rooms.room"; a package is named by its __init__.py: "spades.rooms"
    path: Path
    is_package: bool

    @property
    def layer(self) -> str:
        parts = self.name.split(".")
        return parts[1] if len(parts) > 1 else "__init__"

    @property
    def rel(self) -> str:
        return self.path.relative_to(PACKAGE).as_posix()


def module_of(path: Path, root: Path = SERVER) -> Module:
    parts = list(path.relative_to(root).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return Module(".".join(parts), path, is_package)


@cache
def project_modules() -> dict[str, Module]:
    return {m.name: m for m in (module_of(p) for p in sorted(PACKAGE.rglob("*.py")))}


def _named(base: str, names: list[str]) -> Iterator[str]:
    """`from base import a, b`: a name that is a project module is an import of that module;
    `base` itself counts when some name comes from it rather than being a submodule."""
    submodules = {f"{base}.{name}" for name in names} & project_modules().keys()
    yield from submodules
    if len(submodules) < len(names):
        yield base


def _resolve_relative(module: Module, level: int, target: str | None) -> str:
    package = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
    if level - 1 >= len(package):
        raise AssertionError(f"{module.rel}: relative import beyond the top-level package")
    base = package[: len(package) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _is_loader(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in {"import_module", "__import__"}


def imports_of(module: Module) -> set[str]:
    """Every module the file imports, absolute, in any of the forms of the docstring."""
    tree = ast.parse(module.path.read_text(), filename=str(module.path))
    found: set[str] = set()
    computed_load = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names = [alias.name for alias in node.names]
            if node.level == 0:
                assert node.module
                found.update(_named(node.module, names))
            else:
                found.update(_named(_resolve_relative(module, node.level, node.module), names))
        elif isinstance(node, ast.Call) and _is_loader(node) and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
            else:
                computed_load = True
    if computed_load:
        found.update(
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith("spades.")
            and node.value in project_modules()
        )
    return found


def project_imports(module: Module) -> set[str]:
    return {n.removeprefix("spades.") for n in imports_of(module) if n.startswith("spades.")}


def libraries(module: Module) -> set[str]:
    return {n.split(".")[0] for n in imports_of(module) if n.split(".")[0] != "spades"}


def allowed(layer: str, imported: str) -> bool:
    return any(imported == ok or imported.startswith(ok + ".") for ok in ALLOWED[layer] | {layer})


def test_every_module_belongs_to_a_layer() -> None:
    unplaced = {m.rel for m in project_modules().values() if m.layer not in ALLOWED}
    assert not unplaced, f"add these to ALLOWED (and to docs/architecture.md): {sorted(unplaced)}"


def wrong_imports() -> set[str]:
    return {
        f"{m.rel} imports spades.{name}"
        for m in project_modules().values()
        if m.layer in ALLOWED
        for name in project_imports(m)
        if not allowed(m.layer, name)
    }


def test_each_layer_imports_only_what_is_below_it() -> None:
    wrong = wrong_imports() - KNOWN_WRONG_IMPORTS
    assert not wrong, sorted(wrong)


def test_known_wrong_imports_still_exist() -> None:
    gone = KNOWN_WRONG_IMPORTS - wrong_imports()
    assert not gone, f"fixed: remove from KNOWN_WRONG_IMPORTS: {sorted(gone)}"


def test_imports_name_modules_that_exist() -> None:
    """A project import the resolver cannot place would slip past every other check here."""
    missing = {
        f"{m.rel} imports {name}"
        for m in project_modules().values()
        for name in imports_of(m)
        if name.startswith("spades.") and name not in project_modules()
    }
    assert not missing, sorted(missing)


def test_libraries_stay_in_the_layer_whose_job_they_are() -> None:
    wrong = {
        f"{m.rel} imports {lib} (only {', '.join(sorted(OWNED_BY[lib]))} may)"
        for m in project_modules().values()
        for lib in libraries(m)
        if lib in OWNED_BY and m.layer not in OWNED_BY[lib]
    }
    assert not wrong, sorted(wrong)


@pytest.mark.parametrize("layer", sorted(STDLIB_ONLY))
def test_layer_uses_the_standard_library_only(layer: str) -> None:
    wrong = {
        f"{m.rel} imports {lib}"
        for m in project_modules().values()
        if m.layer == layer
        for lib in libraries(m)
        if lib not in sys.stdlib_module_names
    }
    assert not wrong, sorted(wrong)


# Alembic runs migrations/env.py as an entry point of its own: it may read the settings.
MIGRATIONS_MAY_IMPORT = ("spades.store", "spades.config")


def test_migrations_use_only_the_store_and_the_settings() -> None:
    wrong: set[str] = set()
    for path in sorted(MIGRATIONS.rglob("*.py")):
        module = Module(f"migrations.{path.stem}", path, False)
        for name in imports_of(module):
            top = name.split(".")[0]
            if top == "spades" and not any(
                name == ok or name.startswith(ok + ".") for ok in MIGRATIONS_MAY_IMPORT
            ):
                wrong.add(f"{path.relative_to(MIGRATIONS)} imports {name}")
            if top in OWNED_BY and "store" not in OWNED_BY[top]:
                wrong.add(f"{path.relative_to(MIGRATIONS)} imports {name}")
    assert not wrong, sorted(wrong)


def packages() -> list[str]:
    return sorted(m.name for m in project_modules().values() if m.is_package)


def node_in(package: str, module: str) -> str | None:
    """The module's node in the package's graph: a subpackage counts as one node."""
    if module == package:
        return package
    if not module.startswith(package + "."):
        return None
    return f"{package}.{module.removeprefix(package + '.').split('.')[0]}"


def import_edges(package: str) -> dict[tuple[str, str], str]:
    """(node, node) -> one import that makes the edge, as "file imports module"."""
    edges: dict[tuple[str, str], str] = {}
    for m in project_modules().values():
        source = node_in(package, m.name)
        if source is None:
            continue
        for name in sorted(imports_of(m)):
            target = node_in(package, name)
            if target is not None and target != source:
                edges.setdefault((source, target), f"{m.rel} imports {name}")
    return edges


def import_graph(package: str) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in project_modules() if node_in(package, m)}
    for source, target in import_edges(package):
        graph.setdefault(source, set()).add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("package", packages())
def test_no_import_circle_inside_a_package(package: str) -> None:
    """A subpackage counts as one node of its parent's graph: it and its siblings must not
    need each other either."""
    edges = import_edges(package)
    wrong = [
        sorted(why for (a, b), why in edges.items() if a in circle and b in circle)
        for circle in circles(import_graph(package))
    ]
    assert not wrong, f"import circles in {package}, made by: {wrong}"


def test_the_circle_finder_finds_circles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [{"a", "b", "c"}]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_resolver_sees_every_import_form(tmp_path: Path) -> None:
    """The forms of the module docstring, on a file placed as spades/rooms/example.py."""
    source = (
        "import spades.engine.cards\n"
        "from spades import bots\n"
        "from spades.store.protocol import Store\n"
        "from . import seats\n"
        "from .errors import RoomError\n"
        "from ..engine import game\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from spades.api import models\n"
        "def later():\n"
        "    import importlib\n"
        "    return importlib.import_module('spades.config')\n"
    )
    path = tmp_path / "example.py"
    path.write_text(source)
    found = imports_of(Module("spades.rooms.example", path, False))
    assert {
        "spades.engine.cards",
        "spades.bots",
        "spades.store.protocol",
        "spades.rooms.seats",
        "spades.rooms.errors",
        "spades.engine.game",
        "spades.api.models",
        "spades.config",
    } <= found
