"""A backup taken mid-game, while the server runs and writes, restored into a fresh place:
a server started on it resumes the game at the backed-up seq (issue 62, "Backups").

SQLite: `spades db backup` / `spades db restore` (the online backup API). PostgreSQL:
`pg_dump` into a second database with `pg_restore`, as docs/operations.md says; skipped
when pg_dump is missing or PostgreSQL does not answer, except under CI=true.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from api_helpers import Client, free_socket
from sqlalchemy.engine import make_url
from test_api_postgres import _admin, pg_url
from test_api_restart import open_client, start_server, table, wait_ready

from ci_env import skip_or_fail
from support import choose

__all__ = ["pg_url"]

# The longest game there is, and a cap on the actions played while the backup runs (a
# backup on a loaded machine can take many seconds): 1,500 actions are about 25 hands, and
# no side scores 400 in a hand, so the game cannot end under the test.
TARGET = 10_000
MOVES_DURING_BACKUP = 1_500


def port_now() -> int:
    sock = free_socket()
    port = int(sock.getsockname()[1])
    sock.close()
    return port


async def act_until(client: Client, stop: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Act whenever this seat may, one action at a time (the next only once the server
    answered the last: the bots may move meanwhile), until a state satisfies `stop` with
    no action of ours in flight."""
    state, pending = client.state, None
    while pending is not None or not stop(state):
        if pending is None and state["view"]["legal"]:
            pending = f"a{state['seq']}"
            await client.send(**choose(state["view"]), id=pending)
        try:
            message = await client.until(lambda m: m["type"] in ("state", "error"))
        except TimeoutError:
            last = [(m["type"], m.get("seq"), m.get("ref")) for m in client.messages[-6:]]
            raise AssertionError(f"the game stalled: waiting for {pending}, last {last}") from None
        assert message["type"] == "state", message
        if message.get("ref") == pending:
            pending = None
        state = message
    return state


