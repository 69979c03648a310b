"""A room on PostgreSQL while the database is away for a while: players get
`storage_error`, nothing accepted is lost, and play resumes once it is back.

The room reaches the shared PostgreSQL server through a TCP relay the test cuts and
restores (tests/tcp_relay.py). Skipped without PostgreSQL, except under CI=true.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest
from room_helpers import Conn, first_legal, manager_for, settle
from sqlalchemy.engine import make_url

from spades.rooms import ManualClock
from spades.store import open_store, upgrade
from tcp_relay import Relay

PG_ADMIN_URL = os.environ.get(
    "SPADES_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)


def dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    try:
        admin = await asyncpg.connect(dsn(PG_ADMIN_URL), timeout=3)
    except Exception as exc:
        reason = f"PostgreSQL unreachable at {make_url(PG_ADMIN_URL)!r}: {exc!r}"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true requires PostgreSQL: {reason}")
        pytest.skip(reason)
    name = f"spades_test_{secrets.token_hex(6)}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    try:
        await asyncio.to_thread(upgrade, url)
        yield url
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_players_get_storage_error_and_play_on_when_the_database_is_back(
    pg_url: str, tmp_path: Path
) -> None:
    parsed = make_url(pg_url)
    relay = Relay(parsed.host or "127.0.0.1", parsed.port or 5432)
    await relay.start()
    clock = ManualClock()
    store = await open_store(
        parsed.set(host="127.0.0.1", port=relay.port).render_as_string(hide_password=False),
        clock=lambda: datetime.fromtimestamp(clock.now(), UTC),
        connect_args={"timeout": 2, "command_timeout": 2},
    )
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    try:
        room, _, token = await manager.create("P0", {"target": 100})
        tokens = [token]
        for seat in (1, 2, 3):
            tokens.append((await room.call(room.join, f"P{seat}", seat, False))[1])
        conns = [Conn() for _ in range(4)]
        for conn, t in zip(conns, tokens, strict=True):
            await room.call(room.attach, conn, t)
        await room.call(room.handle, conns[0], {"type": "start"})

        async def move(ref: str) -> tuple[Conn, int]:
            game = room.game
            assert game is not None and game.to_act is not None
            conn = conns[game.to_act]
            await settle(lambda: conn.last_state()["view"]["to_act"] == conn.seat)
            action = first_legal("basic", conn.last_state()["view"])
            before = len(conn.errors())
            await room.call(room.handle, conn, {"id": ref, **action})
            return conn, before

        for i in range(3):
            conn, before = await move(f"ok{i}")
            assert len(conn.errors()) == before
        accepted = room.seq

        await relay.cut()  # the database goes away
        conn, before = await move("lost")
        assert [e["code"] for e in conn.errors()[before:]] == ["storage_error"]
        assert room.seq == accepted  # the action did not happen

        await relay.start()  # and comes back
        conn, before = await move("again")
        assert len(conn.errors()) == before
        assert room.seq == accepted + 1
        stored = await store.get_room(room.room_id)
        assert [a.seq for a in stored.actions] == list(range(1, accepted + 2))
    finally:
        await manager.stop()
        await store.close()
        if relay.server is not None:
            await relay.cut()
