"""The purge of long-abandoned rooms keeps every finished game (issue 58, "Data").

A room abandoned after it finished a game stays as a tombstone: its code still finds its
history, its finished games' records and logs and hands are whole, and its seats still
name the players; its chat, its unfinished game and its token hashes go. On both
databases (the store fixtures)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import text
from store_support import FakeClock

from spades.store import ActionRow, HandRow, RoomRow, SeatRow, SqlStore


async def new_room(store: SqlStore, room_id: str) -> None:
    seats = [SeatRow(room_id, 0, name="Ann", token_hash="a" * 64)]
    seats += [SeatRow(room_id, i, name="Bot", bot_level="basic") for i in (1, 2, 3)]
    room = RoomRow(id=room_id, code=room_id.upper(), settings={}, host_seat=0)
    await store.create_room(room, seats)


def bid(n: int) -> dict[str, object]:
    return {"type": "bid", "bid": n}


async def _count(store: SqlStore, sql: str, **params: object) -> int:
    async with store.engine.connect() as conn:
        return int((await conn.execute(text(sql), params)).scalar_one())


async def test_a_purged_room_keeps_its_finished_games(store: SqlStore, clock: FakeClock) -> None:
    await new_room(store, "played")
    await new_room(store, "never-finished")
    first = await store.start_game("played", {}, 0, "seed-1")
    await store.append_action(ActionRow(first, 1, 0, bid(3)))
    await store.finish_hand(HandRow(first, 1, {"hand": 1}))
    await store.finish_game(first, 0, [510, 120])
    second = await store.start_game("played", {}, 1, "seed-2")  # abandoned mid-game
    await store.append_action(ActionRow(second, 1, 1, bid(2)))
    await store.finish_hand(HandRow(second, 1, {"hand": 1}))
    await store.add_chat("played", 0, "Ann", "gg")
    await store.start_game("never-finished", {}, 0, "seed-3")
    for room_id in ("played", "never-finished"):
        await store.update_room(room_id, status="abandoned")
    clock.advance(timedelta(days=8))

    assert await store.purge_abandoned(timedelta(days=7)) == 2
    # The tombstone: found by its code, its finished game whole and readable by anyone.
    assert await store.room_id_for_code("PLAYED") == "played"
    [kept] = await store.finished_games("played")
    assert kept.game.id == first and kept.game.final_scores == [510, 120]
    assert [h.summary for h in kept.hands] == [{"hand": 1}]
    record = await store.export_game(first)
    assert record["seed"] == "seed-1" and len(record["actions"]) == 1
    seats = (await store.game_room(first)).seats
    assert seats[0].name == "Ann" and all(s.token_hash is None for s in seats)
    # What nobody needs again is gone: the unfinished game (its log and hands), the chat.
    for table, where, value in (
        ("games", "id", second),
        ("actions", "game_id", second),
        ("hands", "game_id", second),
        ("chat_messages", "room_id", "played"),
        ("rooms", "id", "never-finished"),
        ("games", "room_id", "never-finished"),
    ):
        sql = f"SELECT count(*) FROM {table} WHERE {where} = :v"
        assert await _count(store, sql, v=value) == 0, (table, value)
    assert await _count(store, "SELECT count(*) FROM actions WHERE game_id = :g", g=first) == 1
    assert await _count(store, "SELECT count(*) FROM hands WHERE game_id = :g", g=first) == 1
    # An emptied tombstone is left alone by later purges.
    clock.advance(timedelta(days=30))
    assert await store.purge_abandoned(timedelta(days=7)) == 0
    assert await store.room_id_for_code("PLAYED") == "played"
    assert len(await store.finished_games("played")) == 1
