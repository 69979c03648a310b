"""The commit paths of PostgreSQL. Appends that follow the sequence numbers this store
remembers are inserted as one atomic statement (`pg_log.INSERT_ACTIONS`, or
`INSERT_FENCED_ACTIONS` for a cluster owner's rows) without reading the log first and past
SQLAlchemy's pool and statement machinery: by the PostgreSQL writer process
(`PgWriterPath`, `pg_log.py` says why) or on a driver connection of the server's own
(`PgInlinePath`, `SPADES_PG_WRITER=inline`). Any other batch of appends takes the checked
path through SQLAlchemy. Finished hands and unfenced owner writes join the group commit on
the driver connection; every other write runs at once in a transaction of its own."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime
from typing import Any

import asyncpg
import orjson
from sqlalchemy.engine import URL

from . import pg_log, sqlite_log
from .access import OPERATION_TIMEOUT, Access
from .appends import append_rows
from .db import COMMAND_TIMEOUT
from .group_commit import Answers, Committed, Job, Pending
from .owner_writes import OwnerWrite
from .protocol import ActionRow, NotFound, StorageUnavailable, StoreError
from .tables import utc
from .writer_process import WriterLost, WriterProcess, WriterRefused

_INSERT_HANDS = (
    "INSERT INTO hands (game_id, hand_number, bids, tricks, points, bags, summary) "
    "SELECT * FROM unnest($1::integer[], $2::integer[], $3::json[], $4::json[], "
    "$5::json[], $6::json[], $7::json[])"
)
# The driver connection is lost, or the outcome of its statement is in doubt.
_LOST = (asyncpg.PostgresConnectionError, asyncpg.InterfaceError, OSError, TimeoutError)
# Games whose last sequence number is remembered, at most (a forgotten one is read once).
_REMEMBERED = 50_000


def driver_dsn(url: URL) -> str:
    """asyncpg's address of a PostgreSQL URL (SQLAlchemy's names a driver asyncpg does not
    know)."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


