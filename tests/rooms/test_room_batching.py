"""Batcher: calls that arrive while a batch runs go in the next batch, one run each."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import pytest

from spades.rooms.batching import Batcher


class Recorder:
    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.gate = asyncio.Event()
        self.fail: BaseException | None = None

    async def run(self, keys: list[int]) -> Mapping[int, str | BaseException]:
        self.batches.append(keys)
        await self.gate.wait()
        if self.fail is not None:
            raise self.fail
        return {k: (ValueError(f"odd {k}") if k % 2 else f"v{k}") for k in keys if k != 4}


async def test_a_burst_is_run_in_few_batches_and_each_call_gets_its_answer() -> None:
    rec = Recorder()
    batcher: Batcher[int, str] = Batcher(rec.run, limit=3)
    first = asyncio.ensure_future(batcher(0))
    for _ in range(3):
        await asyncio.sleep(0)
    assert rec.batches == [[0]]  # a lone call runs at once
    rest = [asyncio.ensure_future(batcher(k)) for k in (2, 2, 1, 6, 8, 10)]
    for _ in range(3):
        await asyncio.sleep(0)
    assert rec.batches == [[0], [2, 1]]  # two batches in flight, the rest waits
    rec.gate.set()
    assert await first == "v0"
    answers = await asyncio.gather(*rest, return_exceptions=True)
    assert answers[:2] == ["v2", "v2"] and answers[3:] == ["v6", "v8", "v10"]
    assert isinstance(answers[2], ValueError)
    # The calls that waited, at most `limit` a batch; a key asked twice is run once.
    # Once no call waits, a batch is free again for the next call at once.
    assert rec.batches == [[0], [2, 1], [6, 8, 10]]
    assert batcher.batches == 3
    with pytest.raises(KeyError):  # the run gave no answer for it
        await batcher(4)
    assert await asyncio.gather(batcher(6), batcher(8), batcher(2)) == ["v6", "v8", "v2"]


async def test_a_failed_batch_fails_its_calls_and_the_next_batch_runs() -> None:
    rec = Recorder()
    batcher: Batcher[int, str] = Batcher(rec.run)
    rec.fail = ConnectionError("store down")
    rec.gate.set()
    with pytest.raises(ConnectionError):
        await batcher(2)
    rec.fail = None
    assert await batcher(2) == "v2"


async def test_a_cancelled_caller_leaves_the_others_answered() -> None:
    rec = Recorder()
    batcher: Batcher[int, str] = Batcher(rec.run)
    leaving = asyncio.ensure_future(batcher(2))
    staying = asyncio.ensure_future(batcher(6))
    await asyncio.sleep(0)
    leaving.cancel()
    await asyncio.sleep(0)
    rec.gate.set()
    assert await staying == "v6"
    assert leaving.cancelled()
