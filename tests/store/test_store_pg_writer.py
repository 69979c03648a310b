"""PostgreSQL's writer process: the appends that follow the remembered counts are inserted
by a child process (pg_log.py); what it cannot settle, and everything else, stays on the
server's own connections. A real PostgreSQL; real child processes."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import text
from store_support import SETTINGS, FakeClock, new_game

from spades.store import (
    ActionRow,
    FencedOut,
    RoomRow,
    SeatRow,
    SequenceError,
    SqlStore,
    StorageUnavailable,
    open_store,
)
from spades.store.commit_pg import PgInlinePath, PgWriterPath
from spades.store.writer_process import WriterProcess, WriterRefused


@pytest.fixture
def backend() -> str:
    return "postgresql"


@pytest.fixture
async def pg_store(db_url: str, clock: FakeClock) -> AsyncIterator[SqlStore]:
    store = await open_store(db_url, clock=clock, commit_interval=0.005)
    yield store
    await store.close()


def play(n: int) -> dict[str, object]:
    return {"type": "play", "card": f"{2 + n % 13}S", "note": ["é", n, None, True]}


def writer(store: SqlStore) -> WriterProcess:
    path = store._path
    assert isinstance(path, PgWriterPath)
    return path.writer


def writer_pid(store: SqlStore) -> int:
    pid = writer(store).pid
    assert pid is not None
    return pid


async def stored(store: SqlStore, game_id: int) -> list[tuple[int, int | None, object, datetime]]:
    async with store.engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT seq, seat, action, at FROM actions WHERE game_id = :g ORDER BY seq"),
            {"g": game_id},
        )
        return [(r[0], r[1], r[2], r[3]) for r in rows]


async def test_appends_that_follow_are_inserted_by_a_child_process(
    pg_store: SqlStore, clock: FakeClock
) -> None:
    game = await new_game(pg_store)
    await pg_store.append_action(ActionRow(game, 1, 0, play(1)))
    pid = writer_pid(pg_store)
    assert pid != os.getpid()
    # The database's address reaches the child in its environment, not its command line
    # (which every local user can read).
    assert b"postgres" not in Path(f"/proc/{pid}/cmdline").read_bytes()
    late = datetime(2026, 5, 1, 12, 0, 0, 123456, tzinfo=UTC)
    await asyncio.gather(
        *(pg_store.append_action(ActionRow(game, s, s % 4, play(s))) for s in range(2, 40)),
        pg_store.append_action(ActionRow(game, 40, None, play(40), at=late)),
    )
    rows = await stored(pg_store, game)
    assert [r[0] for r in rows] == list(range(1, 41))
    assert [r[2] for r in rows] == [play(s) for s in range(1, 41)]
    assert rows[-1][1] is None and rows[-1][3] == late
    assert rows[0][3] == clock.now  # stamped with the batch's time (the store's clock)
    assert writer_pid(pg_store) == pid  # one child for the store's life
    assert (await pg_store.get_room("r1")).actions[-1].action == play(40)


async def test_a_killed_writer_is_replaced_and_every_acknowledged_append_is_kept(
    pg_store: SqlStore,
) -> None:
    game = await new_game(pg_store)
    acknowledged: list[int] = []
    seq = 0
    for _round in range(3):
        for _ in range(5):
            seq += 1
            await pg_store.append_action(ActionRow(game, seq, seq % 4, play(seq)))
            acknowledged.append(seq)
        os.kill(writer_pid(pg_store), signal.SIGKILL)
        seq += 1
        try:
            await pg_store.append_action(ActionRow(game, seq, seq % 4, play(seq)))
            acknowledged.append(seq)
        except StorageUnavailable:  # met the dying child: in doubt, as a lost connection
            # The room learns the truth from the log (`Match.act`): do as it does.
            stored_seqs = [r[0] for r in await stored(pg_store, game)]
            if seq not in stored_seqs:
                seq -= 1
    assert [r[0] for r in await stored(pg_store, game)] == list(range(1, seq + 1))
    assert set(acknowledged) <= set(range(1, seq + 1))


async def test_a_number_another_writer_took_fails_that_append_alone(
    pg_store: SqlStore, db_url: str, clock: FakeClock
) -> None:
    """The child's insert is refused as a whole (primary key); the batch goes down the
    checked path, where only the append whose number was taken fails."""
    one = await new_game(pg_store, "r1")
    two = await new_game(pg_store, "r2")
    await pg_store.append_action(ActionRow(one, 1, 0, play(1)))
    await pg_store.append_action(ActionRow(two, 1, 0, play(1)))
    other = await open_store(db_url, clock=clock, writer_process=False)
    try:
        await other.append_action(ActionRow(one, 2, 1, play(99)))
    finally:
        await other.close()
    results = await asyncio.gather(
        pg_store.append_action(ActionRow(one, 2, 1, play(2))),
        pg_store.append_action(ActionRow(two, 2, 1, play(2))),
        return_exceptions=True,
    )
    assert isinstance(results[0], SequenceError)
    assert results[1] is None
    assert [r[2] for r in await stored(pg_store, one)] == [play(1), play(99)]
    assert [r[2] for r in await stored(pg_store, two)] == [play(1), play(2)]
    # ...and the fast path is taken again afterwards.
    pid = writer_pid(pg_store)
    await pg_store.append_action(ActionRow(one, 3, 2, play(3)))
    await pg_store.append_action(ActionRow(one, 4, 3, play(4)))
    assert writer_pid(pg_store) == pid
    assert [r[0] for r in await stored(pg_store, one)] == [1, 2, 3, 4]


async def test_a_lost_database_connection_is_in_doubt_then_reconnected(
    pg_store: SqlStore,
) -> None:
    game = await new_game(pg_store)
    await pg_store.append_action(ActionRow(game, 1, 0, play(1)))
    pid = writer_pid(pg_store)
    async with pg_store.engine.connect() as conn:  # end the child's session from outside
        ended = await conn.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                "AND query LIKE 'INSERT INTO actions%'"
            )
        )
        assert [r[0] for r in ended] == [True]
    seq = 2
    try:
        await pg_store.append_action(ActionRow(game, seq, 1, play(seq)))
        seq += 1
    except StorageUnavailable:
        pass  # the child met the closed session: in doubt, and it connects anew
    if [r[0] for r in await stored(pg_store, game)][-1] == seq:
        seq += 1
    await pg_store.append_action(ActionRow(game, seq, 1, play(seq)))
    assert writer_pid(pg_store) == pid  # the child lives on; only its session was new
    assert [r[0] for r in await stored(pg_store, game)] == list(range(1, seq + 1))


async def test_the_child_ends_with_the_store(db_url: str, clock: FakeClock) -> None:
    store = await open_store(db_url, clock=clock)
    game = await new_game(store)
    await store.append_action(ActionRow(game, 1, 0, play(1)))
    pid = writer_pid(store)
    await store.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_the_inline_path_stores_the_same(db_url: str, clock: FakeClock) -> None:
    """`SPADES_PG_WRITER=inline`: the same statement on the server's own connection."""
    store = await open_store(db_url, clock=clock, writer_process=False)
    try:
        assert isinstance(store._path, PgInlinePath)
        game = await new_game(store)
        await asyncio.gather(
            *(store.append_action(ActionRow(game, s, s % 4, play(s))) for s in range(1, 20))
        )
        rows = await stored(store, game)
        assert [(r[0], r[2]) for r in rows] == [(s, play(s)) for s in range(1, 20)]
    finally:
        await store.close()


