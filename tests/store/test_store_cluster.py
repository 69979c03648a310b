"""What the store decides for a cluster, on both databases: fencing of stale owners, a
game's secrecy until it is over, join codes, the lobby, and rooms looked up by code."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import text
from store_support import FakeClock

from spades.rooms.lobby import lobby_entries
from spades.store import (
    ActionRow,
    CodeTaken,
    FencedOut,
    GameInProgress,
    HandRow,
    NotFound,
    RoomRow,
    SeatRow,
    SqlStore,
    open_store,
)

SETTINGS: dict[str, Any] = {"mode": "partnership", "target": 300, "public": True}


async def room(store: SqlStore, room_id: str, **settings: Any) -> str:
    seats = [
        SeatRow(room_id, 0, name="Ann", token_hash="a" * 64),
        SeatRow(room_id, 1, name="Bot", bot_level="basic"),
        SeatRow(room_id, 2),
        SeatRow(room_id, 3),
    ]
    row = RoomRow(id=room_id, code=room_id.upper(), settings={**SETTINGS, **settings}, host_seat=0)
    await store.create_room(row, seats)
    return room_id


def bid(n: int) -> dict[str, object]:
    return {"type": "bid", "bid": n}


async def fence_of(store: SqlStore, room_id: str) -> int:
    async with store.engine.connect() as conn:
        found = await conn.execute(text("SELECT fence FROM rooms WHERE id = :r"), {"r": room_id})
        return int(found.scalar_one())


async def seqs(store: SqlStore, room_id: str) -> list[int]:
    return [a.seq for a in (await store.get_room(room_id)).actions]


@pytest.fixture
async def other(db_url: str, clock: FakeClock) -> AsyncIterator[SqlStore]:
    """A second store on the same database: another process of the cluster."""
    opened = await open_store(db_url, clock=clock)
    yield opened
    await opened.close()


# --- fencing ---------------------------------------------------------------------------


async def test_claim_room_only_moves_the_fence_forward(store: SqlStore) -> None:
    await room(store, "r")
    assert await fence_of(store, "r") == 0
    await store.claim_room("r", 5)
    assert await fence_of(store, "r") == 5
    # The owner's own number is no claim: after Redis lost its counters they came back up
    # to it, and two processes ran the room with one number (neither fenced out).
    with pytest.raises(FencedOut) as same:
        await store.claim_room("r", 5)
    assert same.value.current == 5
    with pytest.raises(FencedOut) as older:
        await store.claim_room("r", 4)
    assert older.value.current == 5
    assert await fence_of(store, "r") == 5
    await store.claim_room("r", 9)
    assert await fence_of(store, "r") == 9
    with pytest.raises(NotFound):
        await store.claim_room("nope", 1)
    await room(store, "solo")
    await store.claim_room("solo", 0)  # one process owns every room: 0, never refused
    await store.claim_room("solo", 0)


async def test_claim_rooms_claims_a_batch_in_one_transaction(store: SqlStore) -> None:
    for room_id in ("a", "b", "c", "solo"):
        await room(store, room_id)
    await store.claim_room("b", 4)
    outcomes = await store.claim_rooms(
        [("c", 2), ("b", 4), ("nope", 1), ("a", 3), ("b", 3), ("solo", 0), ("a", 3), ("a", 6)]
    )
    kinds = [type(o).__name__ if o is not None else None for o in outcomes]
    # b's 4 is its owner's own number and 3 is older; a's second 3 is the first one's.
    assert kinds == [None, "FencedOut", "NotFound", None, "FencedOut", None, "FencedOut", None]
    refused = outcomes[1]
    assert isinstance(refused, FencedOut) and refused.current == 4
    assert [await fence_of(store, r) for r in ("a", "b", "c", "solo")] == [6, 4, 2, 0]
    assert await store.claim_rooms([]) == []


async def test_load_rooms_reads_many_rooms_as_load_room_reads_one(store: SqlStore) -> None:
    for room_id in ("a", "b"):
        await room(store, room_id)
    game = await store.start_game("a", {}, 0, "seed")
    await store.append_action(ActionRow(game, 1, 0, bid(3)))
    loaded = await store.load_rooms(["b", "nope", "a"])
    assert sorted(loaded) == ["a", "b"]
    assert loaded["a"] == await store.load_room("a")
    assert [a.seq for a in loaded["a"].actions] == [1]
    assert loaded["b"].game is None and len(loaded["b"].seats) == 4
    assert await store.load_rooms([]) == {}


async def test_create_room_sets_the_first_fence(store: SqlStore) -> None:
    await store.create_room(RoomRow(id="r", code="R", settings={}), [], fence=3)
    assert await fence_of(store, "r") == 3
    with pytest.raises(FencedOut):
        await store.update_room("r", status="playing", fence=2)


async def test_stale_append_is_refused_and_nothing_is_written(
    store: SqlStore, other: SqlStore
) -> None:
    await room(store, "r")
    game_id = await store.start_game("r", {}, 0, "seed", fence=1)
    await store.append_action(ActionRow(game_id, 1, 1, bid(3)), fence=1)
    await other.claim_room("r", 2)  # another process took the room
    with pytest.raises(FencedOut):
        await store.append_action(ActionRow(game_id, 2, 2, bid(4)), fence=1)
    assert await seqs(store, "r") == [1]
    # The new owner carries on from the same sequence number.
    await other.append_action(ActionRow(game_id, 2, 2, bid(4)), fence=2)
    assert await seqs(other, "r") == [1, 2]
    # Without a fence (the single-process mode) nothing is checked.
    await store.append_action(ActionRow(game_id, 3, 3, bid(1)))
    assert await seqs(store, "r") == [1, 2, 3]


async def test_a_newer_fence_is_accepted_and_becomes_the_rooms(store: SqlStore) -> None:
    await room(store, "r")
    game_id = await store.start_game("r", {}, 0, "seed", fence=1)
    await store.append_action(ActionRow(game_id, 1, 1, bid(3)), fence=4)
    assert await fence_of(store, "r") == 4
    with pytest.raises(FencedOut):
        await store.append_action(ActionRow(game_id, 2, 2, bid(3)), fence=3)
    assert await seqs(store, "r") == [1]


async def test_every_owner_write_is_fenced(store: SqlStore) -> None:
    await room(store, "r")
    game_id = await store.start_game("r", {}, 0, "seed", fence=1)
    await store.claim_room("r", 2)
    before = await store.get_room("r")

    stale: list[Any] = [
        store.update_room("r", status="playing", fence=1),
        store.set_seat(SeatRow("r", 2, name="Cy", token_hash="c" * 64), fence=1),
        store.add_chat("r", 0, "Ann", "hi", fence=1),
        store.set_room_mute("r", "name:Ann", True, fence=1),
        store.start_game("r", {}, 1, "seed-2", fence=1),
        store.finish_hand(HandRow(game_id, 1, {"hand": 1}), fence=1),
        store.finish_game(game_id, 0, [300, 100], fence=1),
    ]
    for write in stale:
        with pytest.raises(FencedOut):
            await write
    after = await store.get_room("r")
    assert after.room.status == before.room.status == "open"
    assert after.seats == before.seats
    assert after.game is not None and after.game.id == game_id  # no new game, not finished
    assert await store.recent_chat("r") == []
    assert await store.room_mutes("r") == []
    assert await store.finished_games("r") == []

    # The current owner's writes all go through.
    await store.update_room("r", status="playing", fence=2)
    await store.set_seat(SeatRow("r", 2, name="Cy", token_hash="c" * 64), fence=2)
    await store.add_chat("r", 0, "Ann", "hi", fence=2)
    await store.set_room_mute("r", "name:Ann", True, fence=2)
    await store.finish_hand(HandRow(game_id, 1, {"hand": 1}), fence=2)
    await store.finish_game(game_id, 0, [300, 100], fence=2)
    await store.start_game("r", {}, 1, "seed-2", fence=2)
    assert len(await store.finished_games("r")) == 1
    assert [m["text"] for m in await store.recent_chat("r")] == ["hi"]
    assert await store.room_mutes("r") == ["name:Ann"]


async def test_fenced_writes_to_unknown_rooms_and_games(store: SqlStore) -> None:
    with pytest.raises(NotFound):
        await store.update_room("nope", status="playing", fence=1)
    with pytest.raises(NotFound):
        await store.add_chat("nope", 0, "x", "hi", fence=1)
    with pytest.raises(NotFound):
        await store.set_room_mute("nope", "name:x", True, fence=1)
    with pytest.raises(NotFound):
        await store.finish_game(999, 0, [0, 0], fence=1)
    with pytest.raises(NotFound):
        await store.append_action(ActionRow(999, 1, 0, bid(1)), fence=1)


async def test_one_group_commit_refuses_only_the_stale_rows(store: SqlStore) -> None:
    """Appends of several rooms share a commit: a stale one fails alone."""
    games = {}
    for name in ("a", "b", "c"):
        await room(store, name)
        games[name] = await store.start_game(name, {}, 0, "seed")
    await store.claim_room("b", 7)
    results = await asyncio.gather(
        store.append_action(ActionRow(games["a"], 1, 1, bid(1)), fence=1),
        store.append_action(ActionRow(games["b"], 1, 1, bid(1)), fence=6),
        store.append_action(ActionRow(games["c"], 1, 1, bid(1))),
        store.append_action(ActionRow(games["a"], 2, 2, bid(2)), fence=1),
        return_exceptions=True,
    )
    assert [type(r).__name__ for r in results] == ["NoneType", "FencedOut", "NoneType", "NoneType"]
    assert await seqs(store, "a") == [1, 2]
    assert await seqs(store, "b") == []
    assert await seqs(store, "c") == [1]


# Sessions of this database waiting for a row lock (PostgreSQL).
LOCK_WAITERS = """
    SELECT count(*) FROM pg_stat_activity
    WHERE wait_event_type = 'Lock' AND datname = current_database()
