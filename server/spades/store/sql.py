"""The SQL store (SQLAlchemy 2 async): SQLite by default, PostgreSQL through asyncpg.

`SqlStore` is the facade the rooms use. Its writes join a group commit (`group_commit`)
whose commit path is chosen once, when the store opens (`commit_path`): an SQLite file with
a writer process (`commit_sqlite_process`) or without (`commit_sqlite`), PostgreSQL with a
writer process or inline (`commit_pg`), or the engine alone for an in-memory database
(`commit_engine`). A caller returns only once its write is durable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, text, update
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from spades.engine.record import game_record
from spades.engine.stats import Counts, SeatStats

from . import owner_writes, player_stats, purge, reads, sqlite_log
from . import ratings as rating_store
from .access import Access
from .accounts import AccountWrites
from .commit_engine import EnginePath
from .commit_pg import PgInlinePath, PgWriterPath
from .commit_sqlite import SqliteThreadPath
from .commit_sqlite_process import SqliteProcessPath
from .db import create_engine, is_sqlite
from .fences import claim_fences, fence_game, fence_room
from .group_commit import CommitHook, CommitPath, GroupCommit, Job, Pending
from .models import metadata
from .moderation import ModerationWrites
from .owner_writes import OwnerWrite
from .passkeys import PasskeyWrites
from .protocol import (
    ActionRow,
    CodeTaken,
    FinishedGame,
    GameInProgress,
    HandRow,
    LeaderRow,
    NotFound,
    PlayerGame,
    PlayerRow,
    PlayerTaken,
    QueueFacts,
    RatingChangeRow,
    RoomRow,
    RoomStatus,
    SeatRow,
    Store,
    StoredRating,
    StoredRoom,
    StoreError,
)
from .tables import (
    CHAT,
    GAMES,
    HANDS,
    PLAYERS,
    ROOMS,
    SEATS,
    UNFINISHED,
    chat_ms,
    marshals,
    seat_values,
)

Clock = Callable[[], datetime]


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


def commit_path(access: Access, writer_process: bool) -> CommitPath:
    """The one commit path of a store's life, by its database."""
    url = access.engine.url
    if url.get_backend_name() == "postgresql":
        return PgWriterPath(access) if writer_process else PgInlinePath(access)
    if _on_disk_sqlite(url):
        return SqliteProcessPath(access) if writer_process else SqliteThreadPath(access)
    return EnginePath(access)


def _on_disk_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")