def test_the_child_refuses_a_malformed_request_and_stays_up(db_url: str) -> None:
    """A request it cannot read is answered with an error, and the next one is served."""

    async def run() -> None:
        store = await open_store(db_url)
        try:
            game = await new_game(store)
            child = writer(store)
            with pytest.raises(WriterRefused) as refused:
                await child.request(("not a time", [(game, 1, 0, play(1), None)]))
            assert refused.value.kind == "error"
            await child.request((datetime.now(UTC).isoformat(), [(game, 1, 0, play(1), None)]))
            conn = await asyncpg.connect(
                store.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
            )
            try:
                assert await conn.fetchval("SELECT count(*) FROM actions") == 1
            finally:
                await conn.close()
        finally:
            await store.close()

    asyncio.run(run())


# --- a cluster owner's appends: fenced, on the same fast path ----------------------------


@pytest.fixture(params=[True, False], ids=["process", "inline"])
async def fenced_store(
    db_url: str, clock: FakeClock, request: pytest.FixtureRequest
) -> AsyncIterator[SqlStore]:
    store = await open_store(db_url, clock=clock, writer_process=request.param)
    yield store
    await store.close()


async def fenced_game(store: SqlStore, fence: int, room_id: str = "r1") -> int:
    room = RoomRow(id=room_id, code=room_id.upper(), settings=SETTINGS, host_seat=0)
    await store.create_room(room, [SeatRow(room_id, i) for i in range(4)], fence=fence)
    return await store.start_game(room_id, {}, 0, "seed", fence=fence)