async def run(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A command, run while the event loop goes on (the game keeps being played)."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode is not None
    return subprocess.CompletedProcess(argv, proc.returncode, out.decode(), err.decode())


def spades(*args: str) -> list[str]:
    return [sys.executable, "-m", "spades.cli", *args]


class Played:
    """A solo game played on a live server; what the player saw, by seq."""

    def __init__(self, code: str, token: str, client: Client) -> None:
        self.code, self.token, self.client = code, token, client

    def seen(self) -> dict[int, dict[str, Any]]:
        return {s["seq"]: s for s in self.client.states()}


async def start_game(url: str, ws_url: str) -> Played:
    async with httpx.AsyncClient(base_url=url) as http:
        created = (
            await http.post(
                "/api/solo", json={"name": "Ann", "mode": "partnership", "target": TARGET}
            )
        ).json()
    client = await open_client(ws_url, created["code"], created["token"])
    # Into the first hand: bidding done and a few tricks played.
    await act_until(
        client, lambda s: s["view"]["phase"] == "playing" and len(s["view"]["tricks"]) >= 2
    )
    return Played(created["code"], created["token"], client)


def our_turn(state: dict[str, Any]) -> bool:
    return bool(state["view"]["legal"])


async def backup_while_playing(
    played: Played, take: Callable[[], Awaitable[subprocess.CompletedProcess[str]]]
) -> tuple[int, int]:
    """Run `take` (the backup) while the game goes on, then play on past it and stop on
    this seat's turn (nothing in flight). Returns the seq when the backup started and the
    last seq played."""
    client = played.client
    started = client.state["seq"]
    backup = asyncio.ensure_future(take())
    await act_until(client, lambda s: backup.done() or s["seq"] >= started + MOVES_DURING_BACKUP)
    done = await backup
    assert done.returncode == 0, done.stderr
    at = client.state["seq"]
    after = await act_until(client, lambda s: s["seq"] >= at + 8 and our_turn(s))
    return started, after["seq"]


async def resume_on(played: Played, database: Path | str, backed_up: int, log: Path) -> None:
    """A server on the restored database takes the game up at `backed_up`: the bots play
    the turns that were theirs from there (as they did before: their choices are seeded by
    game and seq, and so are this player's), and it stops on this seat's turn as the
    player saw it then. Then the game goes on."""
    seen = played.seen()
    expected = min(seq for seq, s in seen.items() if seq >= backed_up and our_turn(s))
    port = port_now()
    url, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    server = start_server(database, port, log)
    try:
        await wait_ready(url, server)
        back = await open_client(ws_url, played.code, played.token)
        assert backed_up <= back.state["seq"] <= expected
        assert back.state["room"]["status"] == "playing" and back.state["room"]["you"] == 0
        state = await act_until(back, our_turn)
        assert state["seq"] == expected
        assert table(state["view"]) == table(seen[expected]["view"])
        assert state["view"]["legal"] == seen[expected]["view"]["legal"]
        after = await act_until(back, lambda s: s["seq"] >= expected + 12)
        assert after["room"]["status"] == "playing"
        await back.close()
    finally:
        server.terminate()
        server.wait(30)


async def test_sqlite_backup_mid_game_restores_and_resumes(tmp_path: Path) -> None:
    live, copy = tmp_path / "live" / "spades.db", tmp_path / "spades-backup.db"
    fresh = tmp_path / "fresh" / "spades.db"
    live.parent.mkdir()
    fresh.parent.mkdir()
    port = port_now()
    url, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    first = start_server(live, port, tmp_path / "first.log")
    try:
        await wait_ready(url, first)
        played = await start_game(url, ws_url)
        live_url = f"sqlite+aiosqlite:///{live}"
        started, last = await backup_while_playing(
            played, lambda: run(*spades("db", "backup", str(copy)), SPADES_DATABASE_URL=live_url)
        )
        # Not over the live database while its server runs: one line, exit 2, nothing changed.
        refused = await run(*spades("db", "restore", str(copy)), SPADES_DATABASE_URL=live_url)
        assert refused.returncode == 2 and "already running" in refused.stderr
        assert len(refused.stderr.splitlines()) == 1 and refused.stdout == ""
        await played.client.close()
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(30)
    with contextlib.closing(sqlite3.connect(copy)) as db:
        (backed_up,) = db.execute("SELECT count(*) FROM actions").fetchone()
        assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert not Path(f"{copy}-wal").exists()
    # A copy of the middle of the game: taken after the game had started, before its end.
    assert started <= backed_up < last

    done = await run(*spades("db", "restore", str(copy), "--url", f"sqlite+aiosqlite:///{fresh}"))
    assert done.returncode == 0, done.stderr
    assert f"{backed_up} action(s)" in done.stdout
    await resume_on(played, fresh, backed_up, tmp_path / "second.log")


def dsn(url: str) -> str:
    """The libpq form of a database URL, for pg_dump and pg_restore."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def test_postgresql_dump_mid_game_restores_and_resumes(tmp_path: Path, pg_url: str) -> None:
    pg_dump, pg_restore = shutil.which("pg_dump"), shutil.which("pg_restore")
    if pg_dump is None or pg_restore is None:
        skip_or_fail("pg_dump and pg_restore are not installed (Debian's postgresql-client)")
    dump = tmp_path / "spades.dump"
    port = port_now()
    url, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    first = start_server(pg_url, port, tmp_path / "first.log")
    try:
        await wait_ready(url, first)
        played = await start_game(url, ws_url)
        started, last = await backup_while_playing(
            played, lambda: run(pg_dump, "-Fc", "-f", str(dump), dsn(pg_url))
        )
        await played.client.close()
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(30)

    second_db = f"spades_api_restore_{secrets.token_hex(5)}"
    await _admin(f'CREATE DATABASE "{second_db}"')
    restored_url = make_url(pg_url).set(database=second_db).render_as_string(hide_password=False)
    try:
        done = await run(pg_restore, "--no-owner", "-d", dsn(restored_url), str(dump))
        assert done.returncode == 0, done.stderr
        conn = await asyncpg.connect(dsn(restored_url))
        try:
            backed_up = await conn.fetchval("SELECT count(*) FROM actions")
        finally:
            await conn.close()
        assert started <= backed_up < last
        await resume_on(played, restored_url, backed_up, tmp_path / "second.log")
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{second_db}" WITH (FORCE)')
