"""One server per SQLite file: `spades serve` holds an exclusive lock on a file beside the
database (`spades.db.lock` next to `spades.db`) for its whole life.

Two servers on one file would both replay and run the same rooms, each with its own view
of them, and both append to the same games. The lock is `flock` on the sibling file, not
on the database itself: SQLite takes its own POSIX locks on the database, and the two kinds
must never meet (on some network filesystems `flock` is emulated with POSIX locks). The
kernel drops the lock when the process ends, however it ends (`kill -9` included), so a
crashed server never blocks its successor. The descriptor is not inherited: the SQLite
writer and the bot workers are started with their own descriptors only (subprocess and
multiprocessing's spawn), so a child that outlives its server for a moment holds nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from pathlib import Path

from sqlalchemy.engine import make_url

from .protocol import StoreError

log = logging.getLogger(__name__)


class DatabaseInUse(StoreError):
    """Another live process holds the database's lock."""


class FileLock:
    """A held lock; dropped by `release` or when the process ends."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd: int | None = fd
        self.path = path

    def release(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def sqlite_file(url: str) -> Path | None:
    """The file an SQLite URL names (None: another database, or SQLite in memory)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database).resolve()


def lock_database(url: str) -> FileLock | None:
    """Lock the SQLite file of `url` for this process, or raise DatabaseInUse naming the
    process that holds it. None for PostgreSQL (several servers share it: the cluster) and
    in-memory SQLite. A lock file that cannot be made at all (a read-only directory) is
    logged and not required: such a server cannot write its rooms either, and says so."""
    database = sqlite_file(url)
    if database is None:
        return None
    path = database.with_name(database.name + ".lock")
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        log.warning(
            "%s could not be made (%s): a second server on %s is not stopped", path, exc, database
        )
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
        os.close(fd)
        raise DatabaseInUse(
            f"another server is already running on {database} (process {holder} holds "
            f"{path}); stop it, or give this one another database"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return FileLock(fd, path)
