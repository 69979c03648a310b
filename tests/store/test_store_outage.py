"""PostgreSQL lost for a while: the store fails writes with an error (never hangs, never
half-stores), and works again once the server is back.

The shared PostgreSQL server is not stopped: the store reaches it through a TCP relay
the test can cut (connections refused and dropped) or stall (bytes held: a partition).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.engine import make_url

from spades.store import ActionRow, RoomRow, SeatRow, SqlStore, StorageUnavailable, open_store
from spades.store.protocol import SequenceError
from tcp_relay import Relay


@pytest.fixture
async def relay(pg_url: str) -> AsyncIterator[Relay]:
    parsed = make_url(pg_url)
    started = Relay(parsed.host or "127.0.0.1", parsed.port or 5432)
    await started.start()
    yield started
    if started.server is not None:
        await started.cut()


@pytest.fixture
async def relayed(pg_url: str, relay: Relay) -> AsyncIterator[SqlStore]:
    """A store on the test database, through the relay; statements time out after 2 s."""
    from sqlalchemy import text

    direct = await open_store(pg_url)
    async with direct.engine.begin() as conn:
        await conn.execute(
            text(
                "TRUNCATE rooms, seats, games, game_seats, actions, hands, chat_messages, "
                "players, game_results, player_stats, player_ratings, rating_changes CASCADE"
            )
        )
    await direct.close()
    url = make_url(pg_url).set(host="127.0.0.1", port=relay.port)
    store = await open_store(
        url.render_as_string(hide_password=False), connect_args={"command_timeout": 2, "timeout": 2}
    )
    yield store
    relay.stalled = False
    if relay.server is None:
        await relay.start()
    with contextlib.suppress(Exception):
        await store.close()


def bid(n: int) -> dict[str, object]:
    return {"type": "bid", "bid": n}


async def new_game(store: SqlStore) -> int:
    await store.create_room(RoomRow(id="r", code="R", settings={}), [SeatRow("r", 0, name="A")])
    return await store.start_game("r", {}, 0, "seed")


async def test_writes_fail_while_the_server_is_gone_and_work_after(
    relay: Relay, relayed: SqlStore
) -> None:
    game_id = await new_game(relayed)
    await relayed.append_action(ActionRow(game_id, 1, 1, bid(3)))
    await relay.cut()
    with pytest.raises(StorageUnavailable):
        await relayed.append_action(ActionRow(game_id, 2, 2, bid(4)))
    with pytest.raises(StorageUnavailable):
        await relayed.add_chat("r", 0, "A", "anyone?")
    with pytest.raises(StorageUnavailable):
        await relayed.get_room("r")
    assert not await relayed.ping()
    await relay.start()  # the server is back (on the same port)
    assert await relayed.ping()
    await relayed.append_action(ActionRow(game_id, 2, 2, bid(4)))  # the same action again
    stored = await relayed.get_room("r")
    assert [a.seq for a in stored.actions] == [1, 2]
    assert await relayed.recent_chat("r") == []


async def test_a_stalled_server_gives_an_error_not_a_hang(relay: Relay, relayed: SqlStore) -> None:
    game_id = await new_game(relayed)
    await relayed.append_action(ActionRow(game_id, 1, 1, bid(3)))
    relay.stalled = True  # packets held: a partition, or a server paused
    with pytest.raises(StorageUnavailable):
        await relayed.append_action(ActionRow(game_id, 2, 2, bid(4)))
    relay.stalled = False
    # Whether or not the stalled statement reached the server, the log holds no gap and
    # no duplicate, and the store carries on from what it holds. The stalled statement is
    # in doubt: its held bytes may still commit after a read, and the store then refuses
    # the seq rather than write over it; read again and go on from the log.
    for _ in range(50):
        held = [a.seq for a in (await relayed.get_room("r")).actions]
        assert held in ([1], [1, 2])
        next_seq = held[-1] + 1
        try:
            await relayed.append_action(ActionRow(game_id, next_seq, 3, bid(1)))
            break
        except SequenceError:
            assert held == [1]  # seq 2 committed late: the stalled bid
            await asyncio.sleep(0.05)
    assert [a.seq for a in (await relayed.get_room("r")).actions] == [*held, next_seq]


async def test_postgres_statements_have_a_deadline_by_default(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy import text

    from spades.store import db

    monkeypatch.setattr(db, "COMMAND_TIMEOUT", 0.5)
    engine = db.create_engine(pg_url)  # no timeout asked for: the default applies
    try:
        async with engine.connect() as conn:
            with pytest.raises(TimeoutError):
                await conn.execute(text("SELECT pg_sleep(5)"))
    finally:
        await engine.dispose()


async def test_a_read_that_finds_no_free_connection_is_unavailable(pg_url: str) -> None:
    """Every connection of the pool busy past its wait (an overloaded database): the read
    fails as StorageUnavailable (503 and Retry-After over REST), not as a server error."""
    store = await open_store(pg_url, pool_size=1, max_overflow=0, pool_timeout=0.2)
    try:
        async with store.engine.connect():  # the pool's one connection, held
            with pytest.raises(StorageUnavailable):
                await store.ratings(["nobody"], "partnership")
        assert await store.ratings(["nobody"], "partnership") == {}  # free again: fine
    finally:
        await store.close()