"""


async def test_a_claim_in_flight_fences_an_append_waiting_behind_it(
    store: SqlStore, other: SqlStore, backend: str
) -> None:
    """The check is in the append's own transaction: an append that waits for the new
    owner's claim to commit sees the new fence and is refused."""
    await room(store, "r")
    game_id = await store.start_game("r", {}, 0, "seed", fence=1)
    async with other.engine.connect() as conn:
        # The new owner's claim, not yet committed: it holds the room's row (PostgreSQL)
        # or the write lock (SQLite) while the old owner tries to append.
        transaction = await conn.begin()
        await conn.execute(text("UPDATE rooms SET fence = 2 WHERE id = 'r'"))
        append = asyncio.ensure_future(
            store.append_action(ActionRow(game_id, 1, 1, bid(3)), fence=1)
        )
        if backend == "postgresql":
            # Wait (no deadline of our own) until the append is blocked on the room's row.
            async with store.engine.connect() as watcher:
                while not (await watcher.execute(text(LOCK_WAITERS))).scalar():
                    assert not append.done()
                    await watcher.rollback()  # a transaction keeps one snapshot of the view
                    await asyncio.sleep(0.01)
        else:
            await asyncio.sleep(0.05)
        await transaction.commit()
    with pytest.raises(FencedOut):
        await append
    assert await seqs(store, "r") == []
    # The new owner carries on.
    await store.append_action(ActionRow(game_id, 1, 1, bid(3)), fence=2)
    assert await seqs(store, "r") == [1]


