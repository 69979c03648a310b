"""Async engines for the store: SQLite (WAL, foreign keys, real transactions) or PostgreSQL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy import create_engine as sa_create_engine
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from .sqlite_log import PRAGMAS

# Seconds a PostgreSQL statement may take before it fails (see create_engine).
COMMAND_TIMEOUT = 10.0


def normalize_url(url: str | URL) -> URL:
    """Accept the sync spellings people type and return the async driver's URL."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite" and parsed.get_driver_name() != "aiosqlite":
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    elif backend == "postgresql" and parsed.get_driver_name() != "asyncpg":
        parsed = parsed.set(drivername="postgresql+asyncpg")
    return parsed


SQLITE_READONLY = 8  # the primary result code; extended codes keep it in their low byte


def is_sqlite(url: str | URL) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def create_engine(url: str | URL, **kwargs: Any) -> AsyncEngine:
    """An async engine; on SQLite every connection gets WAL, foreign keys and FULL sync."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "postgresql":
        # Fail in seconds, not a minute, when the server is down (readiness probes), and
        # replace pooled connections the server has dropped before using them.
        kwargs.setdefault("connect_args", {}).setdefault("timeout", 10)
        # A statement the server never answers (a partition, a paused server) fails after
        # this many seconds instead of stalling every write of the process behind it.
        kwargs["connect_args"].setdefault("command_timeout", COMMAND_TIMEOUT)
        kwargs.setdefault("pool_pre_ping", True)
    engine = create_async_engine(parsed, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        _configure_sqlite(engine.sync_engine, "BEGIN")
    return engine


def create_sync_sqlite_engine(url: str | URL, *, begin: str = "BEGIN") -> Engine:
    """A plain sqlite3 engine on the same file, configured like the async one."""
    parsed = make_url(url).set(drivername="sqlite")
    engine = sa_create_engine(parsed)
    _configure_sqlite(engine, begin)
    return engine


def _configure_sqlite(engine: Engine, begin: str) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the sqlite3 module, decide where transactions begin, so a
        # read followed by a write is one transaction (the driver would start it late).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            for pragma in PRAGMAS:  # the writer process applies the same (sqlite_log.py)
                cursor.execute(pragma)
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql(begin)

    @event.listens_for(engine, "handle_error")
    def _on_error(context: Any) -> None:
        # A file SQLite could open only for reading (its permissions, a read-only mount)
        # stays read-only for the connection's whole life: fixing the file changed nothing
        # until a restart. Such an error counts as a lost connection, so the pool opens
        # new ones (the caller sees the database as unavailable: 503, `STORAGE_ERROR`).
        if is_readonly_error(context.original_exception):
            context.is_disconnect = True


def is_readonly_error(exc: BaseException | None) -> bool:
    """SQLite's SQLITE_READONLY family ("attempt to write a readonly database")."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF == SQLITE_READONLY
    return exc is not None and "readonly database" in str(exc)
