"""The commit path through SQLAlchemy's engine alone: an in-memory SQLite database (the
tests', and one that lives and dies with its store). Appends are group-committed in a
transaction of the engine's; every other write runs at once in one of its own."""

from __future__ import annotations

from datetime import datetime

from . import sqlite_log
from .access import Access
from .appends import append_rows
from .group_commit import Answers, Committed, Job, Pending
from .owner_writes import OwnerWrite


class EnginePath:
    def __init__(self, access: Access) -> None:
        self.access = access

    def queues(self, hand: sqlite_log.Hand | None, owner: OwnerWrite | None) -> bool:
        return False

    async def commit(
        self, appends: list[Pending], jobs: list[Job], stamp: datetime, answers: Answers
    ) -> Committed | None:
        assert not jobs  # `queues`: none are
        if not appends:
            return [], []
        rows = [p.row for p in appends]
        fences = [p.fence for p in appends]
        async with self.access.write() as conn:
            outcomes = await conn.run_sync(append_rows, rows, stamp, fences)
        return outcomes, []

    def forget(self) -> None:
        pass

    def started(self, game_id: int) -> None:
        pass

    async def close(self) -> None:
        pass