# --- secrecy -----------------------------------------------------------------------------


async def test_record_is_refused_until_the_game_is_over(store: SqlStore, other: SqlStore) -> None:
    await room(store, "r")
    game_id = await store.start_game("r", {"mode": "partnership"}, 0, "the-seed")
    await store.append_action(ActionRow(game_id, 1, 1, bid(3)))
    for asking in (store, other):  # any process
        with pytest.raises(GameInProgress):
            await asking.export_game(game_id)
    # The server itself may read it (to replay, to check), asking explicitly.
    assert (await store.export_game(game_id, in_progress=True))["seed"] == "the-seed"
    await store.finish_game(game_id, 0, [300, 100])
    for asking in (store, other):
        record = await asking.export_game(game_id)
        assert record["seed"] == "the-seed" and len(record["actions"]) == 1
    with pytest.raises(NotFound):
        await store.export_game(999)


async def test_record_of_the_next_game_is_refused_while_the_room_still_says_finished(
    store: SqlStore,
) -> None:
    await room(store, "r")
    first = await store.start_game("r", {"mode": "partnership"}, 0, "seed-1")
    await store.finish_game(first, 0, [300, 100])
    await store.update_room("r", status="finished")
    second = await store.start_game("r", {"mode": "partnership"}, 1, "seed-2")
    # The room is told "playing" only after its next game started (or never, if that
    # write failed): the new game is secret all the same.
    with pytest.raises(GameInProgress):
        await store.export_game(second)
    assert (await store.export_game(first))["seed"] == "seed-1"


