"""A room owner's writes of a game's life (`update_room`, `start_game`, `finish_game`),
each defined once as one statement.

PostgreSQL's group commit runs the statement as written on asyncpg's own connection (when
it is unfenced); every other path runs the same statement on a SQLAlchemy connection
(`run`), after the fence check, in SQLite's spelling there.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy.engine import Connection

from . import sqlite_log
from .fences import fence_game, fence_room
from .protocol import NotFound, RoomStatus
from .tables import utc


@dataclass(frozen=True, slots=True)
class OwnerWrite:
    """One statement in PostgreSQL's spelling ($n parameters, ::json casts), JSON values
    given as text and times as aware UTC datetimes."""

    sql: str
    args: tuple[Any, ...]
    room_id: str | None = None  # the room whose fence guards it, or
    game_id: int | None = None  # the game whose room's fence guards it
    returning: bool = False  # the statement returns one value (the result), else nothing
    missing: str | None = None  # NotFound's message when the statement matched no row
    refused: str | None = None  # NotFound's message for an integrity violation
    # SQLite's spelling when `sql` is PostgreSQL's alone (a data-modifying WITH): these
    # statements in order, in one transaction, each given the parameters it names; the
    # first one's value is the result.
    sqlite: tuple[str, ...] = ()


def update_room(
    room_id: str,
    now: datetime,
    status: RoomStatus | None,
    settings: dict[str, Any] | None,
    host_seat: int | None,
) -> OwnerWrite:
    sets, args = ["updated_at = $2"], [room_id, utc(now)]
    for column, value, cast_to in (
        ("status", status, ""),
        ("settings", None if settings is None else orjson.dumps(settings).decode(), "::json"),
        ("host_seat", host_seat, ""),
    ):
        if value is not None:
            args.append(value)
            sets.append(f"{column} = ${len(args)}{cast_to}")
    return OwnerWrite(
        f"UPDATE rooms SET {', '.join(sets)} WHERE id = $1",
        tuple(args),
        room_id=room_id,
        missing=f"no room {room_id!r}",
    )


# A game's row and who sits where as it is dealt, in one statement: the seats' players
# are the game's for good (a seat may change hands after it).
_START_GAME = (
    "WITH game AS (INSERT INTO games (room_id, rules, first_dealer, seed, started_at) "
    "VALUES ($1, $2::json, $3, $4, $5) RETURNING id), "
    "dealt AS (INSERT INTO game_seats (game_id, seat, player_id, name) "
    "SELECT game.id, seats.seat, seats.player_id, seats.name FROM game, seats "
    "WHERE seats.room_id = $1) "
    "SELECT id FROM game"
)
# SQLite has no INSERT inside WITH: the same in two statements. The newest game of the room
# is the one just inserted (ids only grow, and the write holds the database's lock).
_START_GAME_SQLITE = (
    "INSERT INTO games (room_id, rules, first_dealer, seed, started_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
    "INSERT INTO game_seats (game_id, seat, player_id, name) "
    "SELECT (SELECT max(id) FROM games WHERE room_id = ?1), seat, player_id, name "
    "FROM seats WHERE room_id = ?1",
)


def start_game(
    room_id: str, rules: dict[str, Any], first_dealer: int, seed: str, now: datetime
) -> OwnerWrite:
    return OwnerWrite(
        _START_GAME,
        (room_id, orjson.dumps(rules).decode(), first_dealer, seed, utc(now)),
        room_id=room_id,
        returning=True,
        refused=f"no room {room_id!r}",
        sqlite=_START_GAME_SQLITE,
    )


def finish_game(game_id: int, winner: int | None, scores: list[int], now: datetime) -> OwnerWrite:
    return OwnerWrite(
        "UPDATE games SET finished_at = $2, winner = $3, final_scores = $4::json WHERE id = $1",
        (game_id, utc(now), winner, orjson.dumps(list(scores)).decode()),
        game_id=game_id,
        missing=f"no game {game_id}",
    )


def run(conn: Connection, write: OwnerWrite, fence: int | None) -> Any:
    """`write` on a SQLAlchemy connection, in its transaction: the statement's value when
    it returns one. Raises NotFound (no such row, or fenced by no such room), FencedOut, or
    the database's IntegrityError."""
    if write.game_id is not None:
        fence_game(conn, write.game_id, fence)
    elif write.room_id is not None:
        fence_room(conn, write.room_id, fence)
    if conn.dialect.name == "sqlite" and write.sqlite:
        args = _sqlite_args(write.args)
        first, *rest = write.sqlite
        value = conn.exec_driver_sql(first, args[: _parameters(first)]).scalar()
        for sql in rest:
            conn.exec_driver_sql(sql, args[: _parameters(sql)])
        return value
    if conn.dialect.name == "sqlite":
        result = conn.exec_driver_sql(_sqlite_spelling(write.sql), _sqlite_args(write.args))
    else:
        result = conn.exec_driver_sql(write.sql, write.args)
    if write.returning:
        return result.scalar()  # (None: the statement matched no row)
    if write.missing is not None and result.rowcount == 0:
        raise NotFound(write.missing)
    return None


_PARAMETER = re.compile(r"\$(\d+)(?:::json)?")


@functools.lru_cache(maxsize=64)
def _sqlite_spelling(sql: str) -> str:
    """SQLite's numbered parameters (`?n`) for PostgreSQL's (`$n`), without the casts
    (SQLite keeps JSON as the text it is given)."""
    return _PARAMETER.sub(r"?\1", sql)


@functools.lru_cache(maxsize=64)
def _parameters(sql: str) -> int:
    """How many parameters a statement in SQLite's spelling takes (its highest `?n`)."""
    return max((int(n) for n in re.findall(r"\?(\d+)", sql)), default=0)


def _sqlite_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Times as UTCDateTime stores them on SQLite (text)."""
    return tuple(sqlite_log.sqlite_time(a) if isinstance(a, datetime) else a for a in args)
