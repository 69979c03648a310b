"""Calls that arrive together run together: a burst costs a few round trips, not one each.

A failover hands a process hundreds of rooms within a second or two, each wanting the same
store work (fence the room, read it). `Batcher` runs the first call at once (and a second
batch beside it), and gathers the calls that arrive while its batches are in flight into
the next one, so a lone call waits for nothing and a burst of N calls costs about
N / (calls per batch) round trips.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# What a batch answers for each key: its value, or the error that key's call raises.
Run = Callable[[list[K]], Awaitable[Mapping[K, V | BaseException]]]


class Batcher(Generic[K, V]):
    def __init__(self, run: Run[K, V], *, limit: int = 64, at_once: int = 2) -> None:
        self._run = run
        self.limit = limit
        # Batches in flight together: one round trip's wait need not hold the calls that
        # come meanwhile for a whole batch (the store has connections to spare).
        self.at_once = at_once
        self._waiting: list[tuple[K, asyncio.Future[V]]] = []
        self._running = 0
        self._tasks: set[asyncio.Task[None]] = set()  # kept: the loop holds tasks weakly
        self.batches = 0  # run so far (for tests and benches)

    async def __call__(self, key: K) -> V:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[V] = loop.create_future()
        self._waiting.append((key, future))
        if self._running < self.at_once:
            # A task of its own: a caller cancelled mid-batch must not cancel the others'.
            # Counted here and uncounted the moment it finds nothing left (not when its
            # task is done, later): a call in between would find no batch to take it.
            self._running += 1
            task = loop.create_task(self._drain(), name="batch")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[: self.limit], self._waiting[self.limit :]
                self.batches += 1
                try:
                    answers = await self._run(list(dict.fromkeys(key for key, _ in batch)))
                except Exception as exc:  # the whole batch failed: every call raises it
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for key, future in batch:
                    if future.done():  # its caller was cancelled
                        continue
                    answer = answers.get(key)
                    if answer is None and key not in answers:
                        future.set_exception(KeyError(key))
                    elif isinstance(answer, BaseException):
                        future.set_exception(answer)
                    else:
                        future.set_result(answer)  # type: ignore[arg-type]
        finally:
            self._running -= 1
