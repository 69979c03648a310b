"""Bookkeeping writes that follow a stored action (a hand's or game's end, the room's
status). The action is already in the log, so the room must go on: a failed write is
logged and retried, in order, until it goes through."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from spades.codes import ErrorCode
from spades.store.protocol import FencedOut

from .clock import Clock
from .errors import RoomError, RoomMoved

log = logging.getLogger(__name__)

STORE_RETRY_SECONDS = 1.0
# While the database is away every room fails (and retries) once a second: the first
# failure is logged whole, with its traceback; those that follow within this many seconds
# are counted, and said in one line each time this much has passed.
FAILURE_DETAIL_EVERY = 30.0


class StoreFailures:
    """Logs store failures without flooding the log during an outage (a process-wide
    budget): one failure in full each FAILURE_DETAIL_EVERY seconds, and before it a count
    of those left out since, with the last of them in a few words."""

    def __init__(self, every: float = FAILURE_DETAIL_EVERY) -> None:
        self.every = every
        # Every failure, logged in full or not (`/metrics`: spades_store_failures_total).
        self.count = 0
        self._last_full = -float("inf")
        self._left_out = 0
        self._rooms: set[str] = set()
        self._last_words = ""

    def log(self, logger: logging.Logger, code: str, fmt: str, *args: Any, **kw: Any) -> None:
        """As `logger.exception(fmt, *args, **kw)` for room `code`, within the budget."""
        self.count += 1
        now = time.monotonic()
        if now - self._last_full < self.every:
            self._left_out += 1
            self._rooms.add(code)
            exc = kw.get("exc_info")
            self._last_words = (fmt % args) + f" ({_short(exc)})"
            return
        if self._left_out:
            logger.error(
                "%d more store failure(s) in %d room(s) since the last one logged in full "
                "(the last: %s)",
                self._left_out,
                len(self._rooms),
                self._last_words,
            )
        self._last_full, self._left_out, self._rooms = now, 0, set()
        kw.setdefault("exc_info", True)
        logger.error(fmt, *args, **kw)


def _short(exc: Any) -> str:
    if exc is None or exc is True:
        exc = sys.exc_info()[1]
    return repr(exc)[:200] if exc is not None else "no exception"


store_failures = StoreFailures()

Write = Callable[[], Awaitable[Any]]


async def write_first(code: str, write: Awaitable[Any]) -> Any:
    """A write that comes before any change of room `code`: its failure refuses the command."""
    try:
        return await write
    except Exception as exc:
        if isinstance(exc, FencedOut):
            raise RoomMoved("the room moved to another process: reconnect") from exc
        store_failures.log(
            log, code, "room %s: a write failed", code, extra={"room": code, "seat": None}
        )
        raise RoomError("that could not be saved; try again", code=ErrorCode.STORAGE_ERROR) from exc


class Bookkeeping:
    """`call_in` runs a function inside the room's actor; `spawn` starts a side task."""

    def __init__(
        self,
        code: str,
        clock: Clock,
        call_in: Callable[[Callable[[], Awaitable[None]]], Awaitable[Any]],
        spawn: Callable[[Any], Any],
    ) -> None:
        self.code = code
        self.clock = clock
        self._call_in = call_in
        self._spawn = spawn
        self.pending: list[tuple[str, Write]] = []
        self._retrying = False

    async def write(self, what: str, write: Write) -> None:
        """Try now (unless older writes wait: order matters); on failure, retry later."""
        if not self.pending:
            try:
                await write()
                return
            except Exception:
                store_failures.log(
                    log, self.code, "room %s: %s failed; will retry", self.code, what
                )
        self.pending.append((what, write))
        if not self._retrying:
            self._retrying = True
            self._spawn(self._retry())

    async def _retry(self) -> None:
        try:
            while self.pending:
                await self.clock.sleep_until(self.clock.now() + STORE_RETRY_SECONDS)
                await self._call_in(self.flush)
        except Exception:  # the room closed: a reload retries from the log
            return
        finally:
            self._retrying = False

    async def flush(self) -> None:
        """Inside the actor: the waiting writes, in order, up to the first that fails."""
        while self.pending:
            what, write = self.pending[0]
            try:
                await write()
            except Exception:
                store_failures.log(
                    log, self.code, "room %s: %s failed again; will retry", self.code, what
                )
                return
            self.pending.pop(0)
            log.info("room %s: %s stored on retry", self.code, what)
