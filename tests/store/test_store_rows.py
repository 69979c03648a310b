"""The Store calls on both databases: rooms, seats, games, the action log, hands, chat, purge."""

from __future__ import annotations

import asyncio
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from store_support import FakeClock

from spades.store import (
    ActionRow,
    HandRow,
    NotFound,
    RoomRow,
    SeatRow,
    SequenceError,
    SqlStore,
    StoreError,
    open_store,
)

SETTINGS = {
    "mode": "partnership",
    "target": 300,
    "turn_seconds": 30,
    "game_minutes": 0,
    "rules": {"nil": True},
    "bot_level": "basic",
    "public": True,
}


def seats_for(room_id: str) -> list[SeatRow]:
    return [
        SeatRow(room_id, 0, name="Ann", token_hash="a" * 64),
        SeatRow(room_id, 1, name="Bot", bot_level="basic"),
        SeatRow(room_id, 2),
        SeatRow(room_id, 3),
    ]


async def new_room(store: SqlStore, room_id: str = "room-1", code: str | None = None) -> str:
    room = RoomRow(id=room_id, code=code or room_id.upper(), settings=SETTINGS, host_seat=0)
    await store.create_room(room, seats_for(room_id))
    return room_id


def bid(n: int) -> dict[str, object]:
    return {"type": "bid", "bid": n}


async def test_room_round_trip(store: SqlStore, clock: FakeClock) -> None:
    await new_room(store)
    stored = await store.get_room("room-1")
    assert stored.room.code == "ROOM-1"
    assert stored.room.settings == SETTINGS
    assert stored.room.host_seat == 0
    assert stored.room.status == "open"
    assert stored.room.created_at == clock.now
    assert stored.room.created_at.tzinfo is not None
    assert [s.seat for s in stored.seats] == [0, 1, 2, 3]
    assert stored.seats[0].token_hash == "a" * 64
    assert stored.seats[1].bot_level == "basic"
    assert stored.game is None and stored.actions == []


async def test_duplicate_room_or_code_is_refused(store: SqlStore) -> None:
    await new_room(store)
    with pytest.raises(StoreError):
        await store.create_room(RoomRow(id="room-1", code="OTHER", settings={}), [])
    with pytest.raises(StoreError):
        await store.create_room(RoomRow(id="room-2", code="ROOM-1", settings={}), [])
    assert [r.room.id for r in await store.load_unfinished()] == ["room-1"]


async def test_unknown_room(store: SqlStore) -> None:
    with pytest.raises(NotFound):
        await store.get_room("nope")
    with pytest.raises(NotFound):
        await store.update_room("nope", status="playing")
    with pytest.raises(NotFound):
        await store.set_seat(SeatRow("nope", 0, name="x"))
    with pytest.raises(NotFound):
        await store.start_game("nope", {}, 0, "seed")
    with pytest.raises(NotFound):
        await store.add_chat("nope", 0, "x", "hi")


async def test_update_room(store: SqlStore, clock: FakeClock) -> None:
    await new_room(store)
    clock.advance(timedelta(minutes=5))
    await store.update_room("room-1", status="playing", settings={"target": 200}, host_seat=2)
    room = (await store.get_room("room-1")).room
    assert (room.status, room.settings, room.host_seat) == ("playing", {"target": 200}, 2)
    assert room.updated_at == clock.now
    assert room.created_at == clock.now - timedelta(minutes=5)


async def test_set_seat_inserts_or_replaces(store: SqlStore) -> None:
    await new_room(store)
    cy = SeatRow("room-1", 2, name="Cy", token_hash="c" * 64)
    await store.set_seat(cy)
    await store.set_seat(SeatRow("room-1", 0))  # Ann left: the seat is empty again
    seats = (await store.get_room("room-1")).seats
    assert [(s.seat, s.name, s.token_hash) for s in seats] == [
        (0, None, None),
        (1, "Bot", None),
        (2, "Cy", "c" * 64),
        (3, None, None),
    ]


async def test_seat_number_out_of_range(store: SqlStore) -> None:
    await new_room(store)
    with pytest.raises(StoreError):
        await store.set_seat(SeatRow("room-1", 4, name="x"))


