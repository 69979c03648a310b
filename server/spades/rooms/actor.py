"""The actor: one queue of commands per room, run one at a time, in order, by one task.

Everything that changes a room runs inside its actor (`call`), so the room's parts need no
locks. Side tasks (bots thinking, clocks waiting) wait outside and then `call` in.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from .errors import WrongStatus

log = logging.getLogger(__name__)

Job = Callable[..., Awaitable[Any]]
# A queued command: the function, its arguments (no closure made per command), its outcome.
Item = tuple[Job, tuple[Any, ...], "asyncio.Future[Any]"]


async def _STOP() -> None:  # the queue marker that ends the worker
    return None


class Actor:
    def __init__(self, name: str, after_each: Callable[[], None] | None = None) -> None:
        self.name = name
        self.closed = False
        self._after_each = after_each  # runs after every command, failed ones included
        # A deque and one waiter future instead of asyncio.Queue, and the loop kept: on
        # Python 3.11 every lookup of the running loop (Queue.get, create_future through
        # get_running_loop, ...) is a getpid() system call, several per action.
        self._queue: deque[Item] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._worker: asyncio.Task[None] | None = None
        self._side_tasks: set[asyncio.Task[Any]] = set()

    def start(self) -> None:
        if self._worker is None:
            self._worker = self._running_loop().create_task(self._run(), name=self.name)

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None or loop.is_closed():
            loop = self._loop = asyncio.get_running_loop()
        return loop

    def _put(self, item: Item) -> None:
        self._queue.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def _run(self) -> None:
        queue = self._queue
        try:
            while True:
                while not queue:  # (inline: no coroutine per command to fetch the next)
                    waiter = self._waiter = self._running_loop().create_future()
                    try:
                        await waiter
                    finally:
                        self._waiter = None
                job, args, future = queue.popleft()
                if job is _STOP:
                    future.set_result(None)
                    return
                if future.done():
                    continue
                try:
                    result = await job(*args)
                except asyncio.CancelledError as exc:
                    if not future.done():
                        future.set_exception(WrongStatus("the room stopped", code="room_closed"))
                    task = asyncio.current_task()
                    if task is not None and task.cancelling():
                        raise  # the worker itself is being stopped
                    # A job cancelled from inside (a wait it did was cancelled): its caller is
                    # answered, and the room goes on with the next command.
                    log.warning("%s: a command was cancelled: %r", self.name, exc)
                except Exception as exc:
                    if not future.done():
                        future.set_exception(exc)
                else:
                    if not future.done():
                        future.set_result(result)
                if self._after_each is not None:
                    try:
                        self._after_each()
                    except Exception:
                        log.exception("%s: after a command", self.name)
        finally:
            # However the worker ends, nobody is left waiting on a command it will not run.
            self.closed = True
            while self._queue:
                job, _args, future = self._queue.popleft()
                if not future.done():
                    if job is _STOP:
                        future.set_result(None)
                    else:
                        future.set_exception(WrongStatus("this room is closed", code="room_closed"))

    async def call(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run `fn(*args)` inside the actor, after every command queued before it."""
        return await self.submit(fn, *args)

    def submit(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> asyncio.Future[Any]:
        """`call` without waiting: queue `fn(*args)`; the future tells its outcome. Raises
        WrongStatus at once when the actor is closed."""
        if self.closed:
            raise WrongStatus("this room is closed", code="room_closed")
        future: asyncio.Future[Any] = self._running_loop().create_future()
        self._put((fn, args, future))
        return future

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """A side task, cancelled when the actor stops."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)
        return task

    async def stop(self) -> None:
        """Stop taking commands, let the ones queued finish (so nothing is half stored)."""
        self.closed = True
        for task in list(self._side_tasks):
            if task is not asyncio.current_task():
                task.cancel()
        worker = self._worker
        if worker is None or worker is asyncio.current_task() or worker.done():
            return
        done: asyncio.Future[Any] = self._running_loop().create_future()
        self._put((_STOP, (), done))
        try:
            await asyncio.wait_for(asyncio.shield(worker), 10)
        except (TimeoutError, asyncio.CancelledError):
            worker.cancel()