class SqlStore(AccountWrites, PasskeyWrites, ModerationWrites):
    """`Store` on SQLAlchemy Core statements over the tables in `models` (accounts and
    sessions: `accounts.AccountWrites`; passkeys: `passkeys.PasskeyWrites`; moderation:
    `moderation.ModerationWrites`)."""

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
        self.sqlite = is_sqlite(engine.url)
        self._access = Access(engine)
        self._path = commit_path(self._access, writer_process)
        self._queue = GroupCommit(self._path, self.clock, on_commit, commit_interval)
        self._closed = False

    # --- figures and knobs (benchmarks, metrics, tests) ----------------------------------

    @property
    def commits(self) -> int:
        return self._queue.commits

    @property
    def appended(self) -> int:
        return self._queue.answers.appended

    @property
    def max_batch(self) -> int:
        return self._queue.max_batch

    @max_batch.setter
    def max_batch(self, value: int) -> None:
        self._queue.max_batch = value

    @property
    def commit_interval(self) -> float:
        return self._queue.commit_interval

    @commit_interval.setter
    def commit_interval(self, value: float) -> None:
        self._queue.commit_interval = value

    # --- plumbing --------------------------------------------------------------------

    async def _run_write(
        self,
        fn: Callable[[Connection], Any],
        hand: sqlite_log.Hand | None = None,
        owner: OwnerWrite | None = None,
    ) -> Any:
        """Run `fn` in a write transaction; durable when this returns: in the group commit
        when the commit path takes it, else at once."""
        if self._closed:
            raise StoreError("the store is closed")
        if not self._path.queues(hand, owner):
            async with self._access.write() as conn:
                return await conn.run_sync(fn)
        loop = self._queue.loop()
        job = Job(fn, loop.create_future(), hand, owner)
        self._queue.enqueue(job, loop)
        return await job.future

    async def _run_owner(self, write: OwnerWrite, fence: int | None) -> Any:
        """An owner write: as one statement unfenced, else after the fence check."""

        def run(conn: Connection) -> Any:
            return owner_writes.run(conn, write, fence)

        return await self._run_write(run, owner=write if fence is None else None)

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
                conn.execute(insert(SEATS), [seat_values(s, room.id) for s in seats])

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
        write = owner_writes.update_room(room_id, self.clock(), status, settings, host_seat)
        await self._run_owner(write, fence)

    async def set_seat(self, seat: SeatRow, *, fence: int | None = None) -> None:
        now = self.clock()

        def write(conn: Connection) -> None:
            fence_room(conn, seat.room_id, fence)
            conn.execute(
                delete(SEATS).where(SEATS.c.room_id == seat.room_id, SEATS.c.seat == seat.seat)
            )
            conn.execute(insert(SEATS).values(seat_values(seat, seat.room_id)))
            conn.execute(update(ROOMS).where(ROOMS.c.id == seat.room_id).values(updated_at=now))

        try:
            await self._run_write(write)
        except IntegrityError as exc:
            raise NotFound(f"no room {seat.room_id!r} (or seat {seat.seat} out of range)") from exc

    async def get_room(self, room_id: str) -> StoredRoom:
        found = await self.load_rooms([room_id])
        if room_id not in found:
            raise NotFound(f"no room {room_id!r}")
        return found[room_id]

    # One room by id, any status, with its unfinished game and that game's log.
    load_room = get_room

    async def load_rooms(self, room_ids: Sequence[str]) -> dict[str, StoredRoom]:
        """`load_room` for many rooms in one read (rooms that do not exist are left out)."""
        async with self._access.read() as conn:
            return await reads.rooms_by_id(conn, room_ids)

    async def room_id_for_code(self, code: str) -> str:
        async with self._access.read() as conn:
            found = (
                await conn.execute(select(ROOMS.c.id).where(ROOMS.c.code == code))
            ).scalar_one_or_none()
        if found is None:
            raise NotFound(f"no room with code {code!r}")
        return str(found)

    async def claim_room(self, room_id: str, fence: int) -> None:
        """Make `fence` the room's fencing number (`claim_fences`: an equal number is the
        current owner's, refused too). On PostgreSQL the claim waits for a write of the old
        owner holding the room's row: once it returns, no older number's write commits."""
        (refused,) = await self.claim_rooms([(room_id, fence)])
        if refused is not None:
            raise refused

    async def claim_rooms(self, claims: Sequence[tuple[str, int]]) -> list[StoreError | None]:
        """`claim_room` for many (room, fence) in one transaction: each one's outcome."""
        return list(await self._run_write(lambda conn: claim_fences(conn, claims)))

    async def public_rooms(self) -> list[StoredRoom]:
        """Open public rooms with their seats, oldest first (no game)."""
        async with self._access.read() as conn:
            return await reads.public_rooms(conn)

    async def load_unfinished(self) -> list[StoredRoom]:
        async with self._access.read() as conn:
            return await reads.load_rooms(conn, ROOMS.c.status.in_(UNFINISHED))

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
        write = owner_writes.start_game(room_id, rules, first_dealer, seed, self.clock())
        try:
            game_id = int(await self._run_owner(write, fence))
        except IntegrityError as exc:
            raise NotFound(f"no room {room_id!r}") from exc
        self._path.started(game_id)
        return game_id

    def append_action(self, row: ActionRow, *, fence: int | None = None) -> Awaitable[None]:
        """Durable once awaited. Raises SequenceError unless row.seq is the next number,
        FencedOut (nothing stored) if the room has a newer owner than `fence`.

        Queued at once; the future it returns is settled by the group commit (no coroutine
        of its own: one fewer frame for every action to pass on its way through)."""
        queue = self._queue
        loop = queue.loop()
        future: asyncio.Future[None] = loop.create_future()
        if self._closed:
            future.set_exception(StoreError("the store is closed"))
            return future
        queue.enqueue(Pending(row, future, fence), loop)
        return future

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
            fence_game(conn, row.game_id, fence)
            conn.execute(insert(HANDS).values(values))

        # Unfenced, a commit path may insert the row its own way with the batch's appends.
        hand = (row.game_id, row.hand_number, summary) if fence is None else None
        if hand is not None and not marshals(summary):
            hand = None  # a writer process's wire carries plain values only (sqlite_log.frame)
        try:
            await self._run_write(write, hand)
        except IntegrityError as exc:
            raise StoreError(
                f"game {row.game_id}: no such game, or hand {row.hand_number} already stored"
            ) from exc

    async def finish_game(
        self,
        game_id: int,
        winner: int | None,
        scores: list[int],
        *,
        stats: Sequence[SeatStats] | None = None,
        ratings: Sequence[dict[str, Any]] | None = None,
        fence: int | None = None,
    ) -> None:
        if not stats:
            write = owner_writes.finish_game(game_id, winner, scores, self.clock())
            await self._run_owner(write, fence)
            return
        if ratings:
            now = self.clock()
            write = rating_store.finish_rated_game(game_id, winner, scores, now, stats, ratings)
        else:
            write = player_stats.finish_game(game_id, winner, scores, self.clock(), stats)
        if await self._run_owner(write, fence) is None:
            raise NotFound(f"no game {game_id}")

    async def ratings(self, player_ids: Sequence[str], mode: str) -> dict[str, StoredRating]:
        async with self._access.read() as conn:
            return await rating_store.ratings(conn, player_ids, mode)

    async def player_ratings(self, player_id: str) -> dict[str, StoredRating]:
        async with self._access.read() as conn:
            return await rating_store.player_ratings(conn, player_id)

    async def rating_history(self, player_id: str, limit: int = 200) -> list[RatingChangeRow]:
        async with self._access.read() as conn:
            return await rating_store.history(conn, player_id, limit)

    async def leaderboard(
        self, mode: str, *, min_games: int, offset: int, limit: int
    ) -> tuple[int, list[LeaderRow]]:
        async with self._access.read() as conn:
            return await rating_store.leaderboard(conn, mode, min_games, offset, limit)

    async def last_quit(self, player_id: str) -> datetime | None:
        async with self._access.read() as conn:
            return await rating_store.last_quit(conn, player_id)

    async def queue_facts(self, player_id: str, mode: str) -> QueueFacts:
        async with self._access.read() as conn:
            return await rating_store.queue_facts(conn, player_id, mode)

    async def leaderboard_rank(self, player_id: str, mode: str, *, min_games: int) -> int | None:
        async with self._access.read() as conn:
            return await rating_store.rank(conn, player_id, mode, min_games)

    async def player_stats(self, player_id: str) -> dict[str, Counts]:
        async with self._access.read() as conn:
            return await player_stats.totals(conn, player_id)

    async def finished_games(self, room_id: str) -> list[FinishedGame]:
        async with self._access.read() as conn:
            return await reads.finished_games(conn, room_id)

    async def resume_game_clock(
        self, game_id: int, *, fence: int | None = None, counted: float = 0.0
    ) -> float:
        async with self._access.read() as conn:
            started, last = await reads.game_times(conn, game_id)
        used = max(0.0, (last - started).total_seconds()) if last is not None else 0.0
        used += max(0.0, counted)
        # From now on, (an action's time - started_at) is the clock used: the outage since
        # the last action (and any before it, already taken out this way) is left out.
        moved = self.clock() - timedelta(seconds=used)

        def write(conn: Connection) -> None:
            fence_game(conn, game_id, fence)
            conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(started_at=moved))

        await self._run_write(write)
        return used

    async def game_room(self, game_id: int) -> StoredRoom:
        """The room of game `game_id` with its seats as they are now (no game). Raises
        NotFound."""
        async with self._access.read() as conn:
            return await reads.game_room(conn, game_id)

    async def export_game(self, game_id: int, *, in_progress: bool = False) -> dict[str, Any]:
        """The engine's game record (`spades.engine.record.game_record`). Raises NotFound.

        It holds the master seed, so until the game is over (finished, or its room
        abandoned) it raises GameInProgress, whichever process asks, unless
        `in_progress` (a server-side caller that keeps the record to itself).
        """
        async with self._access.read() as conn:
            game = await reads.game_with_room_status(conn, game_id)
            # A room closed mid-game never plays on. (Not "finished": a room's next game
            # starts before the room's status says "playing" again.)
            over = game.finished_at is not None or game.room_status == "abandoned"
            if not over and not in_progress:
                raise GameInProgress(f"game {game_id} is still being played")
            actions = await reads.game_actions(conn, game_id)
        return game_record(game.rules, game.seed, game.first_dealer, actions)

    # --- chat --------------------------------------------------------------------------

    async def add_chat(
        self,
        room_id: str,
        seat: int | None,
        name: str,
        text: str,
        *,
        player_id: str | None = None,
        fence: int | None = None,
    ) -> int:
        at = self.clock()
        values = {
            "room_id": room_id,
            "seat": seat,
            "name": name,
            "text": text,
            "at": at,
            "player_id": player_id,
        }

        def write(conn: Connection) -> None:
            fence_room(conn, room_id, fence)
            conn.execute(insert(CHAT).values(values))

        try:
            await self._run_write(write)
        except IntegrityError as exc:
            raise NotFound(f"no room {room_id!r}") from exc
        return chat_ms(at)

    async def recent_chat(self, room_id: str, limit: int = 50) -> list[dict[str, Any]]:
        return (await self.recent_chats([room_id], limit))[room_id]

    async def recent_chats(self, ids: Sequence[str], limit: int) -> dict[str, list[dict[str, Any]]]:
        async with self._access.read() as conn:
            return await reads.recent_chats(conn, ids, limit)

    # --- players -----------------------------------------------------------------------

    async def create_player(self, player: PlayerRow) -> None:
        values = {
            "id": player.id,
            "secret_hash": player.secret_hash,
            "name": player.name,
            "created_at": player.created_at or self.clock(),
            "public": player.public,
        }

        def write(conn: Connection) -> None:
            conn.execute(insert(PLAYERS).values(values))

        try:
            await self._run_write(write)
        except IntegrityError as exc:
            raise PlayerTaken(f"player {player.id!r} already exists") from exc

    async def get_player(self, player_id: str) -> PlayerRow:
        async with self._access.read() as conn:
            return await reads.player(conn, player_id)

    async def rename_player(self, player_id: str, name: str) -> None:
        await self.update_player(player_id, name=name)

    async def update_player(
        self, player_id: str, *, name: str | None = None, public: bool | None = None
    ) -> None:
        given = {k: v for k, v in (("name", name), ("public", public)) if v is not None}

        def write(conn: Connection) -> int:
            found = update(PLAYERS).where(PLAYERS.c.id == player_id)
            # Nothing to set still says whether the player exists.
            result = conn.execute(found.values(given or {"id": player_id}))
            return int(result.rowcount)

        if not await self._run_write(write):
            raise NotFound(f"no player {player_id!r}")

    async def player_rooms(self, player_id: str) -> list[StoredRoom]:
        async with self._access.read() as conn:
            return await reads.player_rooms(conn, player_id)

    async def player_games(
        self, player_id: str, *, before: int | None = None, limit: int = 20
    ) -> list[PlayerGame]:
        async with self._access.read() as conn:
            return await reads.player_games(conn, player_id, before, limit)

    async def game_seat_players(self, game_id: int) -> list[str | None]:
        async with self._access.read() as conn:
            return await reads.game_seat_players(conn, game_id)

    # --- upkeep ------------------------------------------------------------------------

    async def purge_abandoned(self, older_than: timedelta) -> int:
        """Purge abandoned rooms not touched for `older_than` (`purge.purge_abandoned`:
        finished games are kept); the count of rooms deleted or emptied."""
        cutoff = self.clock() - older_than
        return int(await self._run_write(lambda conn: purge.purge_abandoned(conn, cutoff)))

    async def ping(self) -> bool:
        try:
            async with self._access.read() as conn:
                await conn.execute(text("SELECT 1"))
        except Exception:
            return False
        return True

    async def flush(self) -> None:
        """Wait until every queued write has been committed or refused."""
        await self._queue.flush()

    async def close(self) -> None:
        if self._closed:
            return
        # Let queued appends finish first: their callers are waiting on them.
        await self._queue.flush()
        self._closed = True
        self._access.closed = True
        await self._queue.stop()
        await self._path.close()
        await self.engine.dispose()
