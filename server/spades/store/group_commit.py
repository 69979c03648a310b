"""The group commit: appends and other writes wait in one queue; one writer task takes
everything queued and hands it to the store's commit path as one batch, then answers
each caller. A caller therefore returns only once its write is durable ("stored before
broadcast" holds), while many rooms writing at once share one commit.

The commit path (`CommitPath`) is chosen once, when the store opens; this module knows
nothing of databases.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from . import sqlite_log
from .failures import as_unavailable
from .owner_writes import OwnerWrite
from .protocol import ActionRow, SequenceError, StoreError

# Told after each group commit: how many actions it stored and how long it took (seconds).
CommitHook = Callable[[int, float], None]
# Bound on one group commit, so a flood of appends still commits in steady slices.
MAX_BATCH = 1000


class Pending:
    """An append waiting for its group commit (a plain class: one is made per action)."""

    __slots__ = ("fence", "future", "row")

    def __init__(
        self, row: ActionRow, future: asyncio.Future[None], fence: int | None = None
    ) -> None:
        self.row = row
        self.future = future
        self.fence = fence


@dataclass
class Job:
    """Any other write (rooms, seats, games, hands, chat), run in the next group commit."""

    fn: Callable[[Connection], Any]
    future: asyncio.Future[Any]
    # A finished hand's row, which a commit path may insert its own way instead of `fn`.
    hand: sqlite_log.Hand | None = None
    # `fn` as one statement, which a commit path may run its own way (unfenced only).
    owner: OwnerWrite | None = None


# Per append its refusal (None: stored); per other write (True, its value) or (False, error).
Committed = tuple[list[StoreError | None], list[tuple[bool, Any]]]


class CommitPath(Protocol):
    """How a batch reaches the database (one of the `commit_*` modules)."""

    def queues(self, hand: sqlite_log.Hand | None, owner: OwnerWrite | None) -> bool:
        """Whether a write (a finished hand's row, an owner write, or neither) joins the
        group commit; if not, the store runs it in a transaction of its own."""
        ...

    async def commit(
        self, appends: list[Pending], jobs: list[Job], stamp: datetime, answers: Answers
    ) -> Committed | None:
        """Commit one batch, in order. None: every item was answered here, through
        `answers` (the batch could not be committed as one). Raises IntegrityError when
        another writer took a row of the batch (the queue retries it item by item); any
        other exception fails the whole batch."""
        ...

    def forget(self) -> None:
        """A commit failed: forget what the path remembers of the logs."""
        ...

    def started(self, game_id: int) -> None:
        """Game `game_id` was just created: its log is empty."""
        ...

    async def close(self) -> None: ...


class Answers:
    """Settles the callers' futures, counting the appends stored."""

    __slots__ = ("appended",)

    def __init__(self) -> None:
        self.appended = 0

    def stored(self, p: Pending) -> None:
        if not p.future.done():
            self.appended += 1
            p.future.set_result(None)

    def answer(self, appends: list[Pending], outcomes: list[StoreError | None]) -> None:
        """Each append's caller: stored, or its refusal."""
        for p, outcome in zip(appends, outcomes, strict=True):
            if outcome is not None:
                fail(p, outcome)
            elif not p.future.done():
                self.appended += 1
                p.future.set_result(None)

    @staticmethod
    def done(job: Job, value: Any = None) -> None:
        if not job.future.done():
            job.future.set_result(value)


def fail(item: Pending | Job, exc: BaseException) -> None:
    if not item.future.done():
        item.future.set_exception(exc)


class GroupCommit:
    """The queue and its writer task."""

    def __init__(
        self,
        path: CommitPath,
        clock: Callable[[], datetime],
        on_commit: CommitHook | None,
        commit_interval: float,
    ) -> None:
        self.path = path
        self.clock = clock
        # An append waits in the queue, then for its group commit: this hook times the
        # commit alone (metrics), so the two parts of an append's latency can be told apart.
        self.on_commit = on_commit
        self.max_batch = MAX_BATCH  # 1 turns group commit off (one commit per append)
        # Under load, group commits start at most this often (seconds), so each gathers the
        # writes of that while: every commit has a fixed cost on the event loop and in the
        # database. A commit that follows a quiet spell starts at once, and so does one
        # after a commit of a single item (a room acting alone), so a lone action waits
        # for nothing.
        self.commit_interval = commit_interval
        self.answers = Answers()
        self.commits = 0
        self._last_commit = -math.inf
        self._last_batch = 0  # items in the last commit
        self._pending: list[Pending | Job] = []
        self._inflight: list[Pending | Job] = []
        self._wake: Wake | None = None
        self._writer: asyncio.Task[None] | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        """The running loop: the writer task's while it runs (on Python 3.11 each lookup of
        the running loop is a getpid() system call, and this is once per action)."""
        writer = self._writer
        if writer is not None and not writer.done():
            loop = writer.get_loop()
            if not loop.is_closed():
                return loop
        return asyncio.get_running_loop()

    def enqueue(self, item: Pending | Job, loop: asyncio.AbstractEventLoop) -> None:
        self._pending.append(item)
        if self._writer is None or self._writer.done() or self._writer.get_loop() is not loop:
            self._wake = Wake(loop)
            self._writer = loop.create_task(self._write_batches(), name="spades-store-writer")
        assert self._wake is not None
        self._wake.set()

    async def flush(self) -> None:
        """Wait until every queued write has been committed or refused."""
        while self._pending or self._inflight:
            futures = [p.future for p in (*self._inflight, *self._pending)]
            await asyncio.gather(*futures, return_exceptions=True)

    async def stop(self) -> None:
        """Stop the writer task (after `flush`)."""
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer

    async def _write_batches(self) -> None:
        wake = self._wake
        assert wake is not None
        while True:
            await wake.wait()
            while self._pending:
                # Held only while busy: by a room acting alone (each commit carries its one
                # action) nothing is gained, and it would wait for every action.
                if (
                    self.commit_interval > 0
                    and len(self._pending) < self.max_batch
                    and (self._last_batch > 1 or len(self._pending) > 1)
                ):
                    wait = self._last_commit + self.commit_interval - time.monotonic()
                    if wait > 0:
                        await wake.sleep(wait)
                self._last_commit = time.monotonic()
                batch = self._pending[: self.max_batch]
                del self._pending[: self.max_batch]
                self._last_batch = len(batch)
                self._inflight = batch
                try:
                    await self._commit_batch(batch)
                finally:
                    self._inflight = []

    async def _commit_batch(self, batch: list[Pending | Job]) -> None:
        appends = [p for p in batch if isinstance(p, Pending)]
        jobs = [j for j in batch if isinstance(j, Job)]
        started = time.perf_counter()
        try:
            committed = await self.path.commit(appends, jobs, self.clock(), self.answers)
        except IntegrityError as exc:
            self.path.forget()
            # Another process wrote to one of these logs (or deleted the game) between the
            # check and the insert: retry one by one so only the losers fail.
            if len(batch) > 1:
                for item in batch:
                    await self._commit_batch([item])
            else:
                for p in appends:
                    fail(p, SequenceError(f"game {p.row.game_id}: seq {p.row.seq} was taken"))
                for job in jobs:  # a lone job is answered too, never left waiting
                    fail(job, exc)
            return
        except Exception as exc:
            self.path.forget()  # a lost commit may have stored the rows or not
            failure = as_unavailable(exc) or exc
            for item in batch:
                fail(item, failure)
            return
        if committed is None:
            return
        outcomes, results = committed
        self.commits += 1
        if self.on_commit is not None:
            self.on_commit(len(appends), time.perf_counter() - started)
        self.answers.answer(appends, outcomes)
        for job, (ok, value) in zip(jobs, results, strict=True):
            if job.future.done():
                continue
            if ok:
                job.future.set_result(value)
            else:
                job.future.set_exception(value)


class Wake:
    """asyncio.Event for the writer task, bound to its loop once (Event.wait looks the
    running loop up on every wait), with a sleep on the same loop."""

    __slots__ = ("_loop", "_set", "_waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._set = False
        self._waiter: asyncio.Future[None] | None = None

    def set(self) -> None:
        self._set = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self) -> None:
        """Until set (at once when it was set since the last wait); clears it."""
        while not self._set:
            waiter = self._waiter = self._loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        self._set = False

    async def sleep(self, seconds: float) -> None:
        done: asyncio.Future[None] = self._loop.create_future()
        timer = self._loop.call_later(seconds, _settle, done)
        try:
            await done
        finally:
            timer.cancel()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
