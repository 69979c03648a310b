"""Running bots for seats and hints without stalling the event loop."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import (
    BrokenExecutor,
    Executor,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
)
from typing import Any

from .observer import NO_OBSERVER, Observer, now

log = logging.getLogger(__name__)

Decide = Callable[..., dict[str, Any]]

# The worker stops searching at this share of the budget after the decision was asked for
# (queue wait included) and plays its best card so far; basic answers only past the budget.
SEARCH_SHARE = 0.4


def _default_decide(level: str, view: dict[str, Any], *, seed: int | None = None) -> dict[str, Any]:
    from spades.bots import decide

    return decide(level, view, seed=seed)


def _capped_decide(
    level: str, view: dict[str, Any], seed: int | None, deadline: float, iterations: int = 0
) -> tuple[dict[str, Any], bool, bool]:
    """In a worker: the strong search with its fixed iterations, cut short at `deadline`
    (a `time.time()` set when the decision was asked for, so a wait in the queue counts);
    whether it was cut short, and whether so early that the basic plan's move was played."""
    from spades.bots.strong import SearchStats, decide_strong

    # Nothing left (a long wait in the queue): the search plays the basic plan's move at once.
    left_ms = max(0.0, (deadline - time.time()) * 1000.0)
    stats = SearchStats()
    action = decide_strong(
        view, seed=seed, iterations=iterations or None, budget_ms=left_ms, stats=stats
    )
    return action, stats.cut, stats.thin


def _warm() -> int:
    """In a new worker: import the search, so the first decision does not pay for it."""
    import spades.bots.strong  # noqa: F401

    return os.getpid()


def _exit_with_parent() -> None:
    """In a new worker: end it when the server process dies, even by `kill -9`. Nothing of
    the pool's shutdown runs then, and a worker blocked on the pool's job pipe waited for
    ever (reparented to init, about 40 MB each, after every crash)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def pool_size(processes: int) -> int:
    """Worker processes for searching bots: the setting, or the machine's cores when 0."""
    return processes if processes > 0 else max(1, os.cpu_count() or 1)


class BotRunner:
    """Cheap levels run inline; "strong" runs in a worker pool within a time budget.

    The pool has `processes` workers (0: one per CPU core), all started with the first strong
    decision (their start-up is not charged to it). A strong decision is fixed by its
    iterations and seed; as a safety cap the worker stops searching at 40% of `budget` after
    the decision was asked for (a wait in the queue counts) and plays its best card so far,
    and if the answer is still not back at `budget` (a broken or stuck worker) the "basic"
    bot answers instead, so a turn never hangs.
    Those fallbacks are counted (`Observer.bot_fallback`). A decision with one legal action
    never leaves the event loop.
    """

    def __init__(
        self,
        decide: Decide | None = None,
        *,
        workers: str = "process",
        budget: float = 2.0,
        processes: int = 0,
        iterations: int = 0,
    ) -> None:
        self._decide = decide or _default_decide
        self._iterations = iterations  # rollouts per strong decision; 0: the bot's default
        self._workers = workers
        self._budget = budget
        self.processes = pool_size(processes)
        self._pool: Executor | None = None
        self._ready: asyncio.Future[Any] | None = None  # the workers' start-up
        self.observer: Observer = NO_OBSERVER  # the manager hands its own

    def _executor(self) -> Executor:
        if self._pool is None:
            if self._workers == "process" and self._decide is _default_decide:
                # spawn, not fork: the server process has threads (the store's, uvicorn's).
                self._pool = ProcessPoolExecutor(
                    max_workers=self.processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_exit_with_parent,
                )
                # Start every worker now; their start-up is not charged to a decision.
                loop = asyncio.get_running_loop()
                self._ready = asyncio.gather(
                    *(loop.run_in_executor(self._pool, _warm) for _ in range(self.processes)),
                    return_exceptions=True,
                )
            else:
                self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bot")
        return self._pool

    async def decide(self, level: str, view: dict[str, Any], seed: int | None) -> dict[str, Any]:
        legal = view.get("legal") or []
        action: dict[str, Any] | None = None
        started = now()
        try:
            if level == "strong" and len(legal) == 1:
                action = dict(legal[0])  # an obvious move costs no search
            elif level == "strong":
                action = await self._search(level, view, seed)
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

    async def _search(self, level: str, view: dict[str, Any], seed: int | None) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        pool = self._executor()
        if self._ready is not None and not self._ready.done():
            await asyncio.wait([self._ready], timeout=60.0)
        try:
            if self._decide is _default_decide:
                deadline = time.time() + self._budget * SEARCH_SHARE
                capped = loop.run_in_executor(
                    pool, _capped_decide, level, view, seed, deadline, self._iterations
                )
                action, cut, thin = await asyncio.wait_for(capped, self._budget)
                if cut:
                    self.observer.bot_search_cut(level)
                if thin:
                    self.observer.bot_search_thin(level)
                return action
            future = loop.run_in_executor(pool, _call, self._decide, level, view, seed)
            return await asyncio.wait_for(future, self._budget)
        except TimeoutError:
            log.warning("strong bot over its %.1fs budget; basic bot answers", self._budget)
        except BrokenExecutor:
            log.error("the strong bot's worker pool broke; basic bot answers, pool restarts")
            self._pool = None
        self.observer.bot_fallback(level)
        return self._decide("basic", view, seed=seed)

    def close(self) -> None:
        pool, self._pool, self._ready = self._pool, None, None
        if pool is None:
            return
        # The executor's own list of its worker processes (no public way to reach them):
        # shutdown(wait=False) only asks, and a worker in the middle of a search, or one
        # blocked on the call queue, outlived the server after a SIGTERM (reparented to
        # init, 38 MB each). Stopping the server ends them.
        workers = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
        for worker in workers:
            worker.join(timeout=2.0)
            if worker.is_alive():
                worker.kill()
                worker.join(timeout=2.0)


def _call(decide: Decide, level: str, view: dict[str, Any], seed: int | None) -> dict[str, Any]:
    return decide(level, view, seed=seed)
