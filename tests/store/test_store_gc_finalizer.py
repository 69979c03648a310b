"""A connection leaked elsewhere, finalized by the garbage collector inside the store's own
database work, never stalls the store for good.

SQLAlchemy closes a garbage-collected, never-returned async connection from its weakref
finalizer. When the collection happens to run inside one of SQLAlchemy's greenlets (any
`run_sync`, any statement of this store), it awaits that other connection's close right
there, in this store's task. An aiosqlite connection whose event loop was closed under a
running statement has lost its worker thread, so that close never ends: the store's writer
waited forever, and with it every room (a hang of tests/rooms/test_room_hidden.py in a full
CI run, where earlier tests leave such connections behind). The store bounds every database
operation (`OPERATION_TIMEOUT`), which lets the finalizer give up and the work go on.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from spades.store import access as store_access
from spades.store import open_store


def _leak_a_connection_with_a_dead_thread(tmp_path: Path) -> tuple[threading.Thread, Any]:
    """On another event loop, now closed: a checked-out connection, dropped without being
    returned (cyclic garbage, so only the collector finds it), whose aiosqlite worker thread
    died answering that closed loop. Returns the dead thread and its queue of calls."""

    async def open_one() -> tuple[object, object, asyncio.Future[None]]:
        engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'leaked.db'}")
        conn = await engine.connect()
        await conn.execute(text("SELECT 1"))
        raw = (await conn.get_raw_connection()).driver_connection
        return conn, raw, asyncio.get_running_loop().create_future()

    loop = asyncio.new_event_loop()
    try:
        conn, raw, answer = loop.run_until_complete(open_one())
    finally:
        loop.close()
    thread: threading.Thread = raw._thread  # type: ignore[attr-defined]
    # What a statement still running when its loop closed does: the worker's answer to the
    # closed loop fails, and so does its error report, which ends the thread.
    raw._tx.put_nowait((answer, lambda: None))  # type: ignore[attr-defined]
    thread.join(5)
    cycle: list[object] = [conn]
    cycle.append(cycle)
    return thread, raw._tx  # type: ignore[attr-defined]


async def _finish_the_leaked_close(calls: Any) -> None:
    """SQLAlchemy's close of the leaked connection goes on in a task of its own, waiting
    for the dead thread: a new worker on its queue answers it, so the test's loop can end."""
    threading.Thread(target=aiosqlite.core._connection_worker_thread, args=(calls,)).start()
    for _ in range(100):
        if not any(
            "_terminate_graceful_close" in repr(task.get_coro()) for task in asyncio.all_tasks()
        ):
            return
        await asyncio.sleep(0.01)


# What this test provokes on purpose stays out of the suite's warnings summary: the leaked
# connection's worker thread dies answering its closed loop, and SQLAlchemy's finalizer
# warns about the connection nobody checked in, then gives its close up (CancelledError).
@pytest.mark.filterwarnings(
    r"ignore:Exception in thread .*\(_connection_worker_thread\)"
    ":pytest.PytestUnhandledThreadExceptionWarning",
    r"ignore:Exception ignored in. <finalize object:pytest.PytestUnraisableExceptionWarning",
    "ignore:The garbage collector is trying to clean up non-checked-in connection"
    ":sqlalchemy.exc.SAWarning",
    "ignore:Double checkin attempted:sqlalchemy.exc.SAWarning",
)
async def test_a_connection_leaked_elsewhere_never_stalls_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_access, "OPERATION_TIMEOUT", 1.0)
    store = await open_store("sqlite+aiosqlite:///:memory:")
    enabled = gc.isenabled()
    gc.disable()  # the leaked connection must be found by the collection below, not before
    try:
        dead, calls = await asyncio.to_thread(_leak_a_connection_with_a_dead_thread, tmp_path)
        assert not dead.is_alive()
        started = time.monotonic()
        # The collection runs inside the store's write (in SQLAlchemy's greenlet).
        await asyncio.wait_for(store._run_write(lambda conn: gc.collect()), 30)
        assert time.monotonic() - started < 15, "the write waited on the leaked connection"
        assert await store.ping()  # the store works on as before
    finally:
        if enabled:
            gc.enable()
        await _finish_the_leaked_close(calls)
        await store.close()