def count_fast_batches(store: SqlStore) -> list[int]:
    """Rows per batch that took the fast path (inserted all at once)."""
    seen: list[int] = []
    path = store._path
    if isinstance(path, PgWriterPath):
        child = path.writer
        real_request = child.request

        async def request(payload: object) -> object:
            count = await real_request(payload)
            assert isinstance(payload, tuple)
            if len(payload) == 3 and count == len(payload[1]):
                seen.append(int(count))
            return count

        child.request = request  # type: ignore[method-assign]
    else:
        assert isinstance(path, PgInlinePath)
        real_inline = path.insert_followers

        async def inline(
            rows: list[ActionRow], stamp: datetime, fences: list[int | None] | None
        ) -> int | None:
            count = await real_inline(rows, stamp, fences)
            if fences is not None and count == len(rows):
                seen.append(count)
            return count

        path.insert_followers = inline  # type: ignore[method-assign]
    return seen


async def test_fenced_appends_that_follow_take_the_fast_path(fenced_store: SqlStore) -> None:
    game = await fenced_game(fenced_store, 3)
    fast = count_fast_batches(fenced_store)
    await fenced_store.append_action(ActionRow(game, 1, 0, play(1)), fence=3)
    await asyncio.gather(
        *(
            fenced_store.append_action(ActionRow(game, s, s % 4, play(s)), fence=3)
            for s in range(2, 30)
        )
    )
    assert sum(fast) == 29
    assert [r[2] for r in await stored(fenced_store, game)] == [play(s) for s in range(1, 30)]


async def test_a_fenced_out_owner_stores_nothing_and_is_told(
    fenced_store: SqlStore, db_url: str, clock: FakeClock
) -> None:
    game = await fenced_game(fenced_store, 1)
    await fenced_store.append_action(ActionRow(game, 1, 0, play(1)), fence=1)
    other = await open_store(db_url, clock=clock)
    try:
        await other.claim_room("r1", 2)  # another process took the room
        with pytest.raises(FencedOut):
            await fenced_store.append_action(ActionRow(game, 2, 1, play(2)), fence=1)
        await other.append_action(ActionRow(game, 2, 1, play(20)), fence=2)
    finally:
        await other.close()
    assert [r[2] for r in await stored(fenced_store, game)] == [play(1), play(20)]


async def test_a_newer_fence_takes_the_checked_path_and_raises_the_rooms(
    fenced_store: SqlStore,
) -> None:
    game = await fenced_game(fenced_store, 1)
    fast = count_fast_batches(fenced_store)
    await fenced_store.append_action(ActionRow(game, 1, 0, play(1)), fence=4)
    assert fast == []  # the fence did not match: nothing went in on the fast path
    with pytest.raises(FencedOut):
        await fenced_store.append_action(ActionRow(game, 2, 1, play(2)), fence=3)
    await fenced_store.append_action(ActionRow(game, 2, 1, play(2)), fence=4)
    assert fast == [1]
    assert [r[0] for r in await stored(fenced_store, game)] == [1, 2]


async def test_a_claim_that_commits_while_the_insert_waits_fences_it_out(
    fenced_store: SqlStore,
) -> None:
    """The fast path locks the room's row as the checked path does: an insert that waits
    for a claim's transaction sees the claim's fence once it commits, and stores nothing."""
    game = await fenced_game(fenced_store, 1)
    await fenced_store.append_action(ActionRow(game, 1, 0, play(1)), fence=1)
    url = fenced_store.engine.url.set(drivername="postgresql")
    claimer = await asyncpg.connect(url.render_as_string(hide_password=False))
    try:
        claim = claimer.transaction()
        await claim.start()
        await claimer.execute("UPDATE rooms SET fence = 2 WHERE id = 'r1'")
        append = asyncio.ensure_future(
            fenced_store.append_action(ActionRow(game, 2, 1, play(2)), fence=1)
        )
        await asyncio.sleep(0.3)
        assert not append.done()  # waiting for the room's row
        await claim.commit()
        with pytest.raises(FencedOut):
            await append
    finally:
        await claimer.close()
    assert [r[0] for r in await stored(fenced_store, game)] == [1]


async def test_a_value_marshal_cannot_carry_fails_its_batch_and_spares_the_child(
    pg_store: SqlStore,
) -> None:
    game = await new_game(pg_store)
    await pg_store.append_action(ActionRow(game, 1, 0, play(1)))
    pid = writer_pid(pg_store)
    with pytest.raises(ValueError):
        await pg_store.append_action(ActionRow(game, 2, 1, {"type": "play", "odd": object()}))
    await pg_store.append_action(ActionRow(game, 2, 1, play(2)))
    assert writer_pid(pg_store) == pid
    assert [r[2] for r in await stored(pg_store, game)] == [play(1), play(2)]
