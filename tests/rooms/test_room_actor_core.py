"""The actor itself: no caller is ever left waiting, whatever a command or the worker does."""

from __future__ import annotations

import asyncio

import pytest

from spades.rooms.actor import Actor
from spades.rooms.errors import WrongStatus


async def test_a_command_cancelled_from_inside_fails_alone() -> None:
    actor = Actor("test")
    actor.start()

    async def cancelled() -> None:
        raise asyncio.CancelledError  # a wait inside the command was cancelled

    async def fine() -> str:
        return "ok"

    with pytest.raises(WrongStatus):
        await actor.call(cancelled)
    assert await actor.call(fine) == "ok"  # the room goes on
    await actor.stop()


async def test_a_failing_after_each_does_not_stop_the_room() -> None:
    calls = 0

    def after() -> None:
        nonlocal calls
        calls += 1
        raise RuntimeError("a bug after a command")

    actor = Actor("test", after_each=after)
    actor.start()

    async def one() -> int:
        return 1

    assert await actor.call(one) == 1
    assert await actor.call(one) == 1
    assert calls == 2
    await actor.stop()


async def test_callers_queued_behind_a_cancelled_worker_are_answered() -> None:
    actor = Actor("test")
    actor.start()
    gate = asyncio.Event()

    async def slow() -> None:
        await gate.wait()

    async def later() -> str:
        return "never"

    first = asyncio.ensure_future(actor.call(slow))
    queued = [asyncio.ensure_future(actor.call(later)) for _ in range(3)]
    await asyncio.sleep(0)
    assert actor._worker is not None
    actor._worker.cancel()
    results = await asyncio.wait_for(
        asyncio.gather(first, *queued, return_exceptions=True), timeout=5
    )
    assert all(isinstance(r, WrongStatus) for r in results)
    with pytest.raises(WrongStatus):
        await actor.call(later)  # closed: refused at once, not queued forever