async def test_append_and_load_in_order(store: SqlStore) -> None:
    await new_room(store)
    game_id = await store.start_game("room-1", {"mode": "partnership"}, 1, "s3cret")
    for seq, n in enumerate([3, 4, 2, 4], start=1):
        await store.append_action(ActionRow(game_id, seq, (seq + 1) % 4, bid(n)))
    await store.append_action(ActionRow(game_id, 5, None, {"type": "time_up"}))
    stored = await store.get_room("room-1")
    assert stored.game is not None and stored.game.id == game_id
    assert stored.game.first_dealer == 1 and stored.game.seed == "s3cret"
    assert [(a.seq, a.seat, a.action) for a in stored.actions] == [
        (1, 2, bid(3)),
        (2, 3, bid(4)),
        (3, 0, bid(2)),
        (4, 1, bid(4)),
        (5, None, {"type": "time_up"}),
    ]
    assert all(a.at is not None and a.at.tzinfo is not None for a in stored.actions)


@pytest.mark.parametrize("bad_seq", [-1, 0, 1, 2, 4, 9])
async def test_append_refuses_a_sequence_gap_and_keeps_the_log(
    store: SqlStore, bad_seq: int
) -> None:
    await new_room(store)
    game_id = await store.start_game("room-1", {}, 0, "seed")
    await store.append_action(ActionRow(game_id, 1, 1, bid(3)))
    await store.append_action(ActionRow(game_id, 2, 2, bid(4)))
    with pytest.raises(SequenceError, match="next action is seq 3"):
        await store.append_action(ActionRow(game_id, bad_seq, 3, bid(5)))
    actions = (await store.get_room("room-1")).actions
    assert [(a.seq, a.action) for a in actions] == [(1, bid(3)), (2, bid(4))]
    # The log goes on from where it was.
    await store.append_action(ActionRow(game_id, 3, 3, bid(1)))
    assert len((await store.get_room("room-1")).actions) == 3


async def test_append_to_an_unknown_game(store: SqlStore) -> None:
    with pytest.raises(NotFound):
        await store.append_action(ActionRow(999, 1, 0, bid(1)))


async def test_concurrent_appends_share_commits_and_keep_every_log(store: SqlStore) -> None:
    games = []
    for r in range(8):
        await new_room(store, f"room-{r}")
        games.append(await store.start_game(f"room-{r}", {}, r % 4, f"seed-{r}"))

    async def play(game_id: int) -> None:
        for seq in range(1, 31):
            await store.append_action(ActionRow(game_id, seq, seq % 4, {"n": seq}))

    commits = store.commits
    await asyncio.gather(*(play(g) for g in games))
    assert store.commits - commits < 8 * 30  # some commits carried several rooms' actions
    for r, game_id in enumerate(games):
        stored = await store.get_room(f"room-{r}")
        assert stored.game is not None and stored.game.id == game_id
        assert [a.action["n"] for a in stored.actions] == list(range(1, 31))


async def test_the_commit_interval_gathers_busy_rooms_and_never_holds_a_lone_one(
    store: SqlStore,
) -> None:
    """Under load, group commits start at most once per `commit_interval`, each taking
    what arrived meanwhile; a room acting alone (one append per commit) is never held."""
    games = []
    for r in range(6):
        await new_room(store, f"room-{r}")
        games.append(await store.start_game(f"room-{r}", {}, r % 4, f"seed-{r}"))
    store.commit_interval = 60.0  # held once would take a minute
    commits = store.commits
    async with asyncio.timeout(30):
        for seq in range(1, 41):
            await store.append_action(ActionRow(games[0], seq, seq % 4, {"n": seq}))
    assert store.commits - commits == 40

    store.commit_interval = 0.05

    async def play(game_id: int, first: int) -> None:
        for seq in range(first, first + 10):
            await store.append_action(ActionRow(game_id, seq, seq % 4, {"n": seq}))

    commits = store.commits
    await asyncio.gather(play(games[0], 41), *(play(g, 1) for g in games[1:]))
    # Six rooms at once: after the first commits, each gathers an action of every room.
    assert store.commits - commits <= 20
    for r, game_id in enumerate(games):
        stored = await store.get_room(f"room-{r}")
        assert stored.game is not None and stored.game.id == game_id
        assert [a.action["n"] for a in stored.actions] == list(range(1, 51 if r == 0 else 11))


