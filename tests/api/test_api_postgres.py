"""The server on PostgreSQL: a solo game to the end, then a restart that reloads a room.

Skipped with the reason when no PostgreSQL answers, except under CI=true (then it fails).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from api_helpers import play_until_over, running_server
from sqlalchemy.engine import make_url
from test_api_restart import finished_game_survives_kill_9

from ci_env import skip_or_fail

ADMIN_URL = os.environ.get(
    "SPADES_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)


async def _admin(sql: str) -> None:
    import asyncpg

    dsn = make_url(ADMIN_URL).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn, timeout=3)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    try:
        await _admin("SELECT 1")
    except Exception as exc:
        reason = f"PostgreSQL unreachable at {make_url(ADMIN_URL)!r}: {exc!r}"
        skip_or_fail(reason)
    name = f"spades_api_test_{secrets.token_hex(5)}"
    await _admin(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def test_a_game_on_postgresql_survives_a_restart(tmp_path: Path, pg_url: str) -> None:
    async with running_server(tmp_path, database_url=pg_url) as server:
        solo = await server.create("/api/solo", mode="individual", target=60)
        waiting = await server.create(mode="partnership", public=True)
        client = await server.client(solo["code"], solo["token"])
        final = await play_until_over(client)
        assert final["view"]["winner"] is not None
        game_id = final["room"]["game_id"]
        await client.close()
    async with running_server(tmp_path, database_url=pg_url) as server:
        lobby = (await server.get("/api/rooms")).json()["rooms"]
        assert [r["code"] for r in lobby] == [waiting["code"]]
        record = (await server.get(f"/api/games/{game_id}/record")).json()
        assert record["actions"]
        history = (await server.get(f"/api/rooms/{solo['code']}/history")).json()["games"]
        assert history[0]["game_id"] == game_id
        host = await server.client(waiting["code"], waiting["token"])
        assert host.state["room"]["you"] == 0
        await host.close()


async def test_a_finished_game_on_postgresql_survives_kill_9(tmp_path: Path, pg_url: str) -> None:
    await finished_game_survives_kill_9(pg_url, tmp_path / "server.log")
