"""Running bots for seats and hints without stalling the event loop."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from .observer import NO_OBSERVER, Observer, now

log = logging.getLogger(__name__)

Decide = Callable[..., dict[str, Any]]


def _default_decide(level: str, view: dict[str, Any], *, seed: int | None = None) -> dict[str, Any]:
    from spades.bots import decide

    return decide(level, view, seed=seed)


class BotRunner:
    """Cheap levels run inline; "strong" runs in a worker pool within a time budget.

    When the budget runs out the "basic" bot answers instead, so a turn never hangs.
    """

    def __init__(
        self,
        decide: Decide | None = None,
        *,
        workers: str = "process",
        budget: float = 2.0,
    ) -> None:
        self._decide = decide or _default_decide
        self._workers = workers
        self._budget = budget
        self._pool: Executor | None = None
        self.observer: Observer = NO_OBSERVER  # the manager hands its own

    def _executor(self) -> Executor:
        if self._pool is None:
            if self._workers == "process" and self._decide is _default_decide:
                # spawn, not fork: the server process has threads (the store's, uvicorn's).
                self._pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn")
                )
            else:
                self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bot")
        return self._pool

    async def decide(self, level: str, view: dict[str, Any], seed: int | None) -> dict[str, Any]:
        legal = view.get("legal") or []
        action: dict[str, Any] | None = None
        started = now()
        try:
            if level == "strong":
                loop = asyncio.get_running_loop()
                future = loop.run_in_executor(
                    self._executor(), _call, self._decide, level, view, seed
                )
                try:
                    action = await asyncio.wait_for(future, self._budget)
                except TimeoutError:
                    log.warning("strong bot over its %.1fs budget; basic bot answers", self._budget)
                    action = self._decide("basic", view, seed=seed)
            else:
                action = self._decide(level, view, seed=seed)
        except Exception as exc:
            # Its type and place, not its message: that may hold a card of the bot's hand.
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb else "?"
            log.error(
                "bot %s failed (%s at %s); playing the first legal action",
                level,
                type(exc).__name__,
                where,
            )
        self.observer.bot_decision(level, now() - started)
        if action not in legal and legal:
            action = legal[0]
        return dict(action or {})

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _call(decide: Decide, level: str, view: dict[str, Any], seed: int | None) -> dict[str, Any]:
    return decide(level, view, seed=seed)
