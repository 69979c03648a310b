"""`spades db backup PATH` and `spades db restore PATH` on SQLite files: what they refuse
(one line, exit status 2, nothing changed) and what a restore does with the database it
replaces. The backup of a live server mid-game and its restore are in
tests/api/test_api_backup.py."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from spades.store import upgrade
from spades.store.migrate import head_revision


def spades(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SPADES_DATABASE_URL": f"sqlite+aiosqlite:///{db}"}
    return subprocess.run(
        [sys.executable, "-m", "spades.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("spades db "), done.stderr
    assert done.stdout == ""
    for word in words:
        assert word in lines[0], lines[0]


def sql(db: Path, statement: str) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        return list(conn.execute(statement))


def room(code: str) -> str:
    """An INSERT of a room (the tests tell databases apart by their rooms)."""
    stamp = "2026-12-01 00:00:00.000000"
    return (
        "INSERT INTO rooms (id, code, settings, status, created_at, updated_at) "
        f"VALUES ('{code}', '{code}', '{{}}', 'open', '{stamp}', '{stamp}')"
    )


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("migrated") / "spades.db"
    upgrade(f"sqlite+aiosqlite:///{path}")
    sql(path, room("ABCDEF"))
    return path


@pytest.fixture
def db(tmp_path: Path, migrated: Path) -> Path:
    live = tmp_path / "spades.db"
    shutil.copy(migrated, live)
    sql(live, "PRAGMA journal_mode = WAL")
    return live


def test_backup_refuses_a_missing_database_a_postgres_url_and_an_existing_file(
    tmp_path: Path, db: Path
) -> None:
    missing = tmp_path / "none.db"
    refused(spades("db", "backup", str(tmp_path / "b.db"), db=missing), "no database")
    assert not missing.exists()
    url = "postgresql+asyncpg://u@127.0.0.1:1/x"
    refused(spades("db", "backup", "b.db", "--url", url, db=db), "pg_dump")
    (tmp_path / "taken.db").write_text("mine")
    refused(spades("db", "backup", str(tmp_path / "taken.db"), db=db), "exists")
    assert (tmp_path / "taken.db").read_text() == "mine"
    refused(spades("db", "backup", str(tmp_path / "no" / "b.db"), db=db), "no directory")
    refused(spades("db", "backup", db=db))  # no PATH: argparse's one line


def test_a_backup_is_one_file_with_what_was_committed(tmp_path: Path, db: Path) -> None:
    # Committed into the WAL and not yet into the file itself: the backup has it.
    with contextlib.closing(sqlite3.connect(db)) as keep:
        keep.execute("PRAGMA wal_autocheckpoint = 0")
        with keep:
            keep.execute(room("WALWAL"))
        assert Path(f"{db}-wal").stat().st_size > 0
        copy = tmp_path / "copy.db"
        done = spades("db", "backup", str(copy), db=db)
    assert done.returncode == 0, done.stderr
    assert f"revision {head_revision()}" in done.stdout and len(done.stdout.splitlines()) == 1
    assert not Path(f"{copy}-wal").exists()
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []
    assert sql(copy, "PRAGMA journal_mode") == [("delete",)]
    assert sql(copy, "SELECT code FROM rooms ORDER BY code") == [("ABCDEF",), ("WALWAL",)]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("not a database at all", ("not an SQLite database",)),
        ("sqlite, not spades", ("not a Spades database",)),
        ("newer", ("ffff", "newer")),
    ],
)
def test_restore_refuses_a_file_that_is_not_a_spades_backup_it_knows(
    tmp_path: Path, db: Path, content: str, words: tuple[str, ...]
) -> None:
    bad = tmp_path / "bad.db"
    if content == "newer":
        shutil.copy(db, bad)
        sql(bad, "UPDATE alembic_version SET version_num = 'ffff'")
    elif content.startswith("sqlite"):
        sql(bad, "CREATE TABLE rooms (x)")
    else:
        bad.write_text(content * 300)
    before = db.read_bytes()
    refused(spades("db", "restore", str(bad), db=db), *words)
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [
            "bad.db",
            "spades.db",
            "spades.db.lock",
            *(n for n in ("spades.db-wal", "spades.db-shm") if (tmp_path / n).exists()),
        ]
    )


def test_restore_refuses_while_a_server_holds_the_database(tmp_path: Path, db: Path) -> None:
    copy = tmp_path / "copy.db"
    assert spades("db", "backup", str(copy), db=db).returncode == 0
    # What `spades serve` holds for its life (spades/store/filelock.py).
    fd = os.open(tmp_path / "spades.db.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, b"4242\n")
        refused(spades("db", "restore", str(copy), db=db), "already running", "4242")
    finally:
        os.close(fd)
    refused(spades("db", "restore", str(db), db=db), "the database itself")
    refused(spades("db", "restore", str(tmp_path / "none.db"), db=db), "no backup")


def test_restore_moves_the_replaced_database_aside_with_its_wal(tmp_path: Path, db: Path) -> None:
    copy = tmp_path / "copy.db"
    assert spades("db", "backup", str(copy), db=db).returncode == 0
    # A server killed with its last commit still in the WAL: the files as it left them.
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    with contextlib.closing(sqlite3.connect(db)) as keep:
        keep.execute("PRAGMA wal_autocheckpoint = 0")
        with keep:
            keep.execute(room("LATER1"))
        for name in (db.name, f"{db.name}-wal"):
            shutil.copy(tmp_path / name, crashed / name)
    for name in (db.name, f"{db.name}-wal"):
        shutil.copy(crashed / name, tmp_path / name)
    wal = Path(f"{db}-wal").read_bytes()
    assert wal
    done = spades("db", "restore", str(copy), db=db)
    assert done.returncode == 0, done.stderr
    (aside,) = tmp_path.glob("spades.db.before-restore-*[0-9]")
    assert f"now {aside}" in done.stdout
    assert not Path(f"{db}-wal").exists()
    # The restored database is the backup; the one it replaced kept its last commit.
    assert sql(db, "SELECT code FROM rooms") == [("ABCDEF",)]
    assert Path(f"{aside}-wal").read_bytes() == wal
    assert sql(aside, "SELECT code FROM rooms ORDER BY code") == [("ABCDEF",), ("LATER1",)]


def test_an_older_backup_is_restored_and_upgraded_by_the_server(tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    upgrade(f"sqlite+aiosqlite:///{old}", "0004")
    target = tmp_path / "fresh" / "spades.db"
    target.parent.mkdir()
    done = spades("db", "restore", str(old), db=target)
    assert done.returncode == 0, done.stderr
    assert "revision 0004" in done.stdout and "upgrades it at start" in done.stdout
    assert "replaced" not in done.stdout
    assert sql(target, "SELECT version_num FROM alembic_version") == [("0004",)]