async def test_a_bad_append_in_a_batch_fails_alone(store: SqlStore) -> None:
    games = []
    for r in range(3):
        await new_room(store, f"room-{r}")
        games.append(await store.start_game(f"room-{r}", {}, 0, "seed"))
    results = await asyncio.gather(
        store.append_action(ActionRow(games[0], 1, 0, {"n": 1})),
        store.append_action(ActionRow(games[1], 2, 0, {"n": 2})),  # gap
        store.append_action(ActionRow(games[2], 1, 0, {"n": 1})),
        store.append_action(ActionRow(games[0], 2, 0, {"n": 2})),
        store.append_action(ActionRow(games[0], 2, 0, {"n": 2})),  # duplicate
        store.append_action(ActionRow(12345, 1, 0, {"n": 1})),  # no such game
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None and results[3] is None
    assert isinstance(results[1], SequenceError)
    assert isinstance(results[4], SequenceError)
    assert isinstance(results[5], NotFound)
    logs = [[a.seq for a in (await store.get_room(f"room-{r}")).actions] for r in range(3)]
    assert logs == [[1, 2], [], [1]]


async def test_an_append_is_visible_to_another_store_when_it_returns(db_url: str) -> None:
    """Durable on return: a second, independent connection pool sees it at once."""
    writer = await open_store(db_url)
    reader = await open_store(db_url)
    try:
        await new_room(writer)
        game_id = await writer.start_game("room-1", {}, 0, "seed")
        for seq in range(1, 6):
            await writer.append_action(ActionRow(game_id, seq, 0, {"n": seq}))
            assert [a.seq for a in (await reader.get_room("room-1")).actions][-1] == seq
    finally:
        await writer.close()
        await reader.close()


async def test_load_unfinished(store: SqlStore) -> None:
    for name in ("open", "playing", "finished", "abandoned"):
        await new_room(store, name)
    await store.update_room("playing", status="playing")
    await store.update_room("finished", status="finished")
    await store.update_room("abandoned", status="abandoned")
    # "playing" finished one game and is in the middle of the next.
    old = await store.start_game("playing", {}, 0, "old")
    await store.append_action(ActionRow(old, 1, 1, bid(1)))
    await store.finish_game(old, 0, [500, 120])
    current = await store.start_game("playing", {"mode": "individual"}, 2, "new")
    await store.append_action(ActionRow(current, 1, 3, bid(2)))
    await store.append_action(ActionRow(current, 2, 0, bid(5)))
    finished_room_game = await store.start_game("finished", {}, 0, "f")
    await store.finish_game(finished_room_game, 1, [100, 500])

    loaded = {s.room.id: s for s in await store.load_unfinished()}
    assert set(loaded) == {"open", "playing"}
    assert loaded["open"].game is None and loaded["open"].actions == []
    assert len(loaded["open"].seats) == 4
    playing = loaded["playing"]
    assert playing.room.status == "playing"
    assert playing.game is not None and playing.game.id == current
    assert playing.game.rules == {"mode": "individual"} and playing.game.first_dealer == 2
    assert [(a.seq, a.action) for a in playing.actions] == [(1, bid(2)), (2, bid(5))]


async def test_hands_and_finished_games(store: SqlStore) -> None:
    await new_room(store)
    game_id = await store.start_game("room-1", {}, 0, "seed")
    summary = {
        "hand": 1,
        "bids": [3, "nil", 4, 2],
        "tricks": [3, 0, 5, 5],
        "points": [71, -20],
        "bags": [1, 0],
        "seed": "hand-seed-1",
    }
    await store.finish_hand(HandRow(game_id, 1, summary))
    with pytest.raises(StoreError):
        await store.finish_hand(HandRow(game_id, 1, summary))
    assert await store.finished_games("room-1") == []  # still being played
    await store.finish_game(game_id, 0, [510, 230])
    with pytest.raises(NotFound):
        await store.finish_game(4242, 0, [0, 0])
    [done] = await store.finished_games("room-1")
    assert done.game.id == game_id and done.game.winner == 0
    assert done.game.final_scores == [510, 230]
    assert done.game.finished_at is not None
    assert [(h.hand_number, h.summary) for h in done.hands] == [(1, summary)]
    async with store.engine.connect() as conn:
        row = (await conn.execute(text("SELECT bids, tricks, points, bags FROM hands"))).one()
    assert [_json(v) for v in row] == [[3, "nil", 4, 2], [3, 0, 5, 5], [71, -20], [1, 0]]
    assert (await store.get_room("room-1")).game is None


async def test_hands_stored_among_appends_fail_alone(store: SqlStore) -> None:
    """Finished hands share the appends' group commit (PostgreSQL and an SQLite file
    alike): one already stored, one of no game and one JSON cannot hold are refused each on
    its own, and the appends and good hands of their batch are stored all the same."""
    await new_room(store)
    game_id = await store.start_game("room-1", {}, 0, "seed")

    def summary(n: int) -> dict[str, object]:
        return {"hand": n, "bids": [3, "nil", 4, 2], "tricks": [3, 0, 5, 5], "points": [n, 0]}

    await store.finish_hand(HandRow(game_id, 1, summary(1)))
    results = await asyncio.gather(
        store.append_action(ActionRow(game_id, 1, 1, bid(2))),
        store.finish_hand(HandRow(game_id, 1, summary(1))),  # stored already
        store.finish_hand(HandRow(4242, 1, summary(1))),  # no such game
        store.finish_hand(HandRow(game_id, 2, {**summary(2), "odd": {1, 2}})),  # not JSON
        store.finish_hand(HandRow(game_id, 3, summary(3))),
        store.append_action(ActionRow(game_id, 2, 2, bid(3))),
        return_exceptions=True,
    )
    assert results[0] is None and results[4] is None and results[5] is None
    assert all(isinstance(r, StoreError) for r in results[1:4]), results
    await store.finish_hand(HandRow(game_id, 2, summary(2)))
    assert [a.seq for a in (await store.get_room("room-1")).actions] == [1, 2]
    await store.finish_game(game_id, 0, [510, 230])
    [done] = await store.finished_games("room-1")
    assert [(h.hand_number, h.summary) for h in done.hands] == [(n, summary(n)) for n in (1, 2, 3)]
    async with store.engine.connect() as conn:
        bags = (await conn.execute(text("SELECT bags FROM hands WHERE hand_number = 3"))).one()
    assert _json(bags[0]) is None  # a key the summary lacks is JSON null, as SQLAlchemy's


@pytest.mark.parametrize("backend", ["postgresql"])  # overrides the fixture's two stores
async def test_postgres_game_writes_take_the_driver_path(
    store: SqlStore, backend: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL a game's start and end, a hand and the room's status go by asyncpg's own
    connection in the group commit, never by SQLAlchemy's engine; what they store reads
    back as the engine's own writes do."""
    await new_room(store)

    def no_engine() -> None:
        raise AssertionError("a game write went through SQLAlchemy")

    monkeypatch.setattr(store._access, "write", no_engine)
    game_id = await store.start_game("room-1", {"mode": "individual"}, 2, "seed-x")
    await store.update_room("room-1", status="playing", settings={"target": 250})
    await store.append_action(ActionRow(game_id, 1, 2, bid(4)))
    await store.finish_hand(HandRow(game_id, 1, {"hand": 1, "bids": [4]}))
    await store.finish_game(game_id, 1, [260, 100, 80, -40])
    with pytest.raises(NotFound):
        await store.start_game("nope", {}, 0, "seed")
    with pytest.raises(NotFound):
        await store.update_room("nope", status="finished")
    with pytest.raises(NotFound):
        await store.finish_game(4242, 0, [0, 0])
    monkeypatch.undo()
    room = (await store.get_room("room-1")).room
    assert (room.status, room.settings, room.updated_at) == ("playing", {"target": 250}, clock.now)
    [done] = await store.finished_games("room-1")
    assert (done.game.rules, done.game.first_dealer, done.game.seed) == (
        {"mode": "individual"},
        2,
        "seed-x",
    )
    assert (done.game.winner, done.game.final_scores) == (1, [260, 100, 80, -40])
    assert done.game.started_at == done.game.finished_at == clock.now
    assert [h.summary for h in done.hands] == [{"hand": 1, "bids": [4]}]


def _json(value: object) -> object:
    import json

    return json.loads(value) if isinstance(value, str) else value


async def test_chat(store: SqlStore, clock: FakeClock) -> None:
    await new_room(store)
    for i in range(5):
        clock.advance(timedelta(seconds=1))
        await store.add_chat("room-1", i % 4 if i else None, f"p{i}", f"message {i}")
    recent = await store.recent_chat("room-1", limit=3)
    assert [m["text"] for m in recent] == ["message 2", "message 3", "message 4"]
    assert recent[-1] == {
        "seat": 0,
        "name": "p4",
        "text": "message 4",
        "at": int(clock.now.timestamp() * 1000),
    }
    assert (await store.recent_chat("room-1"))[0]["seat"] is None
    assert await store.recent_chat("other") == []
    # Many rooms in one read: each its own last messages, a room without any empty.
    await new_room(store, "room-2")
    await new_room(store, "room-3")
    await store.add_chat("room-2", 1, "q", "only one")
    many = await store.recent_chats(["room-1", "room-2", "room-3", "nope"], 2)
    assert many["room-1"] == recent[-2:]
    assert [m["text"] for m in many["room-2"]] == ["only one"]
    assert many["room-3"] == many["nope"] == []


async def test_purge_abandoned(store: SqlStore, clock: FakeClock) -> None:
    for name in ("old-abandoned", "old-open", "new-abandoned"):
        await new_room(store, name)
    game_id = await store.start_game("old-abandoned", {}, 0, "seed")
    await store.append_action(ActionRow(game_id, 1, 1, bid(2)))
    await store.finish_hand(HandRow(game_id, 1, {"hand": 1}))
    await store.add_chat("old-abandoned", 0, "Ann", "bye")
    await store.update_room("old-abandoned", status="abandoned")
    clock.advance(timedelta(days=8))
    await store.update_room("new-abandoned", status="abandoned")
    clock.advance(timedelta(days=1))

    assert await store.purge_abandoned(timedelta(days=7)) == 1
    with pytest.raises(NotFound):
        await store.get_room("old-abandoned")
    with pytest.raises(NotFound):
        await store.export_game(game_id)
    await store.get_room("old-open")  # old but not abandoned: kept
    await store.get_room("new-abandoned")  # abandoned, but recently: kept
    async with store.engine.connect() as conn:
        for table in ("seats", "games", "actions", "hands", "chat_messages"):
            count = (
                await conn.execute(
                    text(f"SELECT count(*) FROM {table} WHERE {_room_filter(table)}"),
                    {"room": "old-abandoned", "game": game_id},
                )
            ).scalar_one()
            assert count == 0, table
    assert await store.purge_abandoned(timedelta(days=7)) == 0


def _room_filter(table: str) -> str:
    return "game_id = :game" if table in ("actions", "hands") else "room_id = :room"


async def test_ping_and_close(db_url: str) -> None:
    opened = await open_store(db_url)
    assert await opened.ping()
    await opened.close()
    await opened.close()  # closing twice is harmless
    with pytest.raises(StoreError):
        await opened.append_action(ActionRow(1, 1, 0, bid(1)))


async def test_sqlite_is_wal_with_foreign_keys(sqlite_template: Path, tmp_path: Path) -> None:
    path = tmp_path / "pragmas.db"
    shutil.copyfile(sqlite_template, path)
    opened = await open_store(f"sqlite+aiosqlite:///{path}")
    try:
        async with opened.engine.connect() as conn:
            assert (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar_one() == "wal"
            assert (await conn.exec_driver_sql("PRAGMA foreign_keys")).scalar_one() == 1
            assert (await conn.exec_driver_sql("PRAGMA synchronous")).scalar_one() == 2  # FULL
    finally:
        await opened.close()


async def test_in_memory_sqlite_needs_no_migration() -> None:
    memory = await open_store("sqlite+aiosqlite://")
    try:
        await new_room(memory)
        game_id = await memory.start_game("room-1", {}, 0, "seed")
        await memory.append_action(ActionRow(game_id, 1, 1, bid(4)))
        assert [a.seq for a in (await memory.get_room("room-1")).actions] == [1]
    finally:
        await memory.close()


async def test_unreachable_database_is_reported() -> None:
    with pytest.raises(StoreError):
        await open_store("postgresql+asyncpg://postgres@127.0.0.1:1/nothing-listens-here")


async def test_two_writers_racing_for_one_sequence_number(db_url: str) -> None:
    """Two stores on one database (as two server processes would be): of two appends of the
    same number exactly one wins; the loser's batch-mates still go in."""
    first = await open_store(db_url)
    second = await open_store(db_url)
    try:
        await new_room(first, "room-a")
        await new_room(first, "room-b")
        game_a = await first.start_game("room-a", {}, 0, "seed")
        game_b = await first.start_game("room-b", {}, 0, "seed")
        for _ in range(5):
            results = await asyncio.gather(
                first.append_action(ActionRow(game_a, 1, 0, {"by": "first"})),
                second.append_action(ActionRow(game_a, 1, 0, {"by": "second"})),
                second.append_action(ActionRow(game_b, 1, 0, {"by": "second"})),
                return_exceptions=True,
            )
            assert sum(r is None for r in results[:2]) == 1
            assert all(isinstance(r, SequenceError) for r in results[:2] if r is not None)
            assert results[2] is None
            a = (await first.get_room("room-a")).actions
            b = (await first.get_room("room-b")).actions
            assert [x.seq for x in a] == [1] and [x.seq for x in b] == [1]
            # Next round on fresh games.
            await first.finish_game(game_a, None, [0, 0])
            await first.finish_game(game_b, None, [0, 0])
            game_a = await first.start_game("room-a", {}, 0, "seed")
            game_b = await first.start_game("room-b", {}, 0, "seed")
    finally:
        await first.close()
        await second.close()


async def test_a_second_writer_on_the_same_log_is_seen(db_url: str) -> None:
    """Each store may remember where a log ends; another store appending to the same log
    must neither be overwritten nor make a correct next number look wrong."""
    first = await open_store(db_url)
    second = await open_store(db_url)
    try:
        await new_room(first)
        game_id = await first.start_game("room-1", {}, 0, "seed")
        await first.append_action(ActionRow(game_id, 1, 0, {"by": "first"}))
        await second.append_action(ActionRow(game_id, 2, 0, {"by": "second"}))
        with pytest.raises(SequenceError):  # first remembers 1, the log has 2
            await first.append_action(ActionRow(game_id, 2, 0, {"by": "first"}))
        await first.append_action(ActionRow(game_id, 3, 0, {"by": "first"}))
        await second.append_action(ActionRow(game_id, 4, 0, {"by": "second"}))
        with pytest.raises(SequenceError, match="next action is seq 5"):
            await first.append_action(ActionRow(game_id, 7, 0, {"by": "first"}))
        actions = (await first.get_room("room-1")).actions
        assert [(a.seq, a.action["by"]) for a in actions] == [
            (1, "first"),
            (2, "second"),
            (3, "first"),
            (4, "second"),
        ]
    finally:
        await first.close()
        await second.close()


async def test_appends_to_a_purged_game_are_refused(store: SqlStore, clock: FakeClock) -> None:
    await new_room(store)
    game_id = await store.start_game("room-1", {}, 0, "seed")
    await store.append_action(ActionRow(game_id, 1, 1, bid(2)))
    await store.update_room("room-1", status="abandoned")
    clock.advance(timedelta(days=8))
    assert await store.purge_abandoned(timedelta(days=7)) == 1
    with pytest.raises((NotFound, SequenceError)):
        await store.append_action(ActionRow(game_id, 2, 1, bid(2)))


async def test_stored_times_read_back_alike_on_every_path(store: SqlStore) -> None:
    """Appends (driver-level on SQLite) store times in the same form as every other write."""
    await new_room(store)
    game_id = await store.start_game("room-1", {}, 0, "seed")
    at = datetime(2026, 11, 30, 1, 2, 3, 456789, tzinfo=UTC)
    await store.append_action(ActionRow(game_id, 1, 0, bid(1), at=at))
    await store.append_action(ActionRow(game_id, 2, 1, {"type": "play", "card": "QS"}))
    actions = (await store.get_room("room-1")).actions
    assert actions[0].at == at
    assert actions[1].at is not None and actions[1].at.tzinfo is not None
    assert actions[1].action == {"type": "play", "card": "QS"}
