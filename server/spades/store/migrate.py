"""Alembic, configured from pyproject.toml `[tool.alembic]` (no alembic.ini).

`upgrade(url)` is synchronous. The migration environment runs its own event loop, so when
it is called from inside a running loop (the server's start-up) it runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import importlib.resources
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection
from sqlalchemy.engine import URL

from .db import create_engine, default_url, normalize_url

ROOT = Path(__file__).resolve().parents[3]


def _migrations_dir() -> Path:
    """The wheel ships them as `spades/migrations` (setup.py copies them at build time);
    an editable install or a plain checkout reads the top-level `migrations/`."""
    packaged = importlib.resources.files("spades") / "migrations"
    if isinstance(packaged, Path) and (packaged / "env.py").is_file():
        return packaged
    return ROOT / "migrations"


MIGRATIONS = _migrations_dir()
# The developers' settings (file_template for `alembic revision`) exist only in a checkout.
PYPROJECT = ROOT / "pyproject.toml" if MIGRATIONS == ROOT / "migrations" else None

T = TypeVar("T")


def alembic_config(url: str | URL | None = None) -> Config:
    """The Alembic config of the project, pointed at `url` (default: SPADES_DATABASE_URL)."""
    cfg = Config(toml_file=str(PYPROJECT)) if PYPROJECT and PYPROJECT.exists() else Config()
    # The migrations folder is found from this file, so any working directory will do.
    cfg.set_main_option("script_location", str(MIGRATIONS))
    rendered = normalize_url(url or default_url()).render_as_string(hide_password=False)
    cfg.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return cfg


def _outside_loop(fn: Callable[[], T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return fn()
    result: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            result.append(fn())
        except BaseException as exc:
            failure.append(exc)

    worker = threading.Thread(target=work, name="spades-migrate")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return result[0]


def upgrade(url: str | URL | None = None, revision: str = "head") -> None:
    """Migrate the database at `url` up to `revision` (default: the newest)."""
    cfg = alembic_config(url)
    _outside_loop(lambda: command.upgrade(cfg, revision))


def downgrade(url: str | URL | None = None, revision: str = "base") -> None:
    cfg = alembic_config(url)
    _outside_loop(lambda: command.downgrade(cfg, revision))


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(url: str | URL | None = None) -> str | None:
    """The revision the database is at (None: never migrated)."""

    def read(conn: Connection) -> str | None:
        return MigrationContext.configure(conn).get_current_revision()

    async def query() -> str | None:
        engine = create_engine(url or default_url())
        try:
            async with engine.connect() as conn:
                return await conn.run_sync(read)
        finally:
            await engine.dispose()

    return _outside_loop(lambda: asyncio.run(query()))
