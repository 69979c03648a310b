"""Bookkeeping writes that follow a stored action (a hand's or game's end, the room's
status). The action is already in the log, so the room must go on: a failed write is
logged and retried, in order, until it goes through."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .clock import Clock

log = logging.getLogger(__name__)

STORE_RETRY_SECONDS = 1.0

Write = Callable[[], Awaitable[Any]]


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
                log.exception("room %s: %s failed; will retry", self.code, what)
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
                log.exception("room %s: %s failed again; will retry", self.code, what)
                return
            self.pending.pop(0)
            log.info("room %s: %s stored on retry", self.code, what)
