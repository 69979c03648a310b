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

from spades.codes import ErrorCode

from .errors import WrongStatus

log = logging.getLogger(__name__)

Job = Callable[..., Awaitable[Any]]
# Told a posted command's outcome: None (done) or what it raised, and the command's tag.
Answer = Callable[[BaseException | None, Any], None]
# A queued command: the function, its arguments (no closure made per command), and either
# the future of its outcome or (posted) the function to tell it to and its tag.
Item = tuple[Job, tuple[Any, ...], "asyncio.Future[Any] | None", Answer | None, Any]


async def _STOP() -> None:  # the queue marker that ends the worker
    return None


class Actor:
    def __init__(self, name: str, after_each: Callable[[], None] | None = None) -> None:
        self.name = name
        self.closed = False
        self._after_each = after_each  # runs after every command, failed ones included
        # A deque and one waiter future instead of asyncio.Queue, and the loop kept: looking
        # up the running loop (as Queue.get and get_running_loop do) makes a system call.
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
                job, args, future, answer, tag = queue.popleft()
                if job is _STOP:
                    assert future is not None
                    future.set_result(None)
                    return
                if future is not None and future.done():
                    continue
                failure: BaseException | None = None
                try:
                    result = await job(*args)
                except asyncio.CancelledError as exc:
                    failure = WrongStatus("the room stopped", code=ErrorCode.ROOM_CLOSED)
                    if future is not None and not future.done():
                        future.set_exception(failure)
                    task = asyncio.current_task()
                    if task is not None and task.cancelling():
                        _tell(answer, failure, tag)
                        raise  # the worker itself is being stopped
                    # A job cancelled from inside (a wait it did was cancelled): its caller is
                    # answered, and the room goes on with the next command.
                    log.warning("%s: a command was cancelled: %r", self.name, exc)
                except Exception as exc:
                    failure = exc
                    if future is not None and not future.done():
                        future.set_exception(exc)
                else:
                    if future is not None and not future.done():
                        future.set_result(result)
                if answer is not None:
                    _tell(answer, failure, tag)
                if self._after_each is not None:
                    try:
                        self._after_each()
                    except Exception:
                        log.exception("%s: after a command", self.name)
        finally:
            # However the worker ends, nobody is left waiting on a command it will not run.
            self.closed = True
            while self._queue:
                job, _args, future, answer, tag = self._queue.popleft()
                if future is not None and not future.done():
                    if job is _STOP:
                        future.set_result(None)
                    else:
                        future.set_exception(
                            WrongStatus("this room is closed", code=ErrorCode.ROOM_CLOSED)
                        )
                if answer is not None:
                    _tell(
                        answer, WrongStatus("this room is closed", code=ErrorCode.ROOM_CLOSED), tag
                    )

    async def call(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run `fn(*args)` inside the actor, after every command queued before it."""
        return await self.submit(fn, *args)

    def submit(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> asyncio.Future[Any]:
        """`call` without waiting: queue `fn(*args)`; the future tells its outcome. Raises
        WrongStatus at once when the actor is closed."""
        if self.closed:
            raise WrongStatus("this room is closed", code=ErrorCode.ROOM_CLOSED)
        future: asyncio.Future[Any] = self._running_loop().create_future()
        self._put((fn, args, future, None, None))
        return future

    def post(self, fn: Job, args: tuple[Any, ...], answer: Answer, tag: Any = None) -> None:
        """`submit` without a future: queue `fn(*args)`; once it has run, `answer(None, tag)`,
        or `answer(exc, tag)` with what it raised, is called inside the actor (and for a
        command the actor never runs, when it stops). No future, no callback scheduled on
        the loop: the WebSocket endpoint posts every client message this way. Raises
        WrongStatus at once when the actor is closed."""
        if self.closed:
            raise WrongStatus("this room is closed", code=ErrorCode.ROOM_CLOSED)
        self._queue.append((fn, args, None, answer, tag))  # (_put, inline)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

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
        self._put((_STOP, (), done, None, None))
        try:
            await asyncio.wait_for(asyncio.shield(worker), 10)
        except (TimeoutError, asyncio.CancelledError):
            worker.cancel()


def _tell(answer: Answer | None, failure: BaseException | None, tag: Any) -> None:
    if answer is not None:
        try:
            answer(failure, tag)
        except Exception:
            log.exception("answering a command failed")
