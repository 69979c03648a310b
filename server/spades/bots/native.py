"""The strong bot's modules compiled to C (optional): `python -m spades.bots.native build`.

The search spends nearly all of its CPU in the rollouts: the basic policy (`basic`), the
state it plays on (`state`), the bid estimates that weight the deals (`bidding`), the
rollout loop and the sampled deals (`worlds`), the search around them (`card_search`,
`bid_search`) and the scoring (`outcome`). mypyc (it comes with mypy, a dev dependency)
compiles those modules, as they are, to a C extension beside their sources; the same code
and the same random numbers give the same decisions at about a ninth of the CPU
(docs/bots.md, "Hard compiled" and "Hard compiled, cheaper").

Nothing needs it: without a build (no C compiler, no mypy, an installed wheel) every module
runs as Python. A build stays in use only while it matches the sources: the manifest written
beside the extension holds each source's hash and the interpreter's tag, and the package
(`spades.bots.__init__`) checks them at import; when any source changed since the build,
or `SPADES_BOTS_NATIVE=0`, every compiled module is loaded from its source instead. So an
edit never runs against stale compiled code; `build` again to compile it.

    python -m spades.bots.native build    # compile (needs mypy, setuptools and a C compiler)
    python -m spades.bots.native status   # compiled and in use, stale, or none
    python -m spades.bots.native clean    # remove the build
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ._guard import ENV, GROUP, HERE, MANIFEST, MODULES, _built_files, _digest, compiled, state

__all__ = ["ENV", "build", "clean", "compiled", "main", "state"]


def clean() -> None:
    for path in _built_files():
        path.unlink()
    MANIFEST.unlink(missing_ok=True)


def build() -> int:
    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as exc:
        print(f"cannot build ({exc}): install mypy and setuptools (pip install -e '.[dev]')")
        return 1
    clean()
    root = HERE.parent.parent  # the folder that holds the `spades` package
    paths = [str(Path("spades", "bots", f"{name}.py")) for name in MODULES]
    sources = {name: _digest(name) for name in MODULES}
    cwd = os.getcwd()
    tmp = tempfile.mkdtemp(prefix="spades-native-")
    try:
        os.chdir(root)
        extensions = mypycify(paths, opt_level="3", group_name=GROUP, target_dir=tmp)
        setup(
            name="spades-bots-native",
            ext_modules=extensions,
            script_args=["-q", "build_ext", "--inplace", "--build-temp", tmp],
        )
    except (Exception, SystemExit) as exc:  # a compiler missing, or code mypyc refuses
        print(f"build failed, the bots stay pure Python: {exc}")
        clean()
        return 1
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp, ignore_errors=True)
    if any(_digest(name) != digest for name, digest in sources.items()):
        print("a source changed during the build; build again")
        clean()
        return 1
    MANIFEST.write_text(
        json.dumps({"cache_tag": sys.implementation.cache_tag, "sources": sources}, indent=1)
    )
    print(f"compiled: {', '.join(MODULES)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else "status"
    if command == "build":
        return build()
    if command == "clean":
        clean()
        return 0
    if command == "status":
        print(state())
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