class PgPath:
    """What both PostgreSQL paths share; `insert_followers` is each one's own."""

    def __init__(self, access: Access) -> None:
        self.access = access
        # Each game's last sequence number this store committed, so a batch that follows
        # them skips reading the log.
        self.last_seq: dict[int, int] = {}
        self._driver: Any = None  # asyncpg's connection
        self._driver_loop: asyncio.AbstractEventLoop | None = None

    def queues(self, hand: sqlite_log.Hand | None, owner: OwnerWrite | None) -> bool:
        return hand is not None or owner is not None

    def forget(self) -> None:
        self.last_seq.clear()

    def started(self, game_id: int) -> None:
        self.last_seq[game_id] = 0  # its first append takes the fast path

    async def commit(
        self, appends: list[Pending], jobs: list[Job], stamp: datetime, answers: Answers
    ) -> Committed | None:
        outcomes: list[StoreError | None] = []
        if appends:
            rows = [p.row for p in appends]
            fences = [p.fence for p in appends]
            if not (self._follows(rows, fences) and await self._fast(rows, stamp, fences)):
                async with self.access.write() as conn:
                    outcomes = await conn.run_sync(append_rows, rows, stamp, fences)
                self._remember(rows, outcomes)
            else:
                outcomes = [None] * len(rows)
        # The hands and single statements after the appends, each answered on its own.
        return outcomes, (await self._jobs(jobs) if jobs else [])

    async def insert_followers(
        self, rows: list[ActionRow], stamp: datetime, fences: list[int | None] | None
    ) -> int | None:
        """The rows inserted by one atomic statement, or None when the primary key refused
        them (nothing stored)."""
        raise NotImplementedError

    def _follows(self, rows: list[ActionRow], fences: list[int | None]) -> bool:
        """Whether every row is the next of its game after the counts this store remembers,
        and the rows are all fenced (a cluster owner's) or all not."""
        fenced = fences[0] is not None
        if any((f is not None) is not fenced for f in fences):
            return False
        last = self.last_seq
        seen: dict[int, int] = {}
        for r in rows:
            before = seen.get(r.game_id, last.get(r.game_id))
            if before is None or r.seq != before + 1:
                return False
            seen[r.game_id] = r.seq
        return True

    def _remember(self, rows: list[ActionRow], outcomes: list[StoreError | None]) -> None:
        if len(self.last_seq) > _REMEMBERED:
            self.last_seq.clear()
        for r, outcome in zip(rows, outcomes, strict=True):
            if outcome is None and r.seq > self.last_seq.get(r.game_id, 0):
                self.last_seq[r.game_id] = r.seq

    async def _fast(self, rows: list[ActionRow], stamp: datetime, fences: list[int | None]) -> bool:
        """False sends the batch down the checked path: the primary key (game_id, seq)
        refused a number another writer took (nothing is stored, and the counts are
        forgotten), or a fence did not match its room's (nothing is stored; the checked
        path tells which rows are fenced out, or raises the room's fence)."""
        given = fences if fences[0] is not None else None  # (`_follows`: all or none)
        count = await self.insert_followers(rows, stamp, given)
        if count is None:
            self.last_seq.clear()
            return False
        if count != len(rows):
            return False
        self._remember(rows, [None] * len(rows))
        return True

    async def _jobs(self, jobs: list[Job]) -> list[tuple[bool, Any]]:
        """The batch's hands in one statement, then each owner write in order. Returns each
        job's (ok, result or exception); never raises."""
        hands = [j for j in jobs if j.hand is not None]
        done = dict(zip(map(id, hands), await self._insert_hands(hands), strict=True))
        results = []
        for job in jobs:
            if job.hand is not None:
                results.append(done[id(job)])
            else:
                assert job.owner is not None  # `queues`: only these
                results.append(await self._statement(job.owner))
        return results

    async def _statement(self, write: OwnerWrite) -> tuple[bool, Any]:
        try:
            driver = await self.driver()
            if write.returning:
                return True, await driver.fetchval(write.sql, *write.args)
            status = await driver.execute(write.sql, *write.args)
        except asyncpg.IntegrityConstraintViolationError as exc:
            if write.refused is not None:
                return False, NotFound(write.refused)
            return False, StoreError(f"the write was refused: {exc}")
        except _LOST as exc:
            return False, self.driver_lost(exc)
        except Exception as exc:  # the statement's own refusal: this write's, not the batch's
            return False, StoreError(f"the write was not stored: {exc!r}")
        if write.missing is not None and str(status).endswith(" 0"):  # e.g. "UPDATE 0"
            return False, NotFound(write.missing)
        return True, None

    async def _insert_hands(self, jobs: list[Job]) -> list[tuple[bool, Any]]:
        """Finished hands' rows (unfenced) in one statement on the driver connection. A
        batch refused as a whole (a hand already stored, or of no game) is retried hand by
        hand, so only the bad ones fail. Returns each job's (ok, result or exception);
        never raises."""
        columns: tuple[list[Any], ...] = ([], [], [], [], [], [], [])
        encoded: list[Job] = []
        results: dict[int, tuple[bool, Any]] = {}  # by id() of the job
        for job in jobs:
            assert job.hand is not None
            game_id, number, summary = job.hand
            try:
                texts = [
                    orjson.dumps(summary.get(k)).decode()
                    for k in ("bids", "tricks", "points", "bags")
                ]
                texts.append(orjson.dumps(summary).decode())
            except (TypeError, AttributeError) as exc:  # JSON cannot hold it: refused alone
                results[id(job)] = (False, StoreError(f"hand {number} cannot be stored: {exc}"))
                continue
            encoded.append(job)
            columns[0].append(game_id)
            columns[1].append(number)
            for column, value in zip(columns[2:], texts, strict=True):
                column.append(value)
        if encoded:
            outcomes = await self._insert_encoded_hands(encoded, columns)
            for job, outcome in zip(encoded, outcomes, strict=True):
                results[id(job)] = outcome
        return [results[id(job)] for job in jobs]

    async def _insert_encoded_hands(
        self, encoded: list[Job], columns: tuple[list[Any], ...]
    ) -> list[tuple[bool, Any]]:
        try:
            await (await self.driver()).execute(_INSERT_HANDS, *columns)
        except asyncpg.IntegrityConstraintViolationError:
            if len(encoded) > 1:
                return [(await self._insert_hands([job]))[0] for job in encoded]
            game_id, number = columns[0][0], columns[1][0]
            refusal = StoreError(f"game {game_id}: no such game, or hand {number} already stored")
            return [(False, refusal)]
        except _LOST as exc:
            return [(False, self.driver_lost(exc))] * len(encoded)
        except Exception as exc:  # any other refusal is the batch's hands', not more
            return [(False, StoreError(f"the hand was not stored: {exc!r}"))] * len(encoded)
        return [(True, None)] * len(encoded)

    async def driver(self) -> Any:
        """asyncpg's own connection for the hot paths, (re)connected when needed."""
        loop = asyncio.get_running_loop()
        if self._driver is not None and (self._driver.is_closed() or self._driver_loop is not loop):
            with contextlib.suppress(Exception):  # closed, or of a loop now gone
                self._driver.terminate()
            self._driver = None
        if self._driver is None:
            async with asyncio.timeout(OPERATION_TIMEOUT):
                self._driver = await asyncpg.connect(
                    driver_dsn(self.access.engine.url),
                    timeout=10,
                    command_timeout=COMMAND_TIMEOUT,
                )
            self._driver_loop = loop
        return self._driver

    def driver_lost(self, exc: BaseException) -> StorageUnavailable:
        driver, self._driver = self._driver, None
        if driver is not None:  # lost or in doubt: the next batch connects anew
            with contextlib.suppress(Exception):
                driver.terminate()
        return StorageUnavailable(f"the database is unavailable: {exc!r}")

    async def close(self) -> None:
        if self._driver is not None:
            driver, self._driver = self._driver, None
            with contextlib.suppress(Exception):
                await driver.close(timeout=5)


