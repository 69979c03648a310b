"""The SQLite writer process: appends are committed by a child process; losing it loses
nothing acknowledged and answers every caller."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import StatementError
from store_support import FakeClock, new_game

from spades.store import (
    ActionRow,
    HandRow,
    SqlStore,
    StorageUnavailable,
    StoreError,
    open_store,
    sqlite_log,
)
from spades.store.commit_sqlite_process import SqliteProcessPath
from spades.store.writer_process import WriterProcess

SUMMARY = {"hand": 1, "bids": [3, "nil", 4, 2], "tricks": [3, 0, 5, 5], "points": [71, -20]}


@pytest.fixture
async def sqlite_store(
    sqlite_template: Path, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[SqlStore]:
    path = tmp_path / "spades.db"
    shutil.copyfile(sqlite_template, path)
    store = await open_store(f"sqlite+aiosqlite:///{path}", clock=clock)
    yield store
    await store.close()


def bid(n: int) -> dict[str, object]:
    return {"type": "bid", "bid": n}


def process_writer(store: SqlStore) -> WriterProcess:
    path = store._path
    assert isinstance(path, SqliteProcessPath)
    return path.writer


def writer_pid(store: SqlStore) -> int:
    writer = process_writer(store)
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
    writer = process_writer(sqlite_store)
    assert writer is not None
    real = writer.commit

    async def commit_then_die(
        rows: list[sqlite_log.Row], now: str, hands: list[sqlite_log.Hand] | None = None
    ) -> list[sqlite_log.Outcome]:
        await real(rows, now, hands)
        os.kill(writer_pid(sqlite_store), signal.SIGKILL)
        await asyncio.sleep(0)
        return await real([], now)  # the request meets the dead child: WriterLost

    writer.commit = commit_then_die  # type: ignore[method-assign]
    await asyncio.gather(
        *(sqlite_store.append_action(ActionRow(game, s, s % 4, bid(s))) for s in (2, 3, 4)),
        sqlite_store.finish_hand(HandRow(game, 1, SUMMARY)),
    )
    writer.commit = real  # type: ignore[method-assign]
    await sqlite_store.append_action(ActionRow(game, 5, 1, bid(5)))
    actions = (await sqlite_store.get_room("r1")).actions
    expected = [(1, bid(2))] + [(s, bid(s)) for s in range(2, 6)]
    assert [(a.seq, a.action) for a in actions] == expected
    assert await stored_hands(sqlite_store) == [(game, 1, SUMMARY)]


async def test_finished_hands_go_with_the_appends_to_the_writer(sqlite_store: SqlStore) -> None:
    """A hand's row is committed by the child in the batch of the appends around it; one
    stored already is refused alone, and the appends of its batch are stored all the same."""
    game = await new_game(sqlite_store)
    writer = process_writer(sqlite_store)
    assert writer is not None
    requests: list[int] = []
    real = writer.commit

    async def counting(
        rows: list[sqlite_log.Row], now: str, hands: list[sqlite_log.Hand] | None = None
    ) -> list[sqlite_log.Outcome]:
        requests.append(len(hands or ()))
        return await real(rows, now, hands)

    writer.commit = counting  # type: ignore[method-assign]
    await asyncio.gather(
        *(sqlite_store.append_action(ActionRow(game, s, s % 4, bid(s % 13))) for s in (1, 2)),
        sqlite_store.finish_hand(HandRow(game, 1, SUMMARY)),
    )
    assert sum(requests) == 1  # the hand went to the child, not to a thread of the server
    results = await asyncio.gather(
        sqlite_store.append_action(ActionRow(game, 3, 3, bid(3))),
        sqlite_store.finish_hand(HandRow(game, 1, SUMMARY)),
        sqlite_store.finish_hand(HandRow(4242, 1, SUMMARY)),
        return_exceptions=True,
    )
    assert results[0] is None
    assert isinstance(results[1], StoreError) and isinstance(results[2], StoreError)
    actions = (await sqlite_store.get_room("r1")).actions
    assert [a.seq for a in actions] == [1, 2, 3]
    assert await stored_hands(sqlite_store) == [(game, 1, SUMMARY)]
    writer.commit = real  # type: ignore[method-assign]


@pytest.mark.parametrize("odd", [{1, 2}, datetime(2026, 1, 1)], ids=["set", "datetime"])
async def test_a_summary_json_cannot_hold_is_refused_and_harms_nothing(
    sqlite_store: SqlStore, odd: object
) -> None:
    """A set goes over the writer's wire and its JSON fails there; a datetime does not
    marshal, so it takes the server's own path, whose JSON fails too. Either way the hand is
    refused, nothing is stored, and the next hand is stored as usual."""
    game = await new_game(sqlite_store)
    with pytest.raises((StoreError, StatementError)):  # StatementError: SQLAlchemy's own
        await sqlite_store.finish_hand(HandRow(game, 1, {**SUMMARY, "extra": odd}))
    await sqlite_store.append_action(ActionRow(game, 1, 1, bid(2)))
    await sqlite_store.finish_hand(HandRow(game, 1, SUMMARY))
    assert await stored_hands(sqlite_store) == [(game, 1, SUMMARY)]


async def test_a_hand_in_flight_when_the_writer_dies_is_stored_once(
    sqlite_store: SqlStore,
) -> None:
    game = await new_game(sqlite_store)
    await sqlite_store.append_action(ActionRow(game, 1, 1, bid(2)))
    os.kill(writer_pid(sqlite_store), signal.SIGKILL)
    await asyncio.sleep(0.05)
    try:
        await sqlite_store.finish_hand(HandRow(game, 1, SUMMARY))
    except StorageUnavailable:  # met the dead child twice: not stored, say so
        assert await stored_hands(sqlite_store) == []
        await sqlite_store.finish_hand(HandRow(game, 1, SUMMARY))
    assert await stored_hands(sqlite_store) == [(game, 1, SUMMARY)]


async def stored_hands(store: SqlStore) -> list[tuple[int, int, object]]:
    async with store.engine.connect() as conn:
        rows = await conn.execute(text("SELECT game_id, hand_number, summary, bids FROM hands"))
        out = []
        for game_id, number, summary, bids in rows:
            assert json.loads(bids) == json.loads(summary)["bids"]
            out.append((game_id, number, json.loads(summary)))
        return out


async def test_the_writer_ends_with_the_store(sqlite_store: SqlStore) -> None:
    game = await new_game(sqlite_store)
    await sqlite_store.append_action(ActionRow(game, 1, 1, bid(3)))
    pid = writer_pid(sqlite_store)
    await sqlite_store.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
