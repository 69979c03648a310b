"""The SQL store (SQLAlchemy 2 async): SQLite by default, PostgreSQL through asyncpg.

Appends are group-committed: `append_action` queues the row and waits; one writer task
takes everything queued, checks every sequence number against the log, inserts the good
rows in one transaction and commits, and only then wakes the callers. A caller therefore
returns only once its action is durable ("stored before broadcast" holds), while many rooms
appending at once share one commit (one fsync on SQLite) instead of paying one each.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import marshal
import math
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import asyncpg
import orjson
from sqlalchemy import Table, bindparam, delete, func, insert, select, text, update
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from spades.engine import Rules
from spades.engine.game import RECORD_FORMAT

from . import pg_log, sqlite_log
from .db import (
    COMMAND_TIMEOUT,
    create_engine,
    create_sync_sqlite_engine,
    is_readonly_error,
    is_sqlite,
)
from .models import ActionModel, ChatModel, GameModel, HandModel, RoomModel, SeatModel, metadata
from .protocol import (
    ActionRow,
    CodeTaken,
    FencedOut,
    FinishedGame,
    GameInProgress,
    GameRow,
    HandRow,
    NotFound,
    RoomRow,
    RoomStatus,
    SeatRow,
    SequenceError,
    StorageUnavailable,
    Store,
    StoredRoom,
    StoreError,
)
from .writer_process import WriterLost, WriterProcess, WriterRefused

Clock = Callable[[], datetime]
# Told after each group commit: how many actions it stored and how long it took (seconds).
CommitHook = Callable[[int, float], None]

ROOMS = cast(Table, RoomModel.__table__)
SEATS = cast(Table, SeatModel.__table__)
GAMES = cast(Table, GameModel.__table__)
ACTIONS = cast(Table, ActionModel.__table__)
HANDS = cast(Table, HandModel.__table__)
CHAT = cast(Table, ChatModel.__table__)

log = logging.getLogger(__name__)

UNFINISHED: tuple[RoomStatus, ...] = ("open", "playing")
# Bound on one group commit, so a flood of appends still commits in steady slices.
MAX_BATCH = 1000
# Seconds one database operation (a transaction or a read, the wait for SQLite's write turn
# included) may take before it fails as StorageUnavailable, so no caller waits forever. Far
# above any real operation (SQLite's busy timeout and PostgreSQL's statement timeout are 10
# s); it is there for a wait nothing will end, such as this: the garbage collector running
# inside one of SQLAlchemy's greenlets finalizes a connection leaked elsewhere (another
# engine, another event loop) and, seeing a greenlet, awaits that connection's close in
# ours; if its driver thread is gone (aiosqlite's dies when its loop was closed under it),
# that close never ends and would take this store's writer (and every room) with it.
OPERATION_TIMEOUT = 60.0


def utc_now() -> datetime:
    return datetime.now(UTC)


async def open_store(
    url: str,
    *,
    clock: Clock | None = None,
    on_commit: CommitHook | None = None,
    writer_process: bool = True,
    commit_interval: float = 0.0,
    **engine_kwargs: Any,
) -> SqlStore:
    """Open the SQL store at `url` (the schema must be migrated: see `upgrade`).

    An in-memory SQLite database (`sqlite+aiosqlite://`) lives and dies with this store,
    so it gets its tables here instead of from the migrations.
    """
    engine = create_engine(url, **engine_kwargs)
    if is_sqlite(engine.url) and not _on_disk_sqlite(engine.url):
        async with engine.begin() as conn:
            await conn.run_sync(metadata.create_all)
    store = SqlStore(
        engine,
        clock=clock,
        on_commit=on_commit,
        writer_process=writer_process,
        commit_interval=commit_interval,
    )
    if not await store.ping():
        await engine.dispose()
        raise StoreError(f"database unreachable: {engine.url!r}")
    return store


def as_store(store: SqlStore) -> Store:
    """SqlStore is a Store (mypy checks this function)."""
    return store


class _Pending:
    """An append waiting for its group commit (a plain class: one is made per action)."""

    __slots__ = ("fence", "future", "row")

    def __init__(
        self, row: ActionRow, future: asyncio.Future[None], fence: int | None = None
    ) -> None:
        self.row = row
        self.future = future
        self.fence = fence


@dataclass
class _Job:
    """Any other write (rooms, seats, games, hands, chat), run in the next group commit."""

    fn: Callable[[Connection], Any]
    future: asyncio.Future[Any]
    # A finished hand's row, which the SQLite writer process can insert instead of `fn`.
    hand: sqlite_log.Hand | None = None
    # The same write as one statement for PostgreSQL's driver connection (unfenced only).
    pg: _PgWrite | None = None


@dataclass(frozen=True)
class _PgWrite:
    """A write that PostgreSQL runs as one statement on asyncpg's own connection, in the
    group commit: through SQLAlchemy each such write cost the server about 1.1 ms of CPU
    (a pool checkout with its pre-ping, BEGIN, the statement, COMMIT), this about 0.2."""

    sql: str
    args: tuple[Any, ...]
    returning: bool = False  # the statement returns one value (the result), else nothing
    missing: str | None = None  # NotFound's message when the statement matched no row
    refused: str | None = None  # NotFound's message for an integrity violation


class SqlStore:
    """`Store` on SQLAlchemy Core statements over the tables in `models`."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        clock: Clock | None = None,
        on_commit: CommitHook | None = None,
        writer_process: bool = True,
        commit_interval: float = 0.0,
    ) -> None:
        self.engine = engine
        self.clock: Clock = clock or utc_now
        # An append waits in the queue, then for its group commit: this hook times the
        # commit alone (metrics), so the two parts of an append's latency can be told apart.
        self.on_commit = on_commit
        self.sqlite = is_sqlite(engine.url)
        # SQLite has one writer at a time; taking turns here avoids busy waits and
        # lock-upgrade failures between this process's own connections.
        self._write_lock = asyncio.Lock() if self.sqlite else None
        self._pending: list[_Pending | _Job] = []
        self.max_batch = MAX_BATCH  # 1 turns group commit off (one commit per append)
        # Under load, group commits start at most this often (seconds), so each gathers the
        # appends of that while. Every commit has a fixed cost on the event loop and in the
        # database (a round trip, a transaction, an fsync): at 1,000 actions a second, one
        # commit per action was a tenth of the server's CPU. A commit that follows a quiet
        # spell starts at once, and so does one after a commit of a single item (a room
        # acting alone), so a lone action waits for nothing.
        self.commit_interval = commit_interval
        self._last_commit = -math.inf
        self._last_batch = 0  # items in the last commit
        self._appender = _SqliteAppender(engine.url) if _on_disk_sqlite(engine.url) else None
        # Batches of appends alone (the hot path) go to a writer process; batches with other
        # writes, or fenced appends, run in the appender thread (sqlite_log.py says why).
        self._writer_process = (
            WriterProcess.sqlite(str(engine.url.database))
            if self._appender is not None and writer_process
            else None
        )
        # PostgreSQL, unfenced appends: each game's last sequence number this store
        # committed, so a batch that follows them skips reading the log (`_insert_followers`).
        self._last_seq: dict[int, int] = {}
        self._postgres = engine.url.get_backend_name() == "postgresql"
        # ...and those batches go to a writer process of their own (pg_log.py says why).
        self._pg_writer = (
            WriterProcess(
                pg_log.__file__,
                env={
                    pg_log.DSN_VARIABLE: _driver_dsn(engine.url),
                    pg_log.TIMEOUT_VARIABLE: str(COMMAND_TIMEOUT),
                },
                name="PostgreSQL writer",
            )
            if self._postgres and writer_process
            else None
        )
        self._driver: Any = None  # asyncpg's connection for `_insert_followers`
        self._driver_loop: asyncio.AbstractEventLoop | None = None
        self._inflight: list[_Pending | _Job] = []
        self._wake: _Wake | None = None
        self._writer: asyncio.Task[None] | None = None
        self._closed = False
        # Figures for benchmarks and metrics.
        self.commits = 0
        self.appended = 0

    # --- plumbing --------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        if self._closed:
            raise StoreError("the store is closed")
        with _unavailable_as_store_error():
            async with asyncio.timeout(OPERATION_TIMEOUT):
                if self._write_lock is None:
                    async with self.engine.begin() as conn:
                        yield conn
                    return
                async with self._write_lock, self.engine.begin() as conn:
                    yield conn

    @contextlib.asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        if self._closed:
            raise StoreError("the store is closed")
        with _unavailable_as_store_error():
            async with asyncio.timeout(OPERATION_TIMEOUT), self.engine.connect() as conn:
                yield conn

    async def _run_write(
        self,
        fn: Callable[[Connection], Any],
        hand: sqlite_log.Hand | None = None,
        pg: _PgWrite | None = None,
    ) -> Any:
        """Run `fn` in a write transaction; durable when this returns.

        On an SQLite file every write joins the group commit of the appends, so creating a
        room costs a share of one fsync instead of a whole one behind every batch of moves.
        On PostgreSQL a finished hand (`hand`) or a write given as one statement (`pg`)
        joins it too, on asyncpg's own connection; any other write runs at once.
        """
        if self._closed:
            raise StoreError("the store is closed")
        if self._appender is None and not (self._postgres and (hand is not None or pg is not None)):
            async with self._write() as conn:
                return await conn.run_sync(fn)
        loop = self._loop()
        job = _Job(fn, loop.create_future(), hand, pg)
        self._enqueue(job, loop)
        return await job.future

    def _loop(self) -> asyncio.AbstractEventLoop:
        """The running loop: the writer task's while it runs (on Python 3.11 each lookup of
        the running loop is a getpid() system call, and this is once per action)."""
        writer = self._writer
        if writer is not None and not writer.done():
            loop = writer.get_loop()
            if not loop.is_closed():
                return loop
        return asyncio.get_running_loop()

    def _enqueue(self, item: _Pending | _Job, loop: asyncio.AbstractEventLoop) -> None:
        self._pending.append(item)
        if self._writer is None or self._writer.done() or self._writer.get_loop() is not loop:
            self._wake = _Wake(loop)
            self._writer = loop.create_task(self._write_batches(), name="spades-store-writer")
        assert self._wake is not None
        self._wake.set()

    # --- rooms and seats ---------------------------------------------------------------

    async def create_room(
        self, room: RoomRow, seats: list[SeatRow], *, fence: int | None = None
    ) -> None:
        """Raises CodeTaken (nothing stored) when the room's id or code is already used:
        the database decides, so two processes can never hand out the same code."""
        now = self.clock()

        def write(conn: Connection) -> None:
            conn.execute(
                insert(ROOMS).values(
                    id=room.id,
                    code=room.code,
                    host_seat=room.host_seat,
                    settings=room.settings,
                    status=room.status,
                    created_at=room.created_at or now,
                    updated_at=room.updated_at or room.created_at or now,
                    fence=fence or 0,
                )
            )
            if seats:
                conn.execute(insert(SEATS), [_seat_values(s, room.id) for s in seats])

        try:
            await self._run_write(write)
        except IntegrityError as exc:
            raise CodeTaken(f"room {room.id!r} or code {room.code!r} already exists") from exc

    async def update_room(
        self,
        room_id: str,
        *,
        status: RoomStatus | None = None,
        settings: dict[str, Any] | None = None,
        host_seat: int | None = None,
        fence: int | None = None,
    ) -> None:
        values: dict[str, Any] = {"updated_at": self.clock()}
        if status is not None:
            values["status"] = status
        if settings is not None:
            values["settings"] = settings
        if host_seat is not None:
            values["host_seat"] = host_seat

        def write(conn: Connection) -> None:
            _fence_room(conn, room_id, fence)
            result = conn.execute(update(ROOMS).where(ROOMS.c.id == room_id).values(values))
            if result.rowcount == 0:
                raise NotFound(f"no room {room_id!r}")

        pg = None
        if fence is None:
            sets, args = [], [room_id]
            for column, value in values.items():
                if column == "updated_at":
                    value = _utc(value)
                elif column == "settings":
                    value = orjson.dumps(value).decode()
                args.append(value)
                cast_to = "::json" if column == "settings" else ""
                sets.append(f"{column} = ${len(args)}{cast_to}")
            pg = _PgWrite(
                f"UPDATE rooms SET {', '.join(sets)} WHERE id = $1",
                tuple(args),
                missing=f"no room {room_id!r}",
            )
        await self._run_write(write, pg=pg)

    async def set_seat(self, seat: SeatRow, *, fence: int | None = None) -> None:
        now = self.clock()

        def write(conn: Connection) -> None:
            _fence_room(conn, seat.room_id, fence)
            conn.execute(
                delete(SEATS).where(SEATS.c.room_id == seat.room_id, SEATS.c.seat == seat.seat)
            )
            conn.execute(insert(SEATS).values(_seat_values(seat, seat.room_id)))
            conn.execute(update(ROOMS).where(ROOMS.c.id == seat.room_id).values(updated_at=now))

        try:
            await self._run_write(write)
        except IntegrityError as exc:
            raise NotFound(f"no room {seat.room_id!r} (or seat {seat.seat} out of range)") from exc

    async def get_room(self, room_id: str) -> StoredRoom:
        async with self._read() as conn:
            rooms = await self._load_rooms(conn, ROOMS.c.id == room_id)
        if not rooms:
            raise NotFound(f"no room {room_id!r}")
        return rooms[0]

    async def load_room(self, room_id: str) -> StoredRoom:
        """One room by id, any status, with its unfinished game and that game's log."""
        return await self.get_room(room_id)

    async def room_id_for_code(self, code: str) -> str:
        async with self._read() as conn:
            found = (
                await conn.execute(select(ROOMS.c.id).where(ROOMS.c.code == code))
            ).scalar_one_or_none()
        if found is None:
            raise NotFound(f"no room with code {code!r}")
        return str(found)

    async def claim_room(self, room_id: str, fence: int) -> None:
        """Make `fence` the room's fencing number: it must be higher than the room's (else
        FencedOut, with the room's number). An equal number is refused too: it is the
        current owner's, which a claim must fence out (after Redis lost its counters they
        start again from 1 and came back up to the owner's own number). 0 is the single
        process's number, which owns every room: nobody to fence.

        On PostgreSQL the UPDATE waits for a write of the old owner that holds the room's
        row, so once this returns no write with an older number can commit.
        """
        await self._run_write(lambda conn: _fence_room(conn, room_id, fence, claim=fence > 0))

    async def public_rooms(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Open public rooms with a free seat, oldest first, as RoomManager lists them
        (without `invite_url`, which depends on the address the server is reached at)."""
        async with self._read() as conn:
            rooms = [
                _room_row(r)
                for r in await conn.execute(
                    select(ROOMS)
                    .where(ROOMS.c.status == "open")
                    .order_by(ROOMS.c.created_at, ROOMS.c.id)
                )
            ]
            # `public` lives in the settings JSON: filtered here, the same on every database.
            rooms = [r for r in rooms if r.settings.get("public")]
            seats: dict[str, list[SeatRow]] = {r.id: [] for r in rooms}
            for chunk in _chunks([r.id for r in rooms]):
                for row in await conn.execute(
                    select(SEATS).where(SEATS.c.room_id.in_(chunk)).order_by(SEATS.c.seat)
                ):
                    seats[row.room_id].append(_seat_row(row))
        listed = []
        for room in rooms:
            entry = _lobby_entry(room, seats[room.id])
            if entry["open_seats"]:
                listed.append(entry)
                if limit is not None and len(listed) >= limit:
                    break
        return listed

    async def load_unfinished(self) -> list[StoredRoom]:
        async with self._read() as conn:
            return await self._load_rooms(conn, ROOMS.c.status.in_(UNFINISHED))

    async def _load_rooms(self, conn: AsyncConnection, where: Any) -> list[StoredRoom]:
        rooms = [
            _room_row(r)
            for r in await conn.execute(
                select(ROOMS).where(where).order_by(ROOMS.c.created_at, ROOMS.c.id)
            )
        ]
        if not rooms:
            return []
        ids = [r.id for r in rooms]
        loaded = {r.id: StoredRoom(room=r, seats=[]) for r in rooms}
        for chunk in _chunks(ids):
            for s in await conn.execute(
                select(SEATS).where(SEATS.c.room_id.in_(chunk)).order_by(SEATS.c.seat)
            ):
                loaded[s.room_id].seats.append(_seat_row(s))
            # The game in progress is the newest unfinished one of the room.
            for g in await conn.execute(
                select(GAMES)
                .where(GAMES.c.room_id.in_(chunk), GAMES.c.finished_at.is_(None))
                .order_by(GAMES.c.id)
            ):
                loaded[g.room_id].game = _game_row(g)
        games = {s.game.id: s for s in loaded.values() if s.game is not None}
        for chunk in _chunks(list(games)):
            for a in await conn.execute(
                select(ACTIONS)
                .where(ACTIONS.c.game_id.in_(chunk))
                .order_by(ACTIONS.c.game_id, ACTIONS.c.seq)
            ):
                games[a.game_id].actions.append(_action_row(a))
            for h in await conn.execute(
                select(HANDS.c.game_id, HANDS.c.hand_number)
                .where(HANDS.c.game_id.in_(chunk))
                .order_by(HANDS.c.game_id, HANDS.c.hand_number)
            ):
                games[h.game_id].hands.append(h.hand_number)
        return [loaded[i] for i in ids]

    # --- games -------------------------------------------------------------------------

    async def start_game(
        self,
        room_id: str,
        rules: dict[str, Any],
        first_dealer: int,
        seed: str,
        *,
        fence: int | None = None,
    ) -> int:
        if first_dealer not in range(4):
            raise StoreError(f"first dealer must be a seat 0..3, not {first_dealer!r}")
        now = self.clock()

        def write(conn: Connection) -> int:
            _fence_room(conn, room_id, fence)
            result = conn.execute(
                insert(GAMES)
                .values(
                    room_id=room_id,
                    rules=rules,
                    first_dealer=first_dealer,
                    seed=seed,
                    started_at=now,
                )
                .returning(GAMES.c.id)
            )
            return int(result.scalar_one())

        pg = None
        if fence is None:
            pg = _PgWrite(
                "INSERT INTO games (room_id, rules, first_dealer, seed, started_at) "
                "VALUES ($1, $2::json, $3, $4, $5) RETURNING id",
                (room_id, orjson.dumps(rules).decode(), first_dealer, seed, _utc(now)),
                returning=True,
                refused=f"no room {room_id!r}",
            )
        try:
            game_id = int(await self._run_write(write, pg=pg))
        except IntegrityError as exc:
            raise NotFound(f"no room {room_id!r}") from exc
        if self._postgres:  # a new game's log is empty: its first append takes the fast path
            self._last_seq[game_id] = 0
        return game_id

    def append_action(self, row: ActionRow, *, fence: int | None = None) -> Awaitable[None]:
        """Durable once awaited. Raises SequenceError unless row.seq is the next number,
        FencedOut (nothing stored) if the room has a newer owner than `fence`.

        Queued at once; the future it returns is settled by the group commit (no coroutine
        of its own: one fewer frame for every action to pass on its way through)."""
        loop = self._loop()
        future: asyncio.Future[None] = loop.create_future()
        if self._closed:
            future.set_exception(StoreError("the store is closed"))
            return future
        self._enqueue(_Pending(row, future, fence), loop)
        return future

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

    async def _commit_batch(self, batch: list[_Pending | _Job]) -> None:
        appends = [p for p in batch if isinstance(p, _Pending)]
        jobs = [j for j in batch if isinstance(j, _Job)]
        rows = [p.row for p in appends]
        fences = [p.fence for p in appends]
        stamp = self.clock()
        started = time.perf_counter()
        try:
            if self._appender is not None:
                assert self._write_lock is not None
                async with self._write_lock:
                    if (
                        self._writer_process is not None
                        and all(j.hand is not None for j in jobs)
                        and all(f is None for f in fences)
                    ):
                        found = await self._commit_in_writer(appends, stamp, jobs)
                        if found is None:
                            return  # the writer was lost; the rows were settled from the log
                        outcomes = found
                        results: list[tuple[bool, Any]] = [(True, None)] * len(jobs)
                    else:
                        loop = asyncio.get_running_loop()
                        outcomes, results = await loop.run_in_executor(
                            self._appender.executor,
                            self._appender.commit,
                            rows,
                            [j.fn for j in jobs],
                            stamp,
                            fences,
                        )
            else:  # only PostgreSQL's hands and single statements are queued (`_run_write`)
                if not rows:
                    outcomes = []
                elif (
                    self._postgres
                    and self._follows(rows, fences)
                    and await self._insert_followers(rows, stamp, fences)
                ):
                    outcomes = [None] * len(rows)
                else:
                    async with self._write() as conn:
                        outcomes = await conn.run_sync(_append_rows, rows, stamp, fences)
                    if self._postgres:  # the counts serve only the PostgreSQL fast path
                        self._remember(rows, outcomes)
                # PostgreSQL's finished hands and single statements (the only jobs queued
                # here, `_run_write`), after the appends, each answered on its own.
                results = await self._pg_jobs(jobs) if jobs else []
        except IntegrityError as exc:
            self._last_seq.clear()
            # Another process wrote to one of these logs (or deleted the game) between the
            # check and the insert: retry one by one so only the losers fail.
            if len(batch) > 1:
                for p in batch:
                    await self._commit_batch([p])
            else:
                for p in appends:
                    _fail(p, SequenceError(f"game {p.row.game_id}: seq {p.row.seq} was taken"))
                for job in jobs:  # a lone job is answered too, never left waiting
                    _fail(job, exc)
            return
        except Exception as exc:
            self._last_seq.clear()  # a lost commit may have stored the rows or not
            failure = _as_unavailable(exc) or exc
            for item in batch:
                _fail(item, failure)
            return
        self.commits += 1
        if self.on_commit is not None:
            self.on_commit(len(rows), time.perf_counter() - started)
        self._answer(appends, outcomes)
        for job, (ok, value) in zip(jobs, results, strict=True):
            if job.future.done():
                continue
            if ok:
                job.future.set_result(value)
            else:
                job.future.set_exception(value)

    def _follows(self, rows: list[ActionRow], fences: list[int | None]) -> bool:
        """Whether every row is the next of its game after the counts this store remembers,
        and the rows are all fenced (a cluster owner's) or all not."""
        fenced = fences[0] is not None
        if any((f is not None) is not fenced for f in fences):
            return False
        last = self._last_seq
        seen: dict[int, int] = {}
        for r in rows:
            before = seen.get(r.game_id, last.get(r.game_id))
            if before is None or r.seq != before + 1:
                return False
            seen[r.game_id] = r.seq
        return True

    def _remember(self, rows: list[ActionRow], outcomes: list[StoreError | None]) -> None:
        if len(self._last_seq) > 50_000:  # games long over; a forgotten one is read once
            self._last_seq.clear()
        for r, outcome in zip(rows, outcomes, strict=True):
            if outcome is None and r.seq > self._last_seq.get(r.game_id, 0):
                self._last_seq[r.game_id] = r.seq

    async def _insert_followers(
        self, rows: list[ActionRow], stamp: datetime, fences: list[int | None]
    ) -> bool:
        """PostgreSQL's hot path: rows that follow the remembered counts, inserted as one
        atomic statement (`pg_log.INSERT_ACTIONS`, or `INSERT_FENCED_ACTIONS` for a cluster
        owner's rows) by the writer process, or on a driver connection of the server's own:
        without reading the log's counts first, and past SQLAlchemy's pool (whose pre-ping
        is three round trips) and statement machinery, which together were a third of a
        busy server's CPU on PostgreSQL, and half of a cluster node's.

        False sends the batch down the checked path: the primary key (game_id, seq)
        refused a number another writer took (nothing is stored, and the counts are
        forgotten), or a fence did not match its room's (nothing is stored; the checked
        path tells which rows are fenced out, or raises the room's fence)."""
        given = fences if fences[0] is not None else None  # (`_follows`: all or none)
        if self._pg_writer is not None:
            count = await self._insert_followers_in_writer(rows, stamp, given)
        else:
            count = await self._insert_followers_inline(rows, stamp, given)
        if count is None:
            self._last_seq.clear()
            return False
        if count != len(rows):
            return False
        self._remember(rows, [None] * len(rows))
        return True

    async def _insert_followers_inline(
        self, rows: list[ActionRow], stamp: datetime, fences: list[int | None] | None
    ) -> int | None:
        """The rows inserted, or None when the primary key refused them."""
        columns: tuple[list[Any], ...] = ([], [], [], [], [])
        for r in rows:
            columns[0].append(r.game_id)
            columns[1].append(r.seq)
            columns[2].append(r.seat)
            columns[3].append(orjson.dumps(r.action).decode())
            columns[4].append(_utc(r.at or stamp))
        try:
            # The connection's command_timeout bounds the statement (no asyncio.timeout per
            # batch: it costs two lookups of the running loop and a timer).
            driver = await self._pg_driver()
            if fences is None:
                status = await driver.execute(pg_log.INSERT_ACTIONS, *columns)
            else:
                status = await driver.execute(pg_log.INSERT_FENCED_ACTIONS, *columns, fences)
        except asyncpg.IntegrityConstraintViolationError:
            return None
        except _PG_LOST as exc:
            raise self._driver_lost(exc) from exc
        return pg_log.inserted(status)

    async def _insert_followers_in_writer(
        self, rows: list[ActionRow], stamp: datetime, fences: list[int | None] | None
    ) -> int | None:
        """`_insert_followers_inline` by the PostgreSQL writer process: the same statement
        and the same answers, at the cost of one pipe write and read here."""
        assert self._pg_writer is not None
        sent = [(r.game_id, r.seq, r.seat, r.action, r.at and _utc(r.at).isoformat()) for r in rows]
        now = _utc(stamp).isoformat()
        request = (now, sent) if fences is None else (now, sent, fences)
        try:
            count = await self._pg_writer.request(request)
        except WriterRefused as exc:
            if exc.kind == "integrity":
                return None
            self._last_seq.clear()
            if exc.kind == "lost":  # in doubt, as a lost connection of our own
                raise StorageUnavailable(f"the database is unavailable: {exc}") from exc
            raise StoreError(f"the appends were not stored: {exc}") from exc
        except WriterLost as exc:  # in doubt: the room finds out from the log (`Room.act`)
            self._last_seq.clear()
            raise StorageUnavailable(f"the PostgreSQL writer stopped: {exc}") from exc
        return int(count)

    async def _pg_jobs(self, jobs: list[_Job]) -> list[tuple[bool, Any]]:
        """PostgreSQL: the batch's hands in one statement, then each other write in order.
        Returns each job's (ok, result or exception); never raises."""
        hands = [j for j in jobs if j.hand is not None]
        done = dict(zip(map(id, hands), await self._insert_hands(hands), strict=True))
        results = []
        for job in jobs:
            if job.hand is not None:
                results.append(done[id(job)])
            else:
                assert job.pg is not None  # `_run_write` queues only these on PostgreSQL
                results.append(await self._pg_statement(job.pg))
        return results

    async def _pg_statement(self, write: _PgWrite) -> tuple[bool, Any]:
        try:
            driver = await self._pg_driver()
            if write.returning:
                return True, await driver.fetchval(write.sql, *write.args)
            status = await driver.execute(write.sql, *write.args)
        except asyncpg.IntegrityConstraintViolationError as exc:
            if write.refused is not None:
                return False, NotFound(write.refused)
            return False, StoreError(f"the write was refused: {exc}")
        except _PG_LOST as exc:
            return False, self._driver_lost(exc)
        except Exception as exc:  # the statement's own refusal: this write's, not the batch's
            return False, StoreError(f"the write was not stored: {exc!r}")
        if write.missing is not None and str(status).endswith(" 0"):  # e.g. "UPDATE 0"
            return False, NotFound(write.missing)
        return True, None

    async def _insert_hands(self, jobs: list[_Job]) -> list[tuple[bool, Any]]:
        """PostgreSQL: finished hands' rows (unfenced) in one statement on the driver
        connection, as `_insert_followers` does the appends: through SQLAlchemy each hand
        cost the server about 1.3 ms of CPU (docs/performance.md). A batch refused as a
        whole (a hand already stored, or of no game) is retried hand by hand, so only the
        bad ones fail. Returns each job's (ok, result or exception); never raises."""
        columns: tuple[list[Any], ...] = ([], [], [], [], [], [], [])
        encoded: list[_Job] = []
        results: dict[int, tuple[bool, Any]] = {}  # by id() of the job
        for job in jobs:
            assert job.hand is not None  # `_run_write` queues only these on PostgreSQL
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
            outcomes: list[tuple[bool, Any]]
            try:
                await (await self._pg_driver()).execute(_PG_INSERT_HANDS, *columns)
                outcomes = [(True, None)] * len(encoded)
            except asyncpg.IntegrityConstraintViolationError:
                if len(encoded) > 1:
                    outcomes = [(await self._insert_hands([job]))[0] for job in encoded]
                else:
                    game_id, number = columns[0][0], columns[1][0]
                    refusal = StoreError(
                        f"game {game_id}: no such game, or hand {number} already stored"
                    )
                    outcomes = [(False, refusal)]
            except _PG_LOST as exc:
                outcomes = [(False, self._driver_lost(exc))] * len(encoded)
            except Exception as exc:  # any other refusal is the batch's hands', not more
                outcomes = [(False, StoreError(f"the hand was not stored: {exc!r}"))] * len(encoded)
            for job, outcome in zip(encoded, outcomes, strict=True):
                results[id(job)] = outcome
        return [results[id(job)] for job in jobs]

    async def _pg_driver(self) -> Any:
        """asyncpg's own connection for the hot paths, (re)connected when needed."""
        loop = self._loop()
        if self._driver is not None and (self._driver.is_closed() or self._driver_loop is not loop):
            with contextlib.suppress(Exception):  # closed, or of a loop now gone
                self._driver.terminate()
            self._driver = None
        if self._driver is None:
            async with asyncio.timeout(OPERATION_TIMEOUT):
                self._driver = await self._connect_driver()
            self._driver_loop = loop
        return self._driver

    def _driver_lost(self, exc: BaseException) -> StorageUnavailable:
        driver, self._driver = self._driver, None
        if driver is not None:  # lost or in doubt: the next batch connects anew
            with contextlib.suppress(Exception):
                driver.terminate()
        return StorageUnavailable(f"the database is unavailable: {exc!r}")

    async def _connect_driver(self) -> Any:
        return await asyncpg.connect(
            _driver_dsn(self.engine.url),
            timeout=10,
            command_timeout=COMMAND_TIMEOUT,
        )

    def _answer(self, appends: list[_Pending], outcomes: list[StoreError | None]) -> None:
        """Each append's caller: stored, or its refusal."""
        for p, outcome in zip(appends, outcomes, strict=True):
            if outcome is not None:
                _fail(p, outcome)
            elif not p.future.done():
                self.appended += 1
                p.future.set_result(None)

    async def _commit_in_writer(
        self, appends: list[_Pending], stamp: datetime, jobs: list[_Job]
    ) -> list[StoreError | None] | None:
        """A batch of appends and finished hands' rows, committed by the writer process: the
        appends' outcomes (the hands are answered here), or None when the writer was lost
        and every item has been answered here instead.

        A lost writer (killed, crashed) is dead before the log is read: the rows found there
        as sent were stored; the others were not, and go once more to a new writer.
        """
        assert self._writer_process is not None
        now = sqlite_log.sqlite_time(stamp)
        todo, hands = appends, jobs
        for _attempt in range(2):
            try:
                found = await self._writer_process.commit(
                    _sqlite_rows([p.row for p in todo]), now, [j.hand for j in hands if j.hand]
                )
            except WriterRefused as exc:
                if todo is not appends or hands is not jobs:
                    for p in todo:
                        _fail(p, StoreError(f"the append was not stored: {exc}"))
                    for j in hands:
                        _fail(j, StoreError(f"the hand was not stored: {exc}"))
                    return None
                if exc.kind == "integrity":  # the caller retries item by item
                    raise IntegrityError(sqlite_log.INSERT_ACTION, None, exc) from exc
                raise StoreError(f"the appends were not stored: {exc}") from exc
            except WriterLost as exc:
                log.warning(
                    "SQLite writer lost with %d appends and %d hands in flight: %s",
                    len(todo),
                    len(hands),
                    exc,
                )
                todo = await self._settle_from_log(todo)
                hands = await self._settle_hands(hands)
                if not todo and not hands:
                    return None
                continue
            outcomes = [_refusal(o) for o in found]
            for j in hands:
                if not j.future.done():
                    j.future.set_result(None)
            if todo is appends and hands is jobs:
                return outcomes
            self._answer(todo, outcomes)
            return None
        lost = StorageUnavailable("the SQLite writer stopped; the action was not stored")
        for p in todo:
            _fail(p, lost)
        for j in hands:
            _fail(j, lost)
        return None

    async def _settle_hands(self, jobs: list[_Job]) -> list[_Job]:
        """As `_settle_from_log`, for finished hands' rows: one found as sent was stored."""
        missing: list[_Job] = []
        if not jobs:
            return missing
        try:
            async with self._read() as conn:
                for job in jobs:
                    assert job.hand is not None
                    game_id, number, summary = job.hand
                    query = select(HANDS.c.summary).where(
                        HANDS.c.game_id == game_id, HANDS.c.hand_number == number
                    )
                    found = (await conn.execute(query)).first()
                    if found is None:
                        missing.append(job)
                    elif found[0] == json.loads(json.dumps(summary)) and not job.future.done():
                        job.future.set_result(None)
                    else:
                        _fail(job, StoreError(f"game {game_id}: hand {number} already stored"))
        except Exception as exc:
            unread = StorageUnavailable(f"the log could not be read: {exc}")
            for job in jobs:
                _fail(job, _as_unavailable(exc) or unread)
            return []
        return missing

    async def _settle_from_log(self, appends: list[_Pending]) -> list[_Pending]:
        """After the writer was lost mid-batch (and is dead): a row found in the log as sent
        was stored, and its caller succeeds; the rows not found are returned."""
        missing: list[_Pending] = []
        try:
            async with self._read() as conn:
                for p in appends:
                    query = select(ACTIONS.c.seat, ACTIONS.c.action).where(
                        ACTIONS.c.game_id == p.row.game_id, ACTIONS.c.seq == p.row.seq
                    )
                    found = (await conn.execute(query)).first()
                    if found is None:
                        missing.append(p)
                    elif tuple(found) == (p.row.seat, p.row.action):
                        if not p.future.done():
                            self.appended += 1
                            p.future.set_result(None)
                    else:
                        _fail(p, SequenceError(f"game {p.row.game_id}: seq {p.row.seq} was taken"))
        except Exception as exc:
            unread = StorageUnavailable(f"the log could not be read: {exc}")
            failure = _as_unavailable(exc) or unread
            for p in appends:
                _fail(p, failure)
            return []
        return missing

    async def finish_hand(self, row: HandRow, *, fence: int | None = None) -> None:
        summary = row.summary
        values = {
            "game_id": row.game_id,
            "hand_number": row.hand_number,
            "bids": summary.get("bids"),
            "tricks": summary.get("tricks"),
            "points": summary.get("points"),
            "bags": summary.get("bags"),
            "summary": summary,
        }

        def write(conn: Connection) -> None:
            _fence_game(conn, row.game_id, fence)
            conn.execute(insert(HANDS).values(values))

        # Unfenced, the SQLite writer process can insert it with the batch's appends: the
        # server then spends no SQLAlchemy statement and no thread hop on it (a hand's end
        # cost about 1.4 ms of the server's CPU that way, docs/performance.md).
        hand = (row.game_id, row.hand_number, summary) if fence is None else None
        if hand is not None and not _marshals(summary):
            hand = None  # the writer's wire carries plain values only (sqlite_log.frame)
        try:
            await self._run_write(write, hand)
        except IntegrityError as exc:
            raise StoreError(
                f"game {row.game_id}: no such game, or hand {row.hand_number} already stored"
            ) from exc

    async def finish_game(
        self, game_id: int, winner: int | None, scores: list[int], *, fence: int | None = None
    ) -> None:
        now = self.clock()

        def write(conn: Connection) -> None:
            _fence_game(conn, game_id, fence)
            result = conn.execute(
                update(GAMES)
                .where(GAMES.c.id == game_id)
                .values(finished_at=now, winner=winner, final_scores=list(scores))
            )
            if result.rowcount == 0:
                raise NotFound(f"no game {game_id}")

        pg = None
        if fence is None:
            pg = _PgWrite(
                "UPDATE games SET finished_at = $2, winner = $3, final_scores = $4::json "
                "WHERE id = $1",
                (game_id, _utc(now), winner, orjson.dumps(list(scores)).decode()),
                missing=f"no game {game_id}",
            )
        await self._run_write(write, pg=pg)

    async def finished_games(self, room_id: str) -> list[FinishedGame]:
        async with self._read() as conn:
            games = {
                g.id: FinishedGame(game=_game_row(g), hands=[])
                for g in await conn.execute(
                    select(GAMES)
                    .where(GAMES.c.room_id == room_id, GAMES.c.finished_at.is_not(None))
                    .order_by(GAMES.c.id)
                )
            }
            for chunk in _chunks(list(games)):
                for h in await conn.execute(
                    select(HANDS)
                    .where(HANDS.c.game_id.in_(chunk))
                    .order_by(HANDS.c.game_id, HANDS.c.hand_number)
                ):
                    games[h.game_id].hands.append(
                        HandRow(game_id=h.game_id, hand_number=h.hand_number, summary=h.summary)
                    )
        return list(games.values())

    async def resume_game_clock(self, game_id: int, *, fence: int | None = None) -> float:
        async with self._read() as conn:
            started = (
                await conn.execute(select(GAMES.c.started_at).where(GAMES.c.id == game_id))
            ).scalar()
            if started is None:
                raise NotFound(f"no game {game_id}")
            last = (
                await conn.execute(
                    select(func.max(ACTIONS.c.at)).where(ACTIONS.c.game_id == game_id)
                )
            ).scalar()
        used = max(0.0, (last - started).total_seconds()) if last is not None else 0.0
        # From now on, (an action's time - started_at) is the clock used: the outage since
        # the last action (and any before it, already taken out this way) is left out.
        moved = self.clock() - timedelta(seconds=used)

        def write(conn: Connection) -> None:
            _fence_game(conn, game_id, fence)
            conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(started_at=moved))

        await self._run_write(write)
        return used

    async def game_players(self, game_id: int) -> dict[str, Any]:
        async with self._read() as conn:
            room = (
                await conn.execute(
                    select(ROOMS.c.id, ROOMS.c.code, ROOMS.c.settings)
                    .join(GAMES, GAMES.c.room_id == ROOMS.c.id)
                    .where(GAMES.c.id == game_id)
                )
            ).one_or_none()
            if room is None:
                raise NotFound(f"no game {game_id}")
            seats = {
                s.seat: s
                for s in await conn.execute(select(SEATS).where(SEATS.c.room_id == room.id))
            }
        players = []
        for i in range(4):
            s = seats.get(i)
            kind = "empty" if s is None else ("bot" if s.bot_level else "human")
            name = None if s is None else (s.name or ("Bot" if s.bot_level else None))
            players.append({"seat": i, "name": name, "kind": kind})
        # A private room's code is its only key: a record (anyone may read it by the
        # game's number) never names one. A public room is named whatever its status now:
        # its host opened it to strangers (the lobby lists it while it has a free seat),
        # and anyone may watch it.
        public = bool((room.settings or {}).get("public", True))
        return {"room": room.code if public else None, "players": players}

    async def export_game(self, game_id: int, *, in_progress: bool = False) -> dict[str, Any]:
        """The engine's game record (Game.to_record() format). Raises NotFound.

        It holds the master seed, so until the game is over (finished, or its room
        abandoned) it raises GameInProgress, whichever process asks, unless
        `in_progress` (a server-side caller that keeps the record to itself).
        """
        async with self._read() as conn:
            game = (
                await conn.execute(
                    select(GAMES, ROOMS.c.status.label("room_status"))
                    .join(ROOMS, ROOMS.c.id == GAMES.c.room_id)
                    .where(GAMES.c.id == game_id)
                )
            ).one_or_none()
            if game is None:
                raise NotFound(f"no game {game_id}")
            # A room closed mid-game never plays on. (Not "finished": a room's next game
            # starts before the room's status says "playing" again.)
            over = game.finished_at is not None or game.room_status == "abandoned"
            if not over and not in_progress:
                raise GameInProgress(f"game {game_id} is still being played")
            actions = await conn.execute(
                select(ACTIONS.c.seat, ACTIONS.c.action)
                .where(ACTIONS.c.game_id == game_id)
                .order_by(ACTIONS.c.seq)
            )
            log = [{"seat": a.seat, "action": a.action} for a in actions]
        rules = Rules.from_dict(game.rules)
        return {
            "format": RECORD_FORMAT,
            "rules": rules.to_dict(),
            "seed": game.seed,
            "first_dealer": game.first_dealer,
            "deals": [],
            "scores": [0] * rules.sides,
            "bags": [0] * rules.sides,
            "actions": log,
        }

    # --- chat --------------------------------------------------------------------------

    async def add_chat(
        self, room_id: str, seat: int | None, name: str, text: str, *, fence: int | None = None
    ) -> int:
        at = self.clock()
        values = {"room_id": room_id, "seat": seat, "name": name, "text": text, "at": at}

        def write(conn: Connection) -> None:
            _fence_room(conn, room_id, fence)
            conn.execute(insert(CHAT).values(values))

        try:
            await self._run_write(write)
        except IntegrityError as exc:
            raise NotFound(f"no room {room_id!r}") from exc
        return _chat_ms(at)

    async def recent_chat(self, room_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The last `limit` messages, oldest first: {seat, name, text, at (epoch ms)}."""
        async with self._read() as conn:
            rows = list(
                await conn.execute(
                    select(CHAT)
                    .where(CHAT.c.room_id == room_id)
                    .order_by(CHAT.c.id.desc())
                    .limit(limit)
                )
            )
        return [
            {"seat": r.seat, "name": r.name, "text": r.text, "at": _chat_ms(r.at)}
            for r in reversed(rows)
        ]

    # --- upkeep ------------------------------------------------------------------------

    async def purge_abandoned(self, older_than: timedelta) -> int:
        """Delete abandoned rooms not touched for `older_than`, with all they own."""
        cutoff = self.clock() - older_than

        def write(conn: Connection) -> int:
            result = conn.execute(
                delete(ROOMS).where(ROOMS.c.status == "abandoned", ROOMS.c.updated_at < cutoff)
            )
            return int(result.rowcount)

        return int(await self._run_write(write))

    async def ping(self) -> bool:
        try:
            async with self._read() as conn:
                await conn.execute(text("SELECT 1"))
        except Exception:
            return False
        return True

    async def flush(self) -> None:
        """Wait until every queued append has been committed or refused."""
        while self._pending or self._inflight:
            futures = [p.future for p in (*self._inflight, *self._pending)]
            await asyncio.gather(*futures, return_exceptions=True)

    async def close(self) -> None:
        if self._closed:
            return
        # Let queued appends finish first: their callers are waiting on them.
        await self.flush()
        self._closed = True
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
        if self._writer_process is not None:
            await self._writer_process.close()
        if self._pg_writer is not None:
            await self._pg_writer.close()
        if self._driver is not None:
            driver, self._driver = self._driver, None
            with contextlib.suppress(Exception):
                await driver.close(timeout=5)
        if self._appender is not None:
            await asyncio.to_thread(self._appender.close)
        await self.engine.dispose()


# Built once: a new expression per batch is compiled-cache work and cyclic garbage.
_LAST_SEQS = (
    select(GAMES.c.id, func.coalesce(func.max(ACTIONS.c.seq), 0))
    .select_from(GAMES.outerjoin(ACTIONS, ACTIONS.c.game_id == GAMES.c.id))
    .where(GAMES.c.id.in_(bindparam("ids", expanding=True)))
    .group_by(GAMES.c.id)
)


_PG_INSERT_HANDS = (
    "INSERT INTO hands (game_id, hand_number, bids, tricks, points, bags, summary) "
    "SELECT * FROM unnest($1::integer[], $2::integer[], $3::json[], $4::json[], "
    "$5::json[], $6::json[], $7::json[])"
)
# The driver connection is lost, or the outcome of its statement is in doubt.
_PG_LOST = (asyncpg.PostgresConnectionError, asyncpg.InterfaceError, OSError, TimeoutError)


def _driver_dsn(url: URL) -> str:
    """asyncpg's address of a PostgreSQL URL (SQLAlchemy's names a driver asyncpg does not
    know)."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def _utc(value: datetime) -> datetime:
    """As UTCDateTime binds it on PostgreSQL: aware, in UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _append_rows(
    conn: Connection,
    rows: list[ActionRow],
    stamp: datetime,
    fences: list[int | None] | None = None,
) -> list[StoreError | None]:
    """Check every row's fence and sequence number and insert the good ones, in one
    transaction (the caller's). Returns, per row, None (inserted) or the refusal."""
    return _with_fences(conn, rows, fences, lambda kept: _append_checked(conn, kept, stamp))


def _append_checked(
    conn: Connection, rows: list[ActionRow], stamp: datetime
) -> list[StoreError | None]:
    ids = sorted({r.game_id for r in rows})
    last: dict[int, int] = {}
    for chunk in _chunks(ids):
        last.update({int(g): int(n) for g, n in conn.execute(_LAST_SEQS, {"ids": chunk})})
    outcomes, accepted = _check_sequences(rows, last)
    if accepted:
        conn.execute(
            insert(ACTIONS),
            [
                {
                    "game_id": r.game_id,
                    "seq": r.seq,
                    "seat": r.seat,
                    "action": r.action,
                    "at": r.at or stamp,
                }
                for r in accepted
            ],
        )
    return outcomes


def _fence_room(conn: Connection, room_id: str, fence: int | None, *, claim: bool = False) -> None:
    """Check `fence` against the room's in the caller's transaction (raising the room's to
    it when it is newer), or refuse the write: FencedOut, or NotFound for no such room.
    `claim`: a new owner's number must be newer than the room's, not only as new."""
    if fence is None:
        return
    rows = _lock_fences(conn, select(ROOMS.c.id, ROOMS.c.fence).where(ROOMS.c.id == room_id))
    current = {str(room): int(f) for room, f in rows}
    if room_id not in current:
        raise NotFound(f"no room {room_id!r}")
    stored = current[room_id]
    if (claim and fence <= stored) or _raise_fences(conn, current, {(room_id, fence)}):
        raise FencedOut(
            f"room {room_id!r} has a newer owner (fence {stored} >= {fence})", current=stored
        )


def _fence_game(conn: Connection, game_id: int, fence: int | None) -> None:
    if fence is None:
        return
    room_id = conn.execute(select(GAMES.c.room_id).where(GAMES.c.id == game_id)).scalar()
    if room_id is None:
        raise NotFound(f"no game {game_id}")
    _fence_room(conn, room_id, fence)


def _lock_fences(conn: Connection, query: Any) -> list[Any]:
    """Run `query` (of rooms, with other tables maybe), locking those rooms' rows in id
    order until the transaction ends.

    On PostgreSQL a claim (an UPDATE of the row) and a write holding this lock wait for
    each other, and the lock read sees the latest committed fence, so whichever commits
    second sees the other. Taking the locks in one order (by room id) means two processes'
    batches cannot deadlock. SQLite has one writer at a time and no row locks.
    """
    return list(conn.execute(query.order_by(ROOMS.c.id).with_for_update(of=ROOMS, key_share=True)))


def _raise_fences(
    conn: Connection, current: dict[str, int], claims: set[tuple[str, int]]
) -> set[tuple[str, int]]:
    """The claims (room, fence) older than their room's fence; the rooms' fences are raised
    to the newest of the others."""
    refused = {(room, f) for room, f in claims if f < current[room]}
    newest: dict[str, int] = {}
    for room, f in claims:
        if f > current[room] and f > newest.get(room, -1):
            newest[room] = f
    if newest:
        conn.execute(
            update(ROOMS).where(ROOMS.c.id == bindparam("room")).values(fence=bindparam("f")),
            [{"room": room, "f": f} for room, f in sorted(newest.items())],
        )
        current.update(newest)
    return refused


def _with_fences(
    conn: Connection,
    rows: list[ActionRow],
    fences: list[int | None] | None,
    append: Callable[[list[ActionRow]], list[StoreError | None]],
) -> list[StoreError | None]:
    """Refuse the rows whose fence is older than their room's, then `append` the others.

    Rows of an unknown game are passed on (the append refuses them as NotFound).
    """
    if not fences or all(f is None for f in fences):
        return append(rows) if rows else []
    claims = {(r.game_id, f) for r, f in zip(rows, fences, strict=True) if f is not None}
    games = sorted({g for g, _ in claims})
    # One locking read for the whole batch on PostgreSQL (so the locks come in one order);
    # SQLite takes the ids in slices under its parameter limit.
    size = 500 if conn.dialect.name == "sqlite" else MAX_BATCH
    room_of: dict[int, str] = {}
    current: dict[str, int] = {}
    for chunk in _chunks(games, max(size, 1)):
        query = (
            select(ROOMS.c.id, ROOMS.c.fence, GAMES.c.id)
            .select_from(GAMES.join(ROOMS, ROOMS.c.id == GAMES.c.room_id))
            .where(GAMES.c.id.in_(chunk))
        )
        for room, fence, game in _lock_fences(conn, query):
            room_of[int(game)] = str(room)
            current[str(room)] = int(fence)
    refused_rooms = _raise_fences(
        conn, current, {(room_of[g], f) for g, f in claims if g in room_of}
    )
    outcomes: list[StoreError | None] = [None] * len(rows)
    kept: list[int] = []
    for i, (r, f) in enumerate(zip(rows, fences, strict=True)):
        room = room_of.get(r.game_id)
        if f is not None and room is not None and (room, f) in refused_rooms:
            outcomes[i] = FencedOut(f"game {r.game_id}: its room has a newer owner than {f}")
        else:
            kept.append(i)
    if kept:
        for i, outcome in zip(kept, append([rows[i] for i in kept]), strict=True):
            outcomes[i] = outcome
    return outcomes


def _check_sequences(
    rows: list[ActionRow],
    last: dict[int, int],
    reread: Callable[[int], int | None] | None = None,
) -> tuple[list[StoreError | None], list[ActionRow]]:
    """Per row, None (it is the next action of its game's log) or the refusal; and the
    rows to insert (see `sqlite_log.check_sequences`)."""
    outcomes = [
        _refusal(o)
        for o in sqlite_log.check_sequences([(r.game_id, r.seq) for r in rows], last, reread)
    ]
    accepted = [r for r, o in zip(rows, outcomes, strict=True) if o is None]
    return outcomes, accepted


def _refusal(outcome: sqlite_log.Outcome) -> StoreError | None:
    if outcome is None:
        return None
    kind, message = outcome
    return NotFound(message) if kind == "notfound" else SequenceError(message)


class _SqliteAppender:
    """Commits append batches on a plain (sync) SQLite connection in one worker thread.

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
                outcomes = _with_fences(
                    conn, rows, fences, lambda kept: _append_rows_sqlite(conn, kept, stamp, last)
                )
                for job in jobs:
                    savepoint = conn.begin_nested()
                    try:
                        value = job(conn)
                    except Exception as exc:
                        if _connection_lost(exc):
                            raise  # the whole batch failed, not this job alone
                        savepoint.rollback()
                        results.append((False, exc))
                    else:
                        savepoint.commit()
                        results.append((True, value))
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
        SQLAlchemy's begin and commit machinery cost this thread, which holds the GIL while
        it runs Python, more than the inserts themselves (a profile of the load bench)."""
        raw = conn.connection.driver_connection
        assert raw is not None and raw.isolation_level is None  # we say where it begins
        raw.execute("BEGIN IMMEDIATE")
        try:
            outcomes = _append_rows_sqlite(conn, rows, stamp, self._last)
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
        if self._conn is not None and (_connection_lost(exc) or self._conn.invalidated):
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


def _sqlite_rows(rows: list[ActionRow]) -> list[sqlite_log.Row]:
    return [
        (r.game_id, r.seq, r.seat, r.action, None if r.at is None else sqlite_log.sqlite_time(r.at))
        for r in rows
    ]


def _append_rows_sqlite(
    conn: Connection, rows: list[ActionRow], stamp: datetime, last: dict[int, int]
) -> list[StoreError | None]:
    """`_append_rows` for the SQLite appender thread: `sqlite_log.append_rows` on the
    driver's connection, in the caller's transaction."""
    raw = conn.connection.driver_connection
    assert raw is not None
    try:
        found = sqlite_log.append_rows(raw, _sqlite_rows(rows), sqlite_log.sqlite_time(stamp), last)
    except sqlite3.IntegrityError as exc:
        raise IntegrityError(sqlite_log.INSERT_ACTION, None, exc) from exc
    return [_refusal(o) for o in found]


def _connection_lost(exc: BaseException) -> bool:
    """The connection cannot go on (invalidated, or SQLite's read-only connection)."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    return is_readonly_error(exc) or is_readonly_error(getattr(exc, "orig", None))


def _as_unavailable(exc: BaseException) -> StorageUnavailable | None:
    """The database was unreachable or did not answer (not: it refused the statement)."""
    if isinstance(exc, StoreError):
        return None
    lost = isinstance(exc, OSError | TimeoutError | OperationalError | InterfaceError) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    )
    if not lost:
        return None
    failure = StorageUnavailable(f"the database is unavailable: {exc!r}")
    failure.__cause__ = exc
    return failure


@contextlib.contextmanager
def _unavailable_as_store_error() -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        failure = _as_unavailable(exc)
        if failure is None:
            raise
        raise failure from exc


def _on_disk_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")


class _Wake:
    """asyncio.Event for the store's writer task, bound to its loop once (Event.wait looks
    the running loop up on every wait), with a sleep on the same loop."""

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


def _marshals(value: Any) -> bool:
    try:
        marshal.dumps(value)
    except ValueError:
        return False
    return True


def _fail(p: _Pending | _Job, exc: BaseException) -> None:
    if not p.future.done():
        p.future.set_exception(exc)


def _chunks(items: Sequence[Any], size: int = 500) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _seat_values(seat: SeatRow, room_id: str) -> dict[str, Any]:
    return {
        "room_id": room_id,
        "seat": seat.seat,
        "name": seat.name,
        "bot_level": seat.bot_level,
        "token_hash": seat.token_hash,
    }


def _room_row(r: Any) -> RoomRow:
    return RoomRow(
        id=r.id,
        code=r.code,
        settings=r.settings,
        host_seat=r.host_seat,
        status=r.status,
        created_at=r.created_at,
        updated_at=r.updated_at,
    )


def _seat_row(s: Any) -> SeatRow:
    return SeatRow(
        room_id=s.room_id,
        seat=s.seat,
        name=s.name,
        bot_level=s.bot_level,
        token_hash=s.token_hash,
    )


def _game_row(g: Any) -> GameRow:
    return GameRow(
        id=g.id,
        room_id=g.room_id,
        rules=g.rules,
        first_dealer=g.first_dealer,
        seed=g.seed,
        started_at=g.started_at,
        finished_at=g.finished_at,
        winner=g.winner,
        final_scores=g.final_scores,
    )


def _action_row(a: Any) -> ActionRow:
    return ActionRow(game_id=a.game_id, seq=a.seq, seat=a.seat, action=a.action, at=a.at)


def _lobby_entry(room: RoomRow, seats: list[SeatRow]) -> dict[str, Any]:
    """A room as the lobby lists it (Room.summary() without `invite_url`)."""
    kinds = {s.seat: _seat_kind(s) for s in seats}
    names = {s.seat: s.name for s in seats if kinds[s.seat] == "human"}
    names.update({s.seat: s.name or "Bot" for s in seats if kinds[s.seat] == "bot"})
    host = room.host_seat
    return {
        "id": room.id,
        "code": room.code,
        "status": room.status,
        "settings": room.settings,
        "host": names.get(host) if host is not None else None,
        "seats": [
            {"seat": i, "name": names.get(i), "kind": kinds.get(i, "empty")} for i in range(4)
        ],
        "open_seats": [i for i in range(4) if kinds.get(i, "empty") == "empty"],
    }


def _seat_kind(seat: SeatRow) -> str:
    """As Seat.from_row reads a row: a bot level makes a bot, a token hash a human."""
    if seat.bot_level:
        return "bot"
    if seat.token_hash:
        return "human"
    return "empty"


def _chat_ms(at: datetime) -> int:
    """A chat message's time in epoch ms, the same for the live message and the stored one
    (clients match the two after a reconnect)."""
    return round(_utc(at).timestamp() * 1000)
