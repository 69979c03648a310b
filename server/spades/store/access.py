"""The store's SQLAlchemy transactions and reads, each bounded in time."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .db import is_sqlite
from .failures import unavailable_as_store_error
from .protocol import StoreError

# Seconds one database operation (a transaction or a read, the wait for SQLite's write turn
# included) may take before it fails as StorageUnavailable, so no caller waits forever. Far
# above any real operation (SQLite's busy timeout and PostgreSQL's statement timeout); it is
# there for a wait nothing will end, such as this: the garbage collector running inside one
# of SQLAlchemy's greenlets finalizes a connection leaked elsewhere (another engine, another
# event loop) and, seeing a greenlet, awaits that connection's close in ours; if its driver
# thread is gone (aiosqlite's dies when its loop was closed under it), that close never
# ends and would take this store's writer (and every room) with it.
OPERATION_TIMEOUT = 60.0


class Access:
    """Transactions (`write`) and connections (`read`) of the store's engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        # SQLite has one writer at a time; taking turns here avoids busy waits and
        # lock-upgrade failures between this process's own connections.
        self.write_lock = asyncio.Lock() if is_sqlite(engine.url) else None
        self.closed = False

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        if self.closed:
            raise StoreError("the store is closed")
        with unavailable_as_store_error():
            async with asyncio.timeout(OPERATION_TIMEOUT):
                if self.write_lock is None:
                    async with self.engine.begin() as conn:
                        yield conn
                    return
                async with self.write_lock, self.engine.begin() as conn:
                    yield conn

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        if self.closed:
            raise StoreError("the store is closed")
        with unavailable_as_store_error():
            async with asyncio.timeout(OPERATION_TIMEOUT), self.engine.connect() as conn:
                yield conn
