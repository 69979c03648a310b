"""`spades db backup PATH` and `spades db restore PATH` for an SQLite database.

A backup is SQLite's online backup (`sqlite3.Connection.backup`) taken in one step: one
read transaction over the whole file, so the copy is the database as of one commit, with
whatever the WAL holds, while the server and its writer process go on writing (in WAL mode
a reader never blocks them). The copy is written beside PATH, checked, made a single file
(no WAL), flushed to disk and only then renamed to PATH.

A restore refuses while a server holds the database (its `spades.db.lock`, which it takes
itself for the time of the restore, so no server starts meanwhile), and refuses a file
that is not a Spades database or whose migration this version does not know (made by a
newer version). It copies the backup beside the database, moves the database it replaces
aside (with its WAL, so nothing is lost by mistake) and renames the copy into place.
PostgreSQL has its own tools (pg_dump, pg_restore): docs/operations.md, "Backups".
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .filelock import DatabaseInUse, lock_database

# The tables every revision of the schema has: a file without them is not a Spades database.
SPADES_TABLES = frozenset({"alembic_version", "rooms", "seats", "games", "actions"})
BUSY_TIMEOUT_S = 30.0  # a checkpoint of the writer holds a lock for a moment


class BackupRefused(Exception):
    """The file or the state of the database says no: one line for the user."""


@dataclass(frozen=True)
class Snapshot:
    """What a backup (or a database) holds, said to the user."""

    path: Path
    revision: str
    games: int
    actions: int
    size: int

    def describe(self) -> str:
        return (
            f"revision {self.revision}, {self.games} game(s), {self.actions} action(s), "
            f"{self.size:,} bytes"
        )


@contextlib.contextmanager
def _open(path: Path, *, create: bool = False) -> Iterator[sqlite3.Connection]:
    """An SQLite connection to `path` (never creating it unless `create`), closed after."""
    mode = "rwc" if create else "rw"
    conn = sqlite3.connect(
        f"{path.as_uri()}?mode={mode}", uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None
    )
    try:
        yield conn
    finally:
        conn.close()


def _revision(conn: sqlite3.Connection, path: Path) -> str:
    """The migration revision of a Spades database, or BackupRefused."""
    try:
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        missing = sorted(SPADES_TABLES - names)
        if missing:
            raise BackupRefused(f"{path} is not a Spades database (no {missing[0]} table)")
        revisions = [row[0] for row in conn.execute("SELECT version_num FROM alembic_version")]
    except sqlite3.DatabaseError as exc:  # "file is not a database", a torn file
        raise BackupRefused(f"{path} is not an SQLite database ({exc})") from None
    if len(revisions) != 1:
        raise BackupRefused(f"{path} is not a Spades database (no migration revision)")
    return str(revisions[0])


def _snapshot(conn: sqlite3.Connection, path: Path) -> Snapshot:
    revision = _revision(conn, path)
    (games,) = conn.execute("SELECT count(*) FROM games").fetchone()
    (actions,) = conn.execute("SELECT count(*) FROM actions").fetchone()
    return Snapshot(path, revision, int(games), int(actions), path.stat().st_size)


def _check(conn: sqlite3.Connection, path: Path) -> None:
    try:
        result = [row[0] for row in conn.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as exc:
        raise BackupRefused(f"{path} is not an SQLite database ({exc})") from None
    if result != ["ok"]:
        raise BackupRefused(f"{path} is damaged: {'; '.join(map(str, result[:3]))}")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temporary(beside: Path) -> Path:
    return beside.with_name(f".{beside.name}.{os.getpid()}.partial")


def _copy(source: sqlite3.Connection, target: Path) -> None:
    """Copy `source` into the new file `target` in one step (one consistent read), as a
    single file without a WAL, checked and flushed."""
    with _open(target, create=True) as copy:
        source.backup(copy)  # pages=-1: every page in one step, one read transaction
        copy.execute("PRAGMA journal_mode = DELETE")
        _check(copy, target)
    _fsync(target)


def _known(revision: str, known: set[str]) -> None:
    if revision not in known:
        raise BackupRefused(
            f"it is at migration {revision}, which this version of spades does not know "
            "(made by a newer version?): restore it with that version"
        )


def backup(database: Path, target: Path, known: set[str]) -> Snapshot:
    """Copy the live database `database` to the new file `target`."""
    if not database.is_file():
        raise BackupRefused(f"no database at {database}")
    if target.exists():
        raise BackupRefused(f"{target} exists: give a new file")
    if not target.parent.is_dir():
        raise BackupRefused(f"no directory {target.parent}")
    partial = _temporary(target)
    try:
        with _open(database) as source:
            _known(_revision(source, database), known)
            _copy(source, partial)
        with _open(partial) as copy:
            snapshot = _snapshot(copy, partial)
        os.replace(partial, target)
        _fsync(target.parent)
    finally:
        partial.unlink(missing_ok=True)
    return Snapshot(target, snapshot.revision, snapshot.games, snapshot.actions, snapshot.size)


def restore(
    source: Path, database: Path, url: str, known: set[str]
) -> tuple[Snapshot, Path | None]:
    """Put the backup `source` in place of `database` (the file of `url`); the database
    it replaces is moved aside, its path returned (None: there was none)."""
    if not source.is_file():
        raise BackupRefused(f"no backup at {source}")
    if source.resolve() == database.resolve():
        raise BackupRefused(f"{source} is the database itself")
    if not database.parent.is_dir():
        raise BackupRefused(f"no directory {database.parent}")
    try:
        lock = lock_database(url)
    except DatabaseInUse as exc:
        raise BackupRefused(f"{exc}; a restore needs the server stopped") from None
    partial = _temporary(database)
    try:
        with _open(source) as backup_file:
            _check(backup_file, source)
            _known(_revision(backup_file, source), known)
            _copy(backup_file, partial)
        with _open(partial) as copy:
            snapshot = _snapshot(copy, source)
        aside = _move_aside(database)
        os.replace(partial, database)
        _fsync(database.parent)
    finally:
        partial.unlink(missing_ok=True)
        if lock is not None:
            lock.release()
    return snapshot, aside


def _move_aside(database: Path) -> Path | None:
    """Rename the database and its WAL (they belong together) out of the way; drop its
    shared-memory index (rebuilt from the WAL). None when there is no database."""
    if not database.exists():
        for suffix in ("-wal", "-shm", "-journal"):  # leftovers of nothing: they must go
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        return None
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    aside = database.with_name(f"{database.name}.before-restore-{stamp}")
    os.replace(database, aside)
    for suffix in ("-wal", "-journal"):
        companion = Path(f"{database}{suffix}")
        if companion.exists():
            os.replace(companion, Path(f"{aside}{suffix}"))
    Path(f"{database}-shm").unlink(missing_ok=True)
    return aside