class PgInlinePath(PgPath):
    """The fast statement on the server's own driver connection."""

    async def insert_followers(
        self, rows: list[ActionRow], stamp: datetime, fences: list[int | None] | None
    ) -> int | None:
        columns: tuple[list[Any], ...] = ([], [], [], [], [])
        for r in rows:
            columns[0].append(r.game_id)
            columns[1].append(r.seq)
            columns[2].append(r.seat)
            columns[3].append(orjson.dumps(r.action).decode())
            columns[4].append(utc(r.at or stamp))
        try:
            # The connection's command_timeout bounds the statement (no asyncio.timeout per
            # batch: it costs two lookups of the running loop and a timer).
            driver = await self.driver()
            if fences is None:
                status = await driver.execute(pg_log.INSERT_ACTIONS, *columns)
            else:
                status = await driver.execute(pg_log.INSERT_FENCED_ACTIONS, *columns, fences)
        except asyncpg.IntegrityConstraintViolationError:
            return None
        except _LOST as exc:
            raise self.driver_lost(exc) from exc
        return pg_log.inserted(status)


class PgWriterPath(PgPath):
    """The fast statement by the PostgreSQL writer process: the same statement and the
    same answers, at the cost of one pipe write and read here."""

    def __init__(self, access: Access) -> None:
        super().__init__(access)
        self.writer = WriterProcess(
            pg_log.__file__,
            env={
                pg_log.DSN_VARIABLE: driver_dsn(access.engine.url),
                pg_log.TIMEOUT_VARIABLE: str(COMMAND_TIMEOUT),
            },
            name="PostgreSQL writer",
        )

    async def insert_followers(
        self, rows: list[ActionRow], stamp: datetime, fences: list[int | None] | None
    ) -> int | None:
        sent = [(r.game_id, r.seq, r.seat, r.action, r.at and utc(r.at).isoformat()) for r in rows]
        now = utc(stamp).isoformat()
        request = (now, sent) if fences is None else (now, sent, fences)
        try:
            count = await self.writer.request(request)
        except WriterRefused as exc:
            if exc.kind == "integrity":
                return None
            self.last_seq.clear()
            if exc.kind == "lost":  # in doubt, as a lost connection of our own
                raise StorageUnavailable(f"the database is unavailable: {exc}") from exc
            raise StoreError(f"the appends were not stored: {exc}") from exc
        except WriterLost as exc:  # in doubt: the room finds out from the log (`Match.act`)
            self.last_seq.clear()
            raise StorageUnavailable(f"the PostgreSQL writer stopped: {exc}") from exc
        return int(count)

    async def close(self) -> None:
        await self.writer.close()
        await super().close()
