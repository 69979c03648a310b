"""Keeps a stale or unwanted compiled build of the bots out of use (`spades.bots.native`).

Loaded by the package (`spades.bots.__init__`) before any of the compiled modules.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
PACKAGE = "spades.bots"
MODULES = ("state", "basic", "bidding", "worlds", "outcome", "card_search", "bid_search")
GROUP = "spades.bots._compiled"  # the shared library of the group: spades/bots/_compiled__mypyc*
MANIFEST = HERE / "_native.json"
ENV = "SPADES_BOTS_NATIVE"  # "0": run every module as Python even when a build matches


def _digest(name: str) -> str:
    return hashlib.sha256((HERE / f"{name}.py").read_bytes()).hexdigest()


def _built_files() -> list[Path]:
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    names = (*MODULES, GROUP.rsplit(".", 1)[1] + "__mypyc")
    return [HERE / f"{n}{s}" for n in names for s in suffixes if (HERE / f"{n}{s}").exists()]


def state() -> str:
    """ "none" (no build), "stale" (a source changed, or the build is another interpreter's),
    "off" (SPADES_BOTS_NATIVE=0) or "current" (the compiled modules are used)."""
    if not _built_files():
        return "none"
    try:
        manifest = json.loads(MANIFEST.read_text())
        sources = manifest["sources"]
        current = manifest["cache_tag"] == sys.implementation.cache_tag and all(
            sources.get(name) == _digest(name) for name in MODULES
        )
    except (OSError, ValueError, KeyError, TypeError):
        current = False
    if not current:
        return "stale"
    return "off" if os.environ.get(ENV, "1") == "0" else "current"


class _FromSource(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' sources ahead of their extension (a stale or unwanted
    build): all or none, since compiled modules call each other directly."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != PACKAGE or name not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, HERE / f"{name}.py")


def install_guard() -> str:
    """Called once as the package loads: keeps a stale or unwanted build out of use."""
    status = state()
    if status in ("stale", "off") and not any(isinstance(f, _FromSource) for f in sys.meta_path):
        sys.meta_path.insert(0, _FromSource())
    return status


def compiled() -> bool:
    """Whether the strong bot's rollouts run compiled in this process."""
    from . import basic

    return not str(basic.__file__).endswith(".py")
