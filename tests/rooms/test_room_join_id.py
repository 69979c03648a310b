"""A join asked again with its id gets the seat and token it got the first time, while that
seat still holds that token, for a while (rooms/joins.py); a real room on an SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from room_helpers import manager_for

from spades.rooms import ManualClock
from spades.rooms.joins import JOIN_MEMORY_SECONDS


async def test_a_join_id_answers_the_same_seat_while_it_holds(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    try:
        room, _, _ = await manager.create("host", {})
        first = await room.call(room.join, "ann", None, False, "id-of-ann-0123456")
        assert await room.call(room.join, "ann", None, False, "id-of-ann-0123456") == first
        assert [s.kind for s in room.seats].count("human") == 2
        other = await room.call(room.join, "bob", None, False, "id-of-bob-0123456")
        assert other[0] != first[0]
        # The seat given up (and taken by someone else): the id no longer stands for it.
        await room.call(room.seating.vacate, first[0])
        taken = await room.call(room.join, "cy", first[0], False, None)
        again = await room.call(room.join, "ann", None, False, "id-of-ann-0123456")
        assert again[0] not in (first[0], other[0], taken[0])
        stored = await store.get_room(room.room_id)
        assert sum(s.token_hash is not None for s in stored.seats) == 4
        # Forgotten after a while: the same id is a new join.
        later, _, _ = await manager.create("host", {})
        kept = await later.call(later.join, "dee", None, False, "id-of-dee-0123456")
        clock.advance(JOIN_MEMORY_SECONDS + 1)
        fresh = await later.call(later.join, "dee", None, False, "id-of-dee-0123456")
        assert fresh[0] != kept[0]
    finally:
        await manager.stop()
