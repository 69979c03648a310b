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
from sqlalchemy import Connection, text
from sqlalchemy.engine import URL

from .db import create_engine, normalize_url

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
    """The Alembic config of the project, pointed at `url` (None: at no database, enough to
    read the migrations)."""
    cfg = Config(toml_file=str(PYPROJECT)) if PYPROJECT and PYPROJECT.exists() else Config()
    # The migrations folder is found from this file, so any working directory will do.
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        rendered = normalize_url(url).render_as_string(hide_password=False)
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


def upgrade(url: str | URL, revision: str = "head") -> None:
    """Migrate the database at `url` up to `revision` (default: the newest).

    On PostgreSQL it holds an advisory lock meanwhile, so processes of a cluster that
    start at once migrate one after the other: the first upgrades, the others then find
    the schema at head and do nothing.
    """
    cfg = alembic_config(url)
    _outside_loop(lambda: _one_at_a_time(url, lambda: command.upgrade(cfg, revision)))


def downgrade(url: str | URL, revision: str = "base") -> None:
    cfg = alembic_config(url)
    _outside_loop(lambda: _one_at_a_time(url, lambda: command.downgrade(cfg, revision)))


# The key of the session-level advisory lock migrations take on PostgreSQL (any constant
# the application uses for nothing else: "spades" in ASCII).
MIGRATION_LOCK = 0x737061646573


def _one_at_a_time(url: str | URL, work: Callable[[], None]) -> None:
    """Run `work` holding the migration lock (PostgreSQL); elsewhere just run it.

    The lock sits on a connection of its own, outside any transaction, and Alembic runs
    beside it on its own connection. If this process dies, PostgreSQL ends the session
    and the lock goes with it.
    """
    parsed = normalize_url(url)
    if parsed.get_backend_name() != "postgresql":
        work()
        return

    async def locked() -> None:
        engine = create_engine(parsed, isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as conn:
                key = {"key": MIGRATION_LOCK}
                await conn.execute(text("SELECT pg_advisory_lock(:key)"), key)
                try:
                    # Alembic runs its own event loop: give it a thread without one.
                    await asyncio.to_thread(work)
                finally:
                    await conn.execute(text("SELECT pg_advisory_unlock(:key)"), key)
        finally:
            await engine.dispose()

    asyncio.run(locked())


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def known_revisions() -> set[str]:
    """Every revision of the migrations this version ships."""
    script = ScriptDirectory.from_config(alembic_config())
    return {rev.revision for rev in script.walk_revisions()}


def current_revision(url: str | URL) -> str | None:
    """The revision the database is at (None: never migrated)."""

    def read(conn: Connection) -> str | None:
        return MigrationContext.configure(conn).get_current_revision()

    async def query() -> str | None:
        engine = create_engine(url)
        try:
            async with engine.connect() as conn:
                return await conn.run_sync(read)
        finally:
            await engine.dispose()

    return _outside_loop(lambda: asyncio.run(query()))
