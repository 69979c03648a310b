"""The frozen Hard (`bench/frozen_strong/`) compiled by mypyc, for `bench.strong_ab`.

The live Hard runs compiled once `make native` has built it; its frozen copy is plain
Python unless it is built too, and then every frozen seat costs about eight times the CPU
of a live one: a 400-game match takes hours instead of minutes and the decision times the
bench prints for the frozen side mean little. `build` compiles the frozen modules in place
(the extensions sit beside the sources, ignored by git, and Python imports them ahead of
the `.py` files); `clean` removes them. The sources are never edited: `bidding` stays
Python, since mypyc refuses one of its literals (an int stored into a float), and it is a
small share of a decision's CPU.

    python -m bench.frozen_native build     # needs mypy, setuptools and a C compiler
    python -m bench.frozen_native status
    python -m bench.frozen_native clean
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent / "frozen_strong"
ROOT = HERE.parent.parent
MODULES = ("state", "basic", "blind", "worlds", "outcome", "card_search", "bid_search", "strong")
GROUP = "bench.frozen_strong._frozen"


def built() -> list[Path]:
    return sorted(p for p in HERE.iterdir() if p.suffix in (".so", ".pyd"))


def clean() -> None:
    for path in built():
        path.unlink()


def build() -> int:
    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as exc:
        print(f"cannot build ({exc}): install the dev extras (pip install -e '.[dev]')")
        return 1
    clean()
    # setup() reads a pyproject.toml in its folder, so it builds in a copy of the package
    # (the project's own pyproject is not a setuptools one); the extensions come back here
    paths = [str(Path("bench", "frozen_strong", f"{name}.py")) for name in MODULES]
    cwd = os.getcwd()
    tmp = tempfile.mkdtemp(prefix="frozen-native-")
    try:
        work = Path(tmp, "src")
        shutil.copytree(HERE, work / "bench" / "frozen_strong")
        (work / "bench" / "__init__.py").write_text("")
        os.chdir(work)
        extensions = mypycify(paths, opt_level="3", group_name=GROUP, target_dir=tmp)
        setup(
            name="frozen-strong-native",
            ext_modules=extensions,
            script_args=["-q", "build_ext", "--inplace", "--build-temp", tmp],
        )
        for path in (work / "bench" / "frozen_strong").iterdir():
            if path.suffix in (".so", ".pyd"):
                shutil.copy2(path, HERE / path.name)
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp, ignore_errors=True)
    print("compiled:", ", ".join(MODULES), "(bidding stays Python)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("build", "status", "clean"))
    args = parser.parse_args(argv)
    if args.command == "build":
        return build()
    if args.command == "clean":
        clean()
        return 0
    print("compiled" if built() else "none", *(p.name for p in built()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
