"""The cluster suite: real processes, PostgreSQL, Redis and HAProxy (mark `cluster`).

Skipped with the reason when a service is missing, except under CI=true/1, where a missing
service fails the tests instead.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_support import Cluster, haproxy_missing, redis_unreachable
from sqlalchemy.engine import make_url

from ci_env import skip_or_fail

PG_ADMIN_URL = os.environ.get(
    "SPADES_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.cluster)


async def _pg_admin(sql: str) -> None:
    import asyncpg

    dsn = make_url(PG_ADMIN_URL).set(drivername="postgresql").render_as_string(False)
    conn = await asyncpg.connect(dsn, timeout=3)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _missing() -> str | None:
    try:
        asyncio.run(_pg_admin("SELECT 1"))
    except Exception as exc:
        return f"PostgreSQL unreachable at {make_url(PG_ADMIN_URL)!r}: {exc!r}"
    return redis_unreachable() or haproxy_missing()


@pytest.fixture(scope="session")
def services() -> None:
    reason = _missing()
    if reason is not None:
        skip_or_fail(f"the cluster tests need PostgreSQL, Redis and HAProxy: {reason}")


@pytest.fixture(scope="session")
def migrated_template(services: None) -> Iterator[str]:
    """A database migrated once per pytest process (`spades db upgrade`, as an operator
    would), which each test's database is copied from: a copy takes a tenth of a second
    where the migration takes two or more."""
    name = f"spades_cluster_tpl_{secrets.token_hex(6)}"
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    url = make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    try:
        subprocess.run(
            [str(Path(sys.executable).parent / "spades"), "db", "upgrade"],
            env={**os.environ, "SPADES_DATABASE_URL": url},
            check=True,
            capture_output=True,
        )
        yield name
    finally:
        asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def database_url(migrated_template: str) -> Iterator[str]:
    name = f"spades_cluster_{secrets.token_hex(6)}"
    # A copy of the migrated template, so the three processes start on an up-to-date schema.
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}" TEMPLATE "{migrated_template}"'))
    url = make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "cluster_env(**env): settings for the cluster's processes")


@pytest.fixture
def cluster(database_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Cluster]:
    marker = request.node.get_closest_marker("cluster_env")
    cluster = Cluster(database_url, tmp_path, env=marker.kwargs if marker else {})
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
