"""The game clock: when the game's time is up, the room is told (a `time_up` action).

Keyed on the game's id, never on a `Game` object: a failed write rebuilds the object, and
the clock must still fire for the same game. A failed `time_up` is tried again shortly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .clock import Clock
from .writes import STORE_RETRY_SECONDS

log = logging.getLogger(__name__)


class GameClock:
    def __init__(
        self,
        code: str,
        clock: Clock,
        time_up: Callable[[int], Awaitable[Any]],
        running: Callable[[int], bool],
    ) -> None:
        """`time_up(game_id)` ends the game's time inside the room's actor; `running(game_id)`
        says whether that game is still the room's, unfinished."""
        self.code = code
        self.clock = clock
        self._time_up = time_up
        self._running = running
        self.deadline: float | None = None
        self._task: asyncio.Task[None] | None = None

    def set(self, game_id: int | None, deadline: float | None) -> None:
        """Run out at `deadline` (None: no game clock)."""
        self.cancel()
        self.deadline = deadline
        if deadline is not None and game_id is not None:
            self._task = asyncio.create_task(self._run(game_id, deadline))

    def cancel(self) -> None:
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _run(self, game_id: int, deadline: float) -> None:
        while True:
            await self.clock.sleep_until(deadline)
            if not self._running(game_id):
                return
            try:
                await self._time_up(game_id)
                return
            except Exception as exc:
                log.warning(
                    "room %s: the game clock could not end the game (%s); will retry",
                    self.code,
                    exc,
                    extra={"room": self.code, "seat": None},
                )
                deadline = self.clock.now() + STORE_RETRY_SECONDS
