"""Fixtures for the store suite: the same tests on SQLite and on PostgreSQL.

SQLite: a file in tmp_path, copied from a template migrated once per session.
PostgreSQL: a throwaway database per run (dropped afterwards), emptied before each test.
It is skipped with the reason when no server answers, except under CI=true, where an
unreachable server fails the tests instead.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from store_support import FakeClock

from ci_env import skip_or_fail
from spades.store import SqlStore, open_store, upgrade

PG_ADMIN_URL = os.environ.get(
    "SPADES_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
TABLES = (
    "rooms, seats, games, game_seats, actions, hands, chat_messages, players, "
    "game_results, player_stats, sessions, passkeys, auth_challenges, admins, reports, "
    "sanctions, player_mutes, audit_log, player_ratings, rating_changes, room_mutes"
)


# --- PostgreSQL ------------------------------------------------------------------------


def _asyncpg_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _pg_admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(_asyncpg_dsn(PG_ADMIN_URL), timeout=3)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _pg_unreachable() -> str | None:
    try:
        asyncio.run(_pg_admin("SELECT 1"))
    except Exception as exc:  # any failure to connect means: no usable server
        return f"PostgreSQL unreachable at {make_url(PG_ADMIN_URL)!r}: {exc!r}"
    return None


@pytest.fixture(scope="session")
def pg_available() -> None:
    reason = _pg_unreachable()
    if reason is None:
        return
    skip_or_fail(reason)


class PgDatabases:
    """Creates throwaway databases on the server and drops them all at the end."""

    def __init__(self) -> None:
        self.created: list[str] = []

    def create(self) -> str:
        name = f"spades_test_{secrets.token_hex(6)}"
        asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
        self.created.append(name)
        return make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)

    def drop_all(self) -> None:
        for name in self.created:
            asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def pg_databases(pg_available: None) -> Iterator[PgDatabases]:
    dbs = PgDatabases()
    yield dbs
    dbs.drop_all()


@pytest.fixture(scope="session")
def pg_url(pg_databases: PgDatabases) -> str:
    url = pg_databases.create()
    upgrade(url)
    return url


# --- SQLite ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "spades.db"
    upgrade(f"sqlite+aiosqlite:///{path}")
    return path


# --- the parametrized store ------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def db_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty database of the backend under test."""
    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "spades.db"
        shutil.copyfile(template, path)
        return f"sqlite+aiosqlite:///{path}"
    url: str = request.getfixturevalue("pg_url")

    async def empty() -> None:
        store = await open_store(url)
        async with store.engine.begin() as conn:
            await conn.execute(text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE"))
        await store.close()

    asyncio.run(empty())
    return url


@pytest.fixture
def empty_db_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database with no tables at all (for the migration tests)."""
    if backend == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
    dbs: PgDatabases = request.getfixturevalue("pg_databases")
    return dbs.create()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def store(db_url: str, clock: FakeClock) -> AsyncIterator[SqlStore]:
    opened = await open_store(db_url, clock=clock)
    yield opened
    await opened.close()
