"""The PostgreSQL writer process: the script of the child that inserts the hot path's appends.

The server runs it as `python -I pg_log.py` with the database's address in the environment
(`SPADES_PG_LOG_DSN`, not the command line, which every local user can read) and talks to
it in `sqlite_log`'s frames over the child's stdin and stdout.

Why a child process: on the server's own asyncpg connection (`SPADES_PG_WRITER=inline`)
the driver's work for each group commit (a coroutine per statement, the bind message, five
arrays encoded, the reply parsed) runs on the event loop's thread (docs/performance.md,
"The store's figures"). Here the server pays one pipe write and one read per batch, as it
does for SQLite's writer process.

Only the rows that follow the counts the server remembers come here (`SqlStore`'s fast
path): the statement is one atomic INSERT whose primary key (game_id, seq) refuses a number
another writer took. Everything else (checked appends, fenced appends, finished hands,
rooms) stays on the server's own connections.

Request: `(now, rows)` or `(now, rows, fences)`, rows as `(game_id, seq, seat, action, at)`,
times as ISO 8601 text with an offset (`at` None: `now`), fences one per row (a cluster
owner's, `INSERT_FENCED_ACTIONS`). Answer: `("ok", count)` (committed: every row, or with
fences none when one did not match); `("integrity",
message)` (nothing stored: a remembered count was behind the log); `("lost", message)`
(the connection failed or timed out: the rows may or may not be stored; the next request
connects anew); or `("error", message)` (the statement was refused: nothing stored).
The child exits when its stdin closes and ignores SIGINT and SIGTERM, as SQLite's does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from datetime import datetime
from typing import Any

import asyncpg
import orjson

if __package__:  # imported by the server, for its names
    from . import sqlite_log
else:  # run as the writer's script. The frames are sqlite_log's; `-I` keeps this script's
    # folder off sys.path (nothing there may shadow a module the driver imports): appended
    # last, it adds sqlite_log and cannot shadow, as the standard library comes first.
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    import sqlite_log  # type: ignore[no-redef]

DSN_VARIABLE = "SPADES_PG_LOG_DSN"
TIMEOUT_VARIABLE = "SPADES_PG_LOG_TIMEOUT"

# One statement for the whole batch (a column per array), so it is atomic on its own.
INSERT_ACTIONS = (
    "INSERT INTO actions (game_id, seq, seat, action, at) "
    "SELECT * FROM unnest($1::integer[], $2::integer[], $3::integer[], $4::json[], "
    "$5::timestamptz[])"
)

# The same for a cluster owner's appends, each with its room's fence ($6): all the rows or
# none. It locks the batch's rooms as the checked path does (`fences.lock_fences`: in id order,
# so two processes cannot deadlock, and a claim waits for this insert or this insert sees
# the claim), then inserts only if every row's fence is its room's. Any other case (a
# newer owner, a fence to raise, no such game) inserts nothing, and the store takes the
# checked path, which tells each row's refusal. The count(*) makes the lock read run to the
# end before the first row goes in.
INSERT_FENCED_ACTIONS = (
    "WITH batch AS MATERIALIZED (SELECT * FROM unnest($1::integer[], $2::integer[], "
    "$3::integer[], $4::json[], $5::timestamptz[], $6::bigint[]) "
    "AS b(game_id, seq, seat, action, at, fence)), "
    "locked AS MATERIALIZED (SELECT rooms.id, rooms.fence FROM rooms WHERE rooms.id IN "
    "(SELECT games.room_id FROM games WHERE games.id = ANY($1::integer[])) "
    "ORDER BY rooms.id FOR NO KEY UPDATE OF rooms) "
    "INSERT INTO actions (game_id, seq, seat, action, at) "
    "SELECT game_id, seq, seat, action, at FROM batch "
    "WHERE (SELECT count(*) FROM locked) >= 0 AND NOT EXISTS (SELECT 1 FROM batch "
    "LEFT JOIN games ON games.id = batch.game_id LEFT JOIN locked ON locked.id = games.room_id "
    "WHERE locked.fence IS DISTINCT FROM batch.fence)"
)


def inserted(status: str) -> int:
    """The row count of an INSERT's status ("INSERT 0 12")."""
    return int(status.rsplit(" ", 1)[-1])


# The connection is lost, or the outcome of its statement is in doubt.
LOST = (asyncpg.PostgresConnectionError, asyncpg.InterfaceError, OSError, TimeoutError)


class Inserter:
    """One connection, opened on the first request and again after it was lost."""

    def __init__(self, dsn: str, timeout: float) -> None:
        self.dsn = dsn
        self.timeout = timeout
        self.conn: Any = None

    async def insert(self, request: Any) -> tuple[str, Any]:
        now_text, rows, *fenced = request
        now = datetime.fromisoformat(now_text)
        columns: tuple[list[Any], ...] = ([], [], [], [], [])
        for game_id, seq, seat, action, at in rows:
            columns[0].append(game_id)
            columns[1].append(seq)
            columns[2].append(seat)
            columns[3].append(orjson.dumps(action).decode())
            columns[4].append(now if at is None else datetime.fromisoformat(at))
        try:
            if self.conn is None or self.conn.is_closed():
                self.conn = await asyncpg.connect(
                    self.dsn, timeout=self.timeout, command_timeout=self.timeout
                )
            if fenced:
                status = await self.conn.execute(INSERT_FENCED_ACTIONS, *columns, fenced[0])
            else:
                status = await self.conn.execute(INSERT_ACTIONS, *columns)
        except asyncpg.IntegrityConstraintViolationError as exc:
            return ("integrity", str(exc))
        except LOST as exc:
            conn, self.conn = self.conn, None
            if conn is not None:
                with contextlib.suppress(Exception):
                    conn.terminate()
            return ("lost", repr(exc))
        except Exception as exc:  # the statement's own refusal (a bad value): nothing stored
            return ("error", repr(exc))
        return ("ok", inserted(status))


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # As SQLite's writer: woken by the server, this process does not preempt its event loop.
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    inserter = Inserter(os.environ[DSN_VARIABLE], float(os.environ.get(TIMEOUT_VARIABLE, "10")))
    loop = asyncio.new_event_loop()
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sink.write(sqlite_log.frame(("ready", None)))
    sink.flush()
    try:
        while True:
            # A blocking read between requests: there is one at a time, and nothing else
            # for this process to do meanwhile.
            request = sqlite_log.read_frame(source)
            if request is None:  # the server closed our stdin, or is gone
                break
            try:
                answer = loop.run_until_complete(inserter.insert(request))
            except Exception as exc:  # a malformed request: say so, stay up
                answer = ("error", repr(exc))
            sink.write(sqlite_log.frame(answer))
            sink.flush()
    finally:
        if inserter.conn is not None:
            with contextlib.suppress(Exception):
                loop.run_until_complete(inserter.conn.close(timeout=2))
        loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
