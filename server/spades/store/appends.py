"""The checked append: every row's fence and sequence number checked against the log,
the good rows inserted, in the caller's transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from . import sqlite_log
from .failures import refusal
from .fences import with_fences
from .protocol import ActionRow, StoreError
from .tables import ACTIONS, GAMES, chunks

# Built once: a new expression per batch is compiled-cache work and cyclic garbage.
_LAST_SEQS = (
    select(GAMES.c.id, func.coalesce(func.max(ACTIONS.c.seq), 0))
    .select_from(GAMES.outerjoin(ACTIONS, ACTIONS.c.game_id == GAMES.c.id))
    .where(GAMES.c.id.in_(bindparam("ids", expanding=True)))
    .group_by(GAMES.c.id)
)


def append_rows(
    conn: Connection,
    rows: list[ActionRow],
    stamp: datetime,
    fences: list[int | None] | None = None,
) -> list[StoreError | None]:
    """Check every row's fence and sequence number and insert the good ones, in one
    transaction (the caller's). Returns, per row, None (inserted) or the refusal."""
    return with_fences(conn, rows, fences, lambda kept: _append_checked(conn, kept, stamp))


def _append_checked(
    conn: Connection, rows: list[ActionRow], stamp: datetime
) -> list[StoreError | None]:
    ids = sorted({r.game_id for r in rows})
    last: dict[int, int] = {}
    for chunk in chunks(ids):
        last.update({int(g): int(n) for g, n in conn.execute(_LAST_SEQS, {"ids": chunk})})
    outcomes, accepted = check_sequences(rows, last)
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


def check_sequences(
    rows: list[ActionRow],
    last: dict[int, int],
    reread: Callable[[int], int | None] | None = None,
) -> tuple[list[StoreError | None], list[ActionRow]]:
    """Per row, None (it is the next action of its game's log) or the refusal; and the
    rows to insert (see `sqlite_log.check_sequences`)."""
    outcomes = [
        refusal(o)
        for o in sqlite_log.check_sequences([(r.game_id, r.seq) for r in rows], last, reread)
    ]
    accepted = [r for r, o in zip(rows, outcomes, strict=True) if o is None]
    return outcomes, accepted


def sqlite_rows(rows: list[ActionRow]) -> list[sqlite_log.Row]:
    """The rows as `sqlite_log` inserts them (and a writer process's wire carries them)."""
    return [
        (r.game_id, r.seq, r.seat, r.action, None if r.at is None else sqlite_log.sqlite_time(r.at))
        for r in rows
    ]


def append_rows_sqlite(
    conn: Connection, rows: list[ActionRow], stamp: datetime, last: dict[int, int]
) -> list[StoreError | None]:
    """`append_rows` for an SQLite connection of the server's own: `sqlite_log.append_rows`
    on the driver's connection, in the caller's transaction, with the last sequence number
    of each game remembered in `last`."""
    raw = conn.connection.driver_connection
    assert raw is not None
    try:
        found = sqlite_log.append_rows(raw, sqlite_rows(rows), sqlite_log.sqlite_time(stamp), last)
    except sqlite3.IntegrityError as exc:
        raise IntegrityError(sqlite_log.INSERT_ACTION, None, exc) from exc
    return [refusal(o) for o in found]
