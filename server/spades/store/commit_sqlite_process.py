"""The commit path of an SQLite file with a writer process: batches of appends and
finished hands' rows (the hot path) go to a child process (`sqlite_log.py` says why);
batches with other writes, or fenced appends, run in process (`commit_sqlite`)."""

from __future__ import annotations

import json
import logging
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from . import sqlite_log
from .access import Access
from .appends import sqlite_rows
from .commit_sqlite import SqliteThreadPath
from .failures import as_unavailable, refusal
from .group_commit import Answers, Committed, Job, Pending, fail
from .protocol import SequenceError, StorageUnavailable, StoreError
from .tables import ACTIONS, HANDS
from .writer_process import WriterLost, WriterProcess, WriterRefused

log = logging.getLogger(__name__)


class SqliteProcessPath(SqliteThreadPath):
    def __init__(self, access: Access) -> None:
        super().__init__(access)
        self.writer = WriterProcess.sqlite(str(access.engine.url.database))

    async def commit(
        self, appends: list[Pending], jobs: list[Job], stamp: datetime, answers: Answers
    ) -> Committed | None:
        async with self.write_lock:
            if all(j.hand is not None for j in jobs) and all(p.fence is None for p in appends):
                found = await self._in_writer(appends, stamp, jobs, answers)
                if found is None:
                    return None  # the writer was lost; the rows were settled from the log
                return found, [(True, None)] * len(jobs)
            return await self.in_thread(appends, jobs, stamp)

    async def _in_writer(
        self, appends: list[Pending], stamp: datetime, jobs: list[Job], answers: Answers
    ) -> list[StoreError | None] | None:
        """A batch of appends and finished hands' rows, committed by the writer process: the
        appends' outcomes (the hands are answered here), or None when the writer was lost
        and every item has been answered here instead.

        A lost writer (killed, crashed) is dead before the log is read: the rows found there
        as sent were stored; the others were not, and go once more to a new writer.
        """
        now = sqlite_log.sqlite_time(stamp)
        todo, hands = appends, jobs
        for _attempt in range(2):
            try:
                found = await self.writer.commit(
                    sqlite_rows([p.row for p in todo]), now, [j.hand for j in hands if j.hand]
                )
            except WriterRefused as exc:
                if todo is not appends or hands is not jobs:
                    for p in todo:
                        fail(p, StoreError(f"the append was not stored: {exc}"))
                    for j in hands:
                        fail(j, StoreError(f"the hand was not stored: {exc}"))
                    return None
                if exc.kind == "integrity":  # the queue retries item by item
                    raise IntegrityError(sqlite_log.INSERT_ACTION, None, exc) from exc
                raise StoreError(f"the appends were not stored: {exc}") from exc
            except WriterLost as exc:
                log.warning(
                    "SQLite writer lost with %d appends and %d hands in flight: %s",
                    len(todo),
                    len(hands),
                    exc,
                )
                todo = await self._settle_from_log(todo, answers)
                hands = await self._settle_hands(hands)
                if not todo and not hands:
                    return None
                continue
            outcomes = [refusal(o) for o in found]
            for j in hands:
                Answers.done(j)
            if todo is appends and hands is jobs:
                return outcomes
            answers.answer(todo, outcomes)
            return None
        lost = StorageUnavailable("the SQLite writer stopped; the action was not stored")
        for p in todo:
            fail(p, lost)
        for j in hands:
            fail(j, lost)
        return None

    async def _settle_hands(self, jobs: list[Job]) -> list[Job]:
        """As `_settle_from_log`, for finished hands' rows: one found as sent was stored."""
        missing: list[Job] = []
        if not jobs:
            return missing
        try:
            async with self.access.read() as conn:
                for job in jobs:
                    assert job.hand is not None
                    game_id, number, summary = job.hand
                    query = select(HANDS.c.summary).where(
                        HANDS.c.game_id == game_id, HANDS.c.hand_number == number
                    )
                    found = (await conn.execute(query)).first()
                    if found is None:
                        missing.append(job)
                    elif found[0] == json.loads(json.dumps(summary)):
                        Answers.done(job)
                    else:
                        fail(job, StoreError(f"game {game_id}: hand {number} already stored"))
        except Exception as exc:
            unread = StorageUnavailable(f"the log could not be read: {exc}")
            for job in jobs:
                fail(job, as_unavailable(exc) or unread)
            return []
        return missing

    async def _settle_from_log(self, appends: list[Pending], answers: Answers) -> list[Pending]:
        """After the writer was lost mid-batch (and is dead): a row found in the log as sent
        was stored, and its caller succeeds; the rows not found are returned."""
        missing: list[Pending] = []
        try:
            async with self.access.read() as conn:
                for p in appends:
                    query = select(ACTIONS.c.seat, ACTIONS.c.action).where(
                        ACTIONS.c.game_id == p.row.game_id, ACTIONS.c.seq == p.row.seq
                    )
                    found = (await conn.execute(query)).first()
                    if found is None:
                        missing.append(p)
                    elif tuple(found) == (p.row.seat, p.row.action):
                        answers.stored(p)
                    else:
                        fail(p, SequenceError(f"game {p.row.game_id}: seq {p.row.seq} was taken"))
        except Exception as exc:
            unread = StorageUnavailable(f"the log could not be read: {exc}")
            failure = as_unavailable(exc) or unread
            for p in appends:
                fail(p, failure)
            return []
        return missing

    async def close(self) -> None:
        await self.writer.close()
        await super().close()
