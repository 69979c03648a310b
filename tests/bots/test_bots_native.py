"""The strong bot's optional compiled build (`spades.bots.native`): used only while it matches
its sources, never needed, and giving the same answers as the Python it was compiled from."""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spades.bots import _guard
from spades.bots.native import compiled, state

SERVER = Path(__file__).resolve().parents[2] / "server"
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # this interpreter's, e.g. .cpython-311-...so


def _run(code: str, pythonpath: Path, **env: str) -> str:
    full = {k: v for k, v in os.environ.items() if k != _guard.ENV}
    full.update(PYTHONPATH=str(pythonpath), **env)
    out = subprocess.run(
        [sys.executable, "-c", code], env=full, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def _package_with_fake_build(tmp_path: Path, manifest: dict[str, object] | None) -> Path:
    """A copy of the package whose "compiled" basic is not an extension at all: importing it
    fails, so any run that imports basic proves the guard loaded the source instead."""
    root = tmp_path / "server"
    shutil.copytree(SERVER / "spades", root / "spades", ignore=shutil.ignore_patterns("*.so"))
    bots = root / "spades" / "bots"
    (bots / "_native.json").unlink(missing_ok=True)
    (bots / f"basic{SUFFIX}").write_bytes(b"not a shared library")
    if manifest is not None:
        (bots / "_native.json").write_text(json.dumps(manifest))
    return root


def _sources(bots: Path) -> dict[str, str]:
    return {m: hashlib.sha256((bots / f"{m}.py").read_bytes()).hexdigest() for m in _guard.MODULES}


def test_the_build_state_is_one_of_four() -> None:
    assert state() in ("none", "stale", "off", "current")
    assert compiled() == (state() == "current")


def test_a_stale_build_is_not_used(tmp_path: Path) -> None:
    root = _package_with_fake_build(tmp_path, {"cache_tag": sys.implementation.cache_tag})
    code = (
        "import spades.bots.native as n, spades.bots.basic as b; "
        "print(n.state(), b.__file__.endswith('basic.py'))"
    )
    assert _run(code, root) == "stale True"
    # A manifest that matches every source: the build counts as current (and its basic
    # is loaded: the fake one fails, as a real one would load).
    bots = root / "spades" / "bots"
    manifest = {"cache_tag": sys.implementation.cache_tag, "sources": _sources(bots)}
    (bots / "_native.json").write_text(json.dumps(manifest))
    assert _run("import spades.bots.native as n; print(n.state())", root) == "current"
    with pytest.raises(subprocess.CalledProcessError):
        _run("import spades.bots.basic", root)
    # ... unless it is switched off; then the sources run.
    assert _run(code, root, **{_guard.ENV: "0"}) == "off True"
    # One edited source makes the whole build stale (compiled modules call each other).
    (bots / "outcome.py").write_text((bots / "outcome.py").read_text() + "\n# edited\n")
    assert _run(code, root) == "stale True"


def test_the_source_finder_takes_only_the_compiled_modules() -> None:
    finder = _guard._FromSource()
    spec = finder.find_spec("spades.bots.basic")
    assert spec is not None and str(spec.origin).endswith("basic.py")
    assert finder.find_spec("spades.bots.normal") is None
    assert finder.find_spec("spades.engine.state") is None


ANSWERS = """
import json
from bench.strong_cpu import views
from spades.bots.strong import decide_strong
from spades.bots.native import compiled
todo = views(1, "partnership")[:12]
answers = [decide_strong(v, seed=i, iterations=60) for i, v in enumerate(todo)]
from spades.bots import decide
from spades.engine import Game, Rules
for mode in ("partnership", "individual"):
    for d in range(6):
        game = Game.new(Rules.from_dict({"mode": mode}), seed=f"native:{d}", dealer=d % 4)
        while game.phase == "bidding":
            view = game.view(game.to_act)
            answers.append(decide("basic", view))
            answers.append(decide_strong(view, seed=d, iterations=60))
            game.apply(game.to_act, answers[-1])
print(json.dumps([compiled(), answers]))
"""


@pytest.mark.skipif(state() != "current", reason="no current compiled build here")
def test_the_compiled_build_gives_the_same_answers() -> None:
    top = SERVER.parent
    path = Path(f"{SERVER}{os.pathsep}{top}")
    native_on, answers = json.loads(_run(ANSWERS, path))
    native_off, python_answers = json.loads(_run(ANSWERS, path, **{_guard.ENV: "0"}))
    assert native_on and not native_off
    assert answers == python_answers


def test_the_bots_legal_cards_are_the_engines() -> None:
    """`state.legal_mask` (compiled with the bots) states the engine's rule: the same masks."""
    import random

    from spades.bots.state import legal_mask
    from spades.engine import fast

    rng = random.Random(61)
    for _ in range(3000):
        hand = rng.getrandbits(56) & rng.getrandbits(56)
        for first in (-1, *rng.sample(range(56), 6)):
            for broken in (False, True):
                for must in (False, True):
                    assert legal_mask(hand, first, broken, must) == fast.legal_mask(
                        hand, first, broken, must
                    )


def test_the_bots_card_lists_are_the_engines() -> None:
    """`state.bits` (bidding's `cards_of`, compiled with the bots) lists what the engine's does."""
    import random

    from spades.bots.state import bits
    from spades.engine.cards import cards_of

    rng = random.Random(62)
    for _ in range(3000):
        mask = rng.getrandbits(56) & rng.getrandbits(56)
        assert bits(mask) == cards_of(mask)
