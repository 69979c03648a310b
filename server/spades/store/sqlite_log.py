"""The SQLite action log's append path, shared by the server and its writer process.

This module imports nothing but the standard library: the server runs it as the script of
its SQLite writer process (`python -I sqlite_log.py FILE`), and the store's own thread path
uses the same functions.

Why a writer process: a thread in the server holds the GIL whenever it runs Python (the
sequence checks, the insert's parameters, the driver's own steps) and the event loop cannot
run meanwhile; every batch also pays a hand-off of the GIL to that thread and back
(docs/performance.md, "The store's figures"). The child does the same work on its own
interpreter; the server pays one pipe write and one read per batch.

Wire format, both ways over the child's stdin/stdout: a 4-byte big-endian length, then a
`marshal` payload (a C codec for exactly the plain values an action holds; a JSON round
trip would cost the server more). Request: `(now, rows)` or `(now, rows, hands)`, rows as
`(game_id, seq, seat, action, at)` with times in SQLite's text form (`at` None: `now`), and
hands (the summary row of each finished hand, in the same transaction) as
`(game_id, hand_number, summary)`.
Answer: `("ok", outcomes)` with one `None`, `("seq", message)` or `("notfound", message)`
per row; `("integrity", message)` (nothing committed: a remembered count was behind the
log, retry row by row); or `("error", message)` (nothing committed). The child exits when
its stdin closes, so it ends with the server (within about 2 s of a `kill -9`), and it
ignores SIGINT and SIGTERM: a Ctrl-C at the terminal reaches the whole process group while
the server may still have appends to finish.
"""

from __future__ import annotations

import contextlib
import functools
import json
import marshal
import os
import signal
import sqlite3
import struct
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, BinaryIO

BUSY_TIMEOUT_MS = 10_000
PRAGMAS = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
    "PRAGMA journal_mode = WAL",
    "PRAGMA foreign_keys = ON",
    # FULL: a commit is on disk when it returns, so an appended action is durable.
    "PRAGMA synchronous = FULL",
)

# Games whose last sequence number an appender remembers (then it starts afresh).
SEQ_CACHE = 100_000

INSERT_ACTION = "INSERT INTO actions (game_id, seq, seat, action, at) VALUES "
# Rows per INSERT: 5 parameters each stays under SQLite's oldest default limit of 999.
INSERT_CHUNK = 199

LAST_SEQ = (
    "SELECT games.id, COALESCE(MAX(actions.seq), 0) FROM games "
    "LEFT OUTER JOIN actions ON actions.game_id = games.id WHERE games.id = ? GROUP BY games.id"
)

# One row: (game_id, seq, seat, action, at); an outcome: None (stored) or (kind, message).
Row = tuple[int, int, int | None, dict[str, Any], str | None]
Outcome = tuple[str, str] | None
# A finished hand's row: (game_id, hand_number, summary); its bids, tricks, points and bags
# columns are copies of the summary's (`models.HandModel`).
Hand = tuple[int, int, dict[str, Any]]

