"""Players in the store, on both databases: a guest's row (its secret as a hash only), the
player of each seat, who was dealt into each game, a player's live rooms and finished games."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import bindparam, inspect, text
from store_support import FakeClock

from spades.store import (
    NotFound,
    PlayerRow,
    PlayerTaken,
    RoomRow,
    SeatRow,
    SqlStore,
    downgrade,
    open_store,
    upgrade,
)
from spades.store.models import UTCDateTime

AT = datetime(2026, 1, 1, tzinfo=UTC)
SETTINGS = {"mode": "individual", "target": 100, "public": False}


def player(pid: str, name: str | None = None) -> PlayerRow:
    return PlayerRow(id=pid, secret_hash=f"hash-of-{pid}", name=name)


async def room_with(store: SqlStore, room_id: str, seated: dict[int, str | None]) -> None:
    """A room whose seats 0..3 hold the given players (None: a human of no player); the
    seats not given hold bots."""
    seats = [
        SeatRow(room_id, s, name=f"P{s}", token_hash=f"t{s}", player_id=seated[s])
        if s in seated
        else SeatRow(room_id, s, name="Bot", bot_level="basic")
        for s in range(4)
    ]
    room = RoomRow(id=room_id, code=room_id.upper(), settings=SETTINGS, host_seat=0)
    await store.create_room(room, seats)


async def test_a_player_is_stored_and_renamed(store: SqlStore, clock: FakeClock) -> None:
    await store.create_player(player("ann", "Ann"))
    got = await store.get_player("ann")
    assert (got.id, got.secret_hash, got.name, got.created_at) == (
        "ann",
        "hash-of-ann",
        "Ann",
        clock.now,
    )
    with pytest.raises(PlayerTaken):
        await store.create_player(PlayerRow(id="ann", secret_hash="other"))
    assert (await store.get_player("ann")).secret_hash == "hash-of-ann"  # unchanged
    await store.rename_player("ann", "Annie")
    assert (await store.get_player("ann")).name == "Annie"
    with pytest.raises(NotFound):
        await store.get_player("nobody")
    with pytest.raises(NotFound):
        await store.rename_player("nobody", "X")


async def test_a_player_is_private_until_they_choose(store: SqlStore) -> None:
    await store.create_player(player("ann", "Ann"))
    assert (await store.get_player("ann")).public is False
    await store.update_player("ann", public=True)
    got = await store.get_player("ann")
    assert (got.name, got.public) == ("Ann", True)  # the name left alone
    await store.update_player("ann", name="Annie", public=False)
    got = await store.get_player("ann")
    assert (got.name, got.public) == ("Annie", False)
    await store.update_player("ann", name="Ann")
    assert (await store.get_player("ann")).public is False
    with pytest.raises(NotFound):
        await store.update_player("nobody", public=True)
    await store.create_player(PlayerRow(id="bob", secret_hash="h", public=True))
    assert (await store.get_player("bob")).public is True


async def test_seats_keep_their_player_and_games_record_who_was_dealt(store: SqlStore) -> None:
    for pid in ("ann", "bob"):
        await store.create_player(player(pid))
    await room_with(store, "r1", {0: "ann", 1: None})
    stored = await store.load_room("r1")
    assert [s.player_id for s in stored.seats] == ["ann", None, None, None]
    # Bob takes seat 2 (a bot's): set_seat keeps the player.
    await store.set_seat(SeatRow("r1", 2, name="Bob", token_hash="tb", player_id="bob"))
    assert [s.player_id for s in (await store.get_room("r1")).seats] == ["ann", None, "bob", None]
    first = await store.start_game("r1", {"mode": "individual"}, 0, "seed")
    assert await store.game_seat_players(first) == ["ann", None, "bob", None]
    # Seats change hands after the deal; the game keeps who was dealt into it.
    await store.set_seat(SeatRow("r1", 2, name="Bot", bot_level="basic"))
    assert await store.game_seat_players(first) == ["ann", None, "bob", None]
    second = await store.start_game("r1", {"mode": "individual"}, 1, "seed2")
    assert await store.game_seat_players(second) == ["ann", None, None, None]
    # A fenced owner (cluster mode) writes the same rows through its own path.
    await store.claim_room("r1", 3)
    third = await store.start_game("r1", {"mode": "individual"}, 2, "seed3", fence=3)
    assert await store.game_seat_players(third) == ["ann", None, None, None]
    assert await store.game_seat_players(999) == []


async def test_a_players_rooms_and_games(store: SqlStore, clock: FakeClock) -> None:
    for pid in ("ann", "bob"):
        await store.create_player(player(pid))
    await room_with(store, "live", {0: "ann", 1: "bob"})
    await room_with(store, "done", {0: "bob", 3: "ann"})
    await room_with(store, "gone", {0: "ann"})
    await store.update_room("done", status="finished")
    await store.update_room("gone", status="abandoned")
    assert [s.room.id for s in await store.player_rooms("ann")] == ["live"]
    assert [s.room.id for s in await store.player_rooms("bob")] == ["live"]
    assert await store.player_rooms("nobody") == []
    games = []
    for n in range(3):
        game = await store.start_game("done", {"mode": "individual", "target": 100}, n, "s")
        await store.finish_game(game, 3, [100, 20, 30, 110])
        games.append(game)
    unfinished = await store.start_game("live", {"mode": "individual"}, 0, "s")
    newest = await store.player_games("ann", limit=2)
    assert [g.game_id for g in newest] == [games[2], games[1]]
    g = newest[0]
    assert (g.room_code, g.seat, g.winner, g.final_scores) == ("DONE", 3, 3, [100, 20, 30, 110])
    assert g.room_settings == SETTINGS and g.rules["target"] == 100
    assert g.finished_at is not None
    assert [(p["seat"], p["name"], p["player_id"]) for p in g.players] == [
        (0, "P0", "bob"),
        (1, "Bot", None),
        (2, "Bot", None),
        (3, "P3", "ann"),
    ]
    older = await store.player_games("ann", before=games[1], limit=2)
    assert [g.game_id for g in older] == [games[0]]
    assert unfinished not in [g.game_id for g in await store.player_games("ann", limit=50)]
    assert await store.player_games("nobody") == []


async def test_purging_a_room_keeps_its_players(store: SqlStore, clock: FakeClock) -> None:
    await store.create_player(player("ann"))
    await room_with(store, "old", {0: "ann"})
    game = await store.start_game("old", {"mode": "individual"}, 0, "s")
    await store.update_room("old", status="abandoned")
    clock.advance(timedelta(days=2))
    assert await store.purge_abandoned(timedelta(days=1)) == 1
    assert (await store.get_player("ann")).id == "ann"
    assert await store.game_seat_players(game) == []
    async with store.engine.connect() as conn:
        left = (await conn.execute(text("SELECT count(*) FROM game_seats"))).scalar()
    assert left == 0


def test_the_players_migration_keeps_existing_rooms(empty_db_url: str) -> None:
    """0003 -> 0004 on a database with a room: its seats keep everything, with no player;
    0004 -> 0003 takes the players out again and keeps the room."""

    async def make_room() -> None:
        store = await open_store(empty_db_url)
        try:
            async with store.engine.begin() as conn:
                await conn.execute(
                    text(
                        "INSERT INTO rooms (id, code, settings, status, created_at, updated_at)"
                        " VALUES ('r', 'R', '{}', 'open', :at, :at)"
                    ).bindparams(bindparam("at", type_=UTCDateTime)),
                    {"at": AT},
                )
                await conn.execute(
                    text(
                        "INSERT INTO seats (room_id, seat, name, token_hash)"
                        " VALUES ('r', 0, 'Ann', 'h')"
                    )
                )
        finally:
            await store.close()

    async def seats() -> list[tuple[object, ...]]:
        store = await open_store(empty_db_url)
        try:
            stored = await store.get_room("r")
            return [(s.seat, s.name, s.token_hash, s.player_id) for s in stored.seats]
        finally:
            await store.close()

    upgrade(empty_db_url, "0003")
    asyncio.run(make_room())
    upgrade(empty_db_url)
    assert asyncio.run(seats()) == [(0, "Ann", "h", None)]
    downgrade(empty_db_url, "0003")
    upgrade(empty_db_url)
    assert asyncio.run(seats()) == [(0, "Ann", "h", None)]


def test_the_player_privacy_migration_keeps_players_and_their_seats(empty_db_url: str) -> None:
    """0004 -> 0005 on a database with a player in a seat: the player is kept, private; and
    0005 -> 0004 takes the column out again without touching the player or their seat."""

    async def make_player() -> None:
        store = await open_store(empty_db_url)
        try:
            async with store.engine.begin() as conn:
                await conn.execute(
                    text(
                        "INSERT INTO players (id, secret_hash, name, created_at)"
                        " VALUES ('ann', 'h', 'Ann', :at)"
                    ).bindparams(bindparam("at", type_=UTCDateTime)),
                    {"at": AT},
                )
            await room_with(store, "r", {0: "ann"})
        finally:
            await store.close()

    async def players() -> tuple[list[str], list[tuple[object, ...]]]:
        """The players table's columns, and each player with the player of seat 0, read
        with plain SQL (the store's models know a column that 0004 has not)."""
        store = await open_store(empty_db_url)
        try:
            async with store.engine.connect() as conn:
                columns = await conn.run_sync(
                    lambda c: [col["name"] for col in inspect(c).get_columns("players")]
                )
                rows = await conn.execute(
                    text(
                        "SELECT p.id, p.name, s.player_id FROM players p"
                        " JOIN seats s ON s.room_id = 'r' AND s.seat = 0"
                    )
                )
                return columns, [tuple(r) for r in rows]
        finally:
            await store.close()

    async def ann_public() -> bool:
        store = await open_store(empty_db_url)
        try:
            return (await store.get_player("ann")).public
        finally:
            await store.close()

    kept = [("ann", "Ann", "ann")]
    upgrade(empty_db_url, "0004")
    asyncio.run(make_player())
    upgrade(empty_db_url)
    columns, rows = asyncio.run(players())
    assert "public" in columns and rows == kept
    assert asyncio.run(ann_public()) is False
    downgrade(empty_db_url, "0004")
    columns, rows = asyncio.run(players())
    assert "public" not in columns and rows == kept  # the seat keeps its player
    upgrade(empty_db_url)
    assert asyncio.run(players())[1] == kept and asyncio.run(ann_public()) is False
