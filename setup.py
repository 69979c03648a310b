"""Build hook: the top-level `migrations/` and `client/` go into the wheel as package data.

Their sources stay at the top of the checkout; `build_py` copies them to
`spades/migrations` and `spades/client`, where the installed server finds them with
importlib.resources. Everything else is configured in pyproject.toml. An editable install
(`make dev`) skips the copy: the code falls back to the checkout's folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ASSETS = {"migrations": "spades/migrations", "client": "spades/client"}
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


class BuildWithAssets(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for source, target in ASSETS.items():
            destination = Path(self.build_lib, target)
            shutil.rmtree(destination, ignore_errors=True)
            shutil.copytree(HERE / source, destination, ignore=SKIP)


setup(cmdclass={"build_py": BuildWithAssets})