INSERT_HAND = (
    "INSERT INTO hands (game_id, hand_number, bids, tricks, points, bags, summary) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


@functools.lru_cache(maxsize=INSERT_CHUNK)
def _insert_actions(rows: int) -> str:
    return INSERT_ACTION + ", ".join(["(?, ?, ?, ?, ?)"] * rows)


def sqlite_time(value: datetime) -> str:
    """A datetime as UTCDateTime stores it on SQLite (naive UTC, SQLAlchemy's text form)."""
    if value.tzinfo is not None:
        if value.tzinfo is not UTC:
            value = value.astimezone(UTC)
        value = value.replace(tzinfo=None)
    # isoformat writes the same text as strftime("%Y-%m-%d %H:%M:%S.%f"), and is the
    # cheaper of the two (it runs once per stored action).
    return value.isoformat(" ", "microseconds")


def check_sequences(
    keys: Sequence[tuple[int, int]],
    last: dict[int, int],
    reread: Callable[[int], int | None] | None = None,
) -> list[Outcome]:
    """Per (game_id, seq), None (the next action of its game's log) or the refusal.

    `last` holds each game's last sequence number and is advanced; when a row does not fit,
    `reread` (if given) reads its game's count from the log once before the refusal stands.
    """
    outcomes: list[Outcome] = []
    fresh: set[int] = set()  # games whose count was read again in this batch
    for game_id, seq in keys:
        previous = last.get(game_id)
        fits = previous is not None and seq == previous + 1
        if not fits and reread is not None and game_id not in fresh:
            fresh.add(game_id)
            previous = reread(game_id)
        if previous is None:
            outcomes.append(("notfound", f"no game {game_id}"))
        elif seq != previous + 1:
            message = f"game {game_id}: the next action is seq {previous + 1}, not {seq}"
            outcomes.append(("seq", message))
        else:
            last[game_id] = seq
            outcomes.append(None)
    return outcomes


def append_rows(
    raw: sqlite3.Connection, rows: Sequence[Row], now: str, last: dict[int, int]
) -> list[Outcome]:
    """Check and insert `rows` in the caller's transaction.

    A refusal is never made on a remembered count alone: the game's count is read again
    inside this transaction (another writer may have appended since), and only then
    refused. A remembered count that is behind the log makes the insert fail instead
    (primary key, sqlite3.IntegrityError), and the caller retries row by row with `last`
    cleared.
    """
    cursor = raw.cursor()

    def read(game_id: int) -> int | None:
        found = cursor.execute(LAST_SEQ, (game_id,)).fetchone()
        if found is None:
            last.pop(game_id, None)
            return None
        last[game_id] = int(found[1])
        return last[game_id]

    try:
        outcomes = check_sequences([(r[0], r[1]) for r in rows], last, read)
        accepted = [r for r, outcome in zip(rows, outcomes, strict=True) if outcome is None]
        # One multi-row INSERT per chunk, not executemany: in the server's own thread the
        # driver lets go of the GIL around every statement step, and getting it back from a
        # busy event loop can cost up to a switch interval each time.
        for start in range(0, len(accepted), INSERT_CHUNK):
            chunk = accepted[start : start + INSERT_CHUNK]
            values: list[Any] = []
            for game_id, seq, seat, action, at in chunk:
                values += (game_id, seq, seat, json.dumps(action), now if at is None else at)
            cursor.execute(_insert_actions(len(chunk)), values)
    finally:
        cursor.close()
    return outcomes


def insert_hands(raw: sqlite3.Connection, hands: Sequence[Hand]) -> None:
    """Insert finished hands' rows in the caller's transaction (a hand stored already, or
    of no game: sqlite3.IntegrityError). JSON as SQLAlchemy's JSON type writes it."""
    for game_id, number, summary in hands:
        columns = [json.dumps(summary.get(key)) for key in ("bids", "tricks", "points", "bags")]
        raw.execute(INSERT_HAND, (game_id, number, *columns, json.dumps(summary)))


def commit(raw: sqlite3.Connection, last: dict[int, int], request: Any) -> Any:
    """One request of the writer process: the rows in one transaction, and the answer."""
    now, rows, *more = request
    raw.execute("BEGIN IMMEDIATE")
    try:
        outcomes = append_rows(raw, rows, now, last)
        if more and more[0]:
            insert_hands(raw, more[0])
        raw.execute("COMMIT")
    except Exception as exc:
        if raw.in_transaction:
            raw.execute("ROLLBACK")
        last.clear()
        kind = "integrity" if isinstance(exc, sqlite3.IntegrityError) else "error"
        return (kind, repr(exc))
    if len(last) > SEQ_CACHE:
        last.clear()
    return ("ok", outcomes)


HEADER = struct.Struct(">I")


def frame(value: Any) -> bytes:
    body = marshal.dumps(value)
    return HEADER.pack(len(body)) + body


def read_frame(stream: BinaryIO) -> Any:
    """The next message, or None when the stream ended."""
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    (size,) = HEADER.unpack(head)
    body = stream.read(size)
    if len(body) < size:
        return None
    return marshal.loads(body)


def _open(path: str) -> sqlite3.Connection:
    raw = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    for pragma in PRAGMAS:
        raw.execute(pragma)
    return raw


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # SCHED_BATCH: woken by the server's request, this process does not preempt the server's
    # event loop on a busy core (Linux's wake-up preemption would); it runs on an idle core,
    # or when the loop's slice ends. Same priority otherwise.
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    raw = _open(argv[0])
    last: dict[int, int] = {}
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sink.write(frame(("ready", None)))
    sink.flush()
    while True:
        request = read_frame(source)
        if request is None:  # the server closed our stdin, or is gone
            break
        answer = commit(raw, last, request)
        if answer[0] == "error" and "readonly database" in answer[1]:
            # Opened while the file could only be read: SQLite keeps such a connection
            # read-only for good. A new one sees the file as it is now (fixed, or not yet).
            with contextlib.suppress(sqlite3.Error):
                raw.close()
                raw = _open(argv[0])
        sink.write(frame(answer))
        sink.flush()
    raw.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
