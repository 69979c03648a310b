"""The commit path of an SQLite file, in process: every batch (appends and any other
writes) is committed by one worker thread on a plain sqlite3 connection."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from sqlalchemy.engine import URL, Connection

from . import sqlite_log
from .access import Access
from .appends import append_rows_sqlite
from .db import create_sync_sqlite_engine
from .failures import connection_lost
from .fences import with_fences
from .group_commit import Answers, Committed, Job, Pending
from .owner_writes import OwnerWrite
from .protocol import ActionRow, StoreError


class SqliteAppender:
    """Commits batches on a plain (sync) SQLite connection in one worker thread.

    aiosqlite hops to its thread for every statement; a batch here costs one hop in all,
    so a commit is little more than SQLite's own fsync. This thread holds the GIL whenever
    it runs Python, which the event loop then cannot, so the append path stays lean: one
    connection kept for the thread's life (no pool checkout and reset per batch), the
    last sequence number of each game kept in memory (read from the log on first use and
    forgotten after any failed commit), and rows inserted through the driver with one
    prepared statement instead of a SQLAlchemy expression per batch.
    """

    def __init__(self, url: URL) -> None:
        self.engine = create_sync_sqlite_engine(url, begin="BEGIN IMMEDIATE")
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spades-append")
        self._conn: Connection | None = None  # opened in the worker thread, used only there
        self._last: dict[int, int] = {}

    def commit(
        self,
        rows: list[ActionRow],
        jobs: list[Callable[[Connection], Any]],
        stamp: datetime,
        fences: list[int | None] | None = None,
    ) -> tuple[list[StoreError | None], list[tuple[bool, Any]]]:
        """One transaction: the appends, then each job in a savepoint of its own, so a job
        that fails (a duplicate room code, an unknown game) fails alone."""
        if self._conn is None:
            self._conn = self.engine.connect()
        conn = self._conn
        results: list[tuple[bool, Any]] = []
        last = self._last
        if not jobs and not any(f is not None for f in fences or ()):
            # The fast path checks no fence: fenced appends (cluster mode) take the full one.
            try:
                return self._append_only(conn, rows, stamp), results
            except Exception as exc:
                self._drop_if_lost(exc)
                raise
        try:
            with conn.begin():
                outcomes = with_fences(
                    conn, rows, fences, lambda kept: append_rows_sqlite(conn, kept, stamp, last)
                )
                for job in jobs:
                    results.append(_run_job(conn, job))
        except BaseException as exc:
            # The numbers counted in this batch were not stored; a failed insert (a game a
            # job deleted, another process's row) is retried row by row from the log.
            last.clear()
            self._drop_if_lost(exc)
            raise
        if len(last) > sqlite_log.SEQ_CACHE:
            last.clear()
        return outcomes, results

    def _append_only(
        self, conn: Connection, rows: list[ActionRow], stamp: datetime
    ) -> list[StoreError | None]:
        """A batch of appends alone (the usual one), its transaction run on the driver:
        SQLAlchemy's begin and commit machinery would cost this thread, which holds the GIL
        while it runs Python, more than the inserts themselves."""
        raw = conn.connection.driver_connection
        assert raw is not None and raw.isolation_level is None  # we say where it begins
        raw.execute("BEGIN IMMEDIATE")
        try:
            outcomes = append_rows_sqlite(conn, rows, stamp, self._last)
            raw.execute("COMMIT")
        except BaseException:
            if raw.in_transaction:
                raw.execute("ROLLBACK")
            self._last.clear()  # as in `commit`
            raise
        if len(self._last) > sqlite_log.SEQ_CACHE:
            self._last.clear()
        return outcomes

    def _drop_if_lost(self, exc: BaseException) -> None:
        """A connection that cannot go on (invalidated, or opened while the file was
        read-only, which it stays): the next batch opens a new one (db.py's `handle_error`
        does the same for the pooled ones)."""
        if self._conn is not None and (connection_lost(exc) or self._conn.invalidated):
            with contextlib.suppress(Exception):
                self._conn.invalidate()
                self._conn.close()
            self._conn = None

    def close(self) -> None:
        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        self.executor.submit(shut).result()
        self.executor.shutdown(wait=True)
        self.engine.dispose()


def _run_job(conn: Connection, job: Callable[[Connection], Any]) -> tuple[bool, Any]:
    """`job` in a savepoint of its own: (True, its value) or (False, its error)."""
    savepoint = conn.begin_nested()
    try:
        value = job(conn)
    except Exception as exc:
        if connection_lost(exc):
            raise  # the whole batch failed, not this job alone
        savepoint.rollback()
        return False, exc
    savepoint.commit()
    return True, value


class SqliteThreadPath:
    """Every write of the store joins the group commit, so creating a room costs a share
    of one fsync instead of a whole one behind every batch of moves."""

    def __init__(self, access: Access) -> None:
        self.access = access
        assert access.write_lock is not None
        self.write_lock = access.write_lock
        self.appender = SqliteAppender(access.engine.url)

    def queues(self, hand: sqlite_log.Hand | None, owner: OwnerWrite | None) -> bool:
        return True

    async def commit(
        self, appends: list[Pending], jobs: list[Job], stamp: datetime, answers: Answers
    ) -> Committed | None:
        async with self.write_lock:
            return await self.in_thread(appends, jobs, stamp)

    async def in_thread(
        self, appends: list[Pending], jobs: list[Job], stamp: datetime
    ) -> Committed:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self.appender.executor,
            self.appender.commit,
            [p.row for p in appends],
            [j.fn for j in jobs],
            stamp,
            [p.fence for p in appends],
        )

    def forget(self) -> None:
        pass

    def started(self, game_id: int) -> None:
        pass

    async def close(self) -> None:
        await asyncio.to_thread(self.appender.close)
