"""The SQLite writer process: appends are committed by a child process; losing it loses
nothing acknowledged and answers every caller."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from store_support import FakeClock

from spades.store import (
    ActionRow,
    RoomRow,
    SeatRow,
    SqlStore,
    StorageUnavailable,
    open_store,
    sqlite_log,
)

SETTINGS = {"mode": "partnership", "target": 300, "bot_level": "basic", "public": False}


@pytest.fixture
async def sqlite_store(
    sqlite_template: Path, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[SqlStore]:
    path = tmp_path / "spades.db"
    shutil.copyfile(sqlite_template, path)
    store = await open_store(f"sqlite+aiosqlite:///{path}", clock=clock)
    yield store
    await store.close()


async def new_game(store: SqlStore, room_id: str = "r1") -> int:
    room = RoomRow(id=room_id, code=room_id.upper(), settings=SETTINGS, host_seat=0)
    await store.create_room(room, [SeatRow(room_id, i) for i in range(4)])
    return await store.start_game(room_id, {}, 0, "seed")


def bid(n: int) -> dict[str, object]:
    return {"type": "bid", "bid": n}


def writer_pid(store: SqlStore) -> int:
    writer = store._writer_process
    assert writer is not None and writer.pid is not None
    return writer.pid


async def test_appends_are_committed_by_a_child_process(sqlite_store: SqlStore) -> None:
    game = await new_game(sqlite_store)
    await sqlite_store.append_action(ActionRow(game, 1, 1, bid(3)))
    pid = writer_pid(sqlite_store)
    assert pid != os.getpid()
    await asyncio.gather(
        *(sqlite_store.append_action(ActionRow(game, s, s % 4, bid(s % 13))) for s in range(2, 40))
    )
    actions = (await sqlite_store.get_room("r1")).actions
    assert [a.seq for a in actions] == list(range(1, 40))
    assert writer_pid(sqlite_store) == pid  # one child for the store's life


async def test_a_killed_writer_is_replaced_and_nothing_is_lost(sqlite_store: SqlStore) -> None:
    game = await new_game(sqlite_store)
    seq = 0
    for _round in range(3):
        for _ in range(5):
            seq += 1
            await sqlite_store.append_action(ActionRow(game, seq, seq % 4, bid(seq % 13)))
        os.kill(writer_pid(sqlite_store), signal.SIGKILL)
        # The next append may meet the dead child: it is retried on a new one, or refused
        # with StorageUnavailable and then not stored; either way every caller is answered.
        seq += 1
        try:
            await sqlite_store.append_action(ActionRow(game, seq, seq % 4, bid(1)))
        except StorageUnavailable:
            seq -= 1
    actions = (await sqlite_store.get_room("r1")).actions
    assert [a.seq for a in actions] == list(range(1, seq + 1))


async def test_rows_the_dead_writer_committed_count_as_stored(
    sqlite_store: SqlStore,
) -> None:
    """The writer commits, then dies before it answers: the callers succeed (the log is
    read), and nothing is stored twice."""
    game = await new_game(sqlite_store)
    await sqlite_store.append_action(ActionRow(game, 1, 1, bid(2)))
    writer = sqlite_store._writer_process
    assert writer is not None
    real = writer.commit

    async def commit_then_die(rows: list[sqlite_log.Row], now: str) -> list[sqlite_log.Outcome]:
        await real(rows, now)
        os.kill(writer_pid(sqlite_store), signal.SIGKILL)
        await asyncio.sleep(0)
        return await real([], now)  # the request meets the dead child: WriterLost

    writer.commit = commit_then_die  # type: ignore[method-assign]
    await asyncio.gather(
        *(sqlite_store.append_action(ActionRow(game, s, s % 4, bid(s))) for s in (2, 3, 4))
    )
    writer.commit = real  # type: ignore[method-assign]
    await sqlite_store.append_action(ActionRow(game, 5, 1, bid(5)))
    actions = (await sqlite_store.get_room("r1")).actions
    expected = [(1, bid(2))] + [(s, bid(s)) for s in range(2, 6)]
    assert [(a.seq, a.action) for a in actions] == expected


async def test_the_writer_ends_with_the_store(sqlite_store: SqlStore) -> None:
    game = await new_game(sqlite_store)
    await sqlite_store.append_action(ActionRow(game, 1, 1, bid(3)))
    pid = writer_pid(sqlite_store)
    await sqlite_store.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