async def test_record_of_an_abandoned_game_is_shown(store: SqlStore) -> None:
    await room(store, "r")
    game_id = await store.start_game("r", {"mode": "partnership"}, 0, "the-seed")
    with pytest.raises(GameInProgress):
        await store.export_game(game_id)
    await store.update_room("r", status="abandoned")  # it will never be played on
    assert (await store.export_game(game_id))["seed"] == "the-seed"


# --- join codes and lookups ------------------------------------------------------------


async def test_a_code_taken_by_another_process_is_refused(store: SqlStore, other: SqlStore) -> None:
    await room(store, "r")
    with pytest.raises(CodeTaken):
        await other.create_room(
            RoomRow(id="r2", code="R", settings={}), [SeatRow("r2", 0, name="Bo")]
        )
    with pytest.raises(NotFound):
        await store.get_room("r2")
    assert (await other.get_room("r")).seats[0].name == "Ann"
    # Creating both at once: exactly one wins.
    results = await asyncio.gather(
        store.create_room(RoomRow(id="x1", code="SAME", settings={}), []),
        other.create_room(RoomRow(id="x2", code="SAME", settings={}), []),
        return_exceptions=True,
    )
    assert sorted(type(r).__name__ for r in results) == ["CodeTaken", "NoneType"]
    assert await store.room_id_for_code("SAME") in ("x1", "x2")


async def test_room_id_for_code_and_load_room(store: SqlStore) -> None:
    await store.create_room(RoomRow(id="room-id", code="CODE42", settings={}), [])
    assert await store.room_id_for_code("CODE42") == "room-id"
    with pytest.raises(NotFound):
        await store.room_id_for_code("NOPE")
    loaded = await store.load_room("room-id")
    assert loaded.room.code == "CODE42" and loaded.game is None
    game_id = await store.start_game("room-id", {}, 0, "seed")
    await store.append_action(ActionRow(game_id, 1, 1, bid(2)))
    loaded = await store.load_room("room-id")
    assert loaded.game is not None and [a.seq for a in loaded.actions] == [1]
    await store.finish_game(game_id, 1, [0, 300])
    await store.update_room("room-id", status="finished")
    loaded = await store.load_room("room-id")
    assert loaded.room.status == "finished" and loaded.game is None
    with pytest.raises(NotFound):
        await store.load_room("nope")


# --- the lobby -------------------------------------------------------------------------


async def test_public_rooms_from_the_database(
    store: SqlStore, other: SqlStore, clock: FakeClock
) -> None:
    from datetime import timedelta

    await room(store, "listed")
    clock.advance(timedelta(seconds=1))
    await room(other, "also-listed")  # created by another process
    clock.advance(timedelta(seconds=1))
    await room(store, "private", public=False)
    await room(store, "playing")
    await store.update_room("playing", status="playing")
    await room(store, "full")
    for seat in (2, 3):
        await store.set_seat(SeatRow("full", seat, name=f"P{seat}", token_hash="f" * 64))
    await room(store, "gone")
    await store.update_room("gone", status="abandoned")

    lobby = lobby_entries(await other.public_rooms())
    assert [r["code"] for r in lobby] == ["LISTED", "ALSO-LISTED"]
    assert lobby[0] == {
        "id": "listed",
        "code": "LISTED",
        "status": "open",
        "settings": SETTINGS,
        "host": "Ann",
        "seats": [
            {"seat": 0, "name": "Ann", "kind": "human"},
            {"seat": 1, "name": "Bot", "kind": "bot"},
            {"seat": 2, "name": None, "kind": "empty"},
            {"seat": 3, "name": None, "kind": "empty"},
        ],
        "open_seats": [2, 3],
    }
    assert [r["code"] for r in lobby_entries(await store.public_rooms(), limit=1)] == ["LISTED"]
