"""Migrations run once: processes of a cluster starting at once on one PostgreSQL database
take turns on an advisory lock instead of racing on Alembic."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url
from test_store_migrations import TABLES, differences, tables

from spades.store import current_revision
from spades.store.migrate import MIGRATION_LOCK, head_revision

# Sessions of this test's database waiting for an advisory lock.
WAITING = """
    SELECT count(*) FROM pg_locks
    WHERE locktype = 'advisory' AND NOT granted
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""


def asyncpg_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def start_upgrade(url: str) -> subprocess.Popen[str]:
    """`spades db upgrade` in a process of its own, as a server's start-up would run it."""
    return subprocess.Popen(
        [sys.executable, "-m", "spades.cli", "db", "--url", url, "upgrade"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_concurrent_upgrades_on_a_fresh_database(pg_databases: Any) -> None:
    url = pg_databases.create()
    upgrades = [start_upgrade(url) for _ in range(3)]
    outputs = [p.communicate(timeout=300)[0] for p in upgrades]
    assert [p.returncode for p in upgrades] == [0, 0, 0], outputs
    assert current_revision(url) == head_revision()
    assert tables(url) == TABLES
    assert differences(url) == []


def test_upgrade_waits_for_the_lock(pg_databases: Any) -> None:
    """While another session holds the migration lock, an upgrade changes nothing; it
    goes ahead once the lock is let go."""
    url = pg_databases.create()

    async def scenario() -> str:
        holder = await asyncpg.connect(asyncpg_dsn(url))
        try:
            await holder.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
            upgrading = start_upgrade(url)
            # Wait (no deadline of our own) until the upgrade queues behind the lock.
            while not await holder.fetchval(WAITING):
                assert upgrading.poll() is None, upgrading.communicate()[0]
                await asyncio.sleep(0.05)
            assert await holder.fetchval("SELECT to_regclass('rooms')") is None
            await holder.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
            output = await asyncio.to_thread(lambda: upgrading.communicate(timeout=300)[0])
            assert upgrading.returncode == 0, output
            return output
        finally:
            await holder.close()

    asyncio.run(scenario())
    assert current_revision(url) == head_revision()
    assert tables(url) == TABLES
