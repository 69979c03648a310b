"""How the database's failures reach the store's callers: as `protocol`'s errors."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from . import sqlite_log
from .db import is_readonly_error
from .protocol import NotFound, SequenceError, StorageUnavailable, StoreError


def connection_lost(exc: BaseException) -> bool:
    """The connection cannot go on (invalidated, or SQLite's read-only connection)."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    return is_readonly_error(exc) or is_readonly_error(getattr(exc, "orig", None))


def as_unavailable(exc: BaseException) -> StorageUnavailable | None:
    """The database was unreachable or did not answer (not: it refused the statement), or
    no connection of the pool came free in time (every one busy: an overloaded database)."""
    if isinstance(exc, StoreError):
        return None
    kinds = OSError | TimeoutError | PoolTimeout | OperationalError | InterfaceError
    lost = isinstance(exc, kinds) or (isinstance(exc, DBAPIError) and exc.connection_invalidated)
    if not lost:
        return None
    failure = StorageUnavailable(f"the database is unavailable: {exc!r}")
    failure.__cause__ = exc
    return failure


@contextlib.contextmanager
def unavailable_as_store_error() -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        failure = as_unavailable(exc)
        if failure is None:
            raise
        raise failure from exc


def refusal(outcome: sqlite_log.Outcome) -> StoreError | None:
    """`sqlite_log`'s outcome of one append as the caller's error (None: stored)."""
    if outcome is None:
        return None
    kind, message = outcome
    return NotFound(message) if kind == "notfound" else SequenceError(message)
