"""Helpers shared by the store tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from spades.store import RoomRow, SeatRow, SqlStore

SETTINGS: dict[str, Any] = {
    "mode": "partnership",
    "target": 300,
    "bot_level": "basic",
    "public": False,
}


class FakeClock:
    """An injected clock: tests move time by hand instead of sleeping."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


async def new_game(store: SqlStore, room_id: str = "r1") -> int:
    """A room of four empty seats, and a game started in it: the game's id."""
    room = RoomRow(id=room_id, code=room_id.upper(), settings=SETTINGS, host_seat=0)
    await store.create_room(room, [SeatRow(room_id, i) for i in range(4)])
    return await store.start_game(room_id, {}, 0, "seed")
