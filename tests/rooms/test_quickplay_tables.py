"""Quick play's tables, made by a real manager on a real store: the seats are handed over
while the deal is stored (a hello waits behind the deal in the room), and a table whose
deal cannot be stored is closed, its players' seats with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from room_helpers import manager_for, settle

from spades.rooms import ManualClock, RoomError
from spades.rooms.quickplay import Entry, QuickPlayConfig, Seated
from spades.rooms.quickplay_local import LocalQueue
from spades.rooms.quickplay_service import QuickPlay
from spades.store import PlayerRow

CONFIG = QuickPlayConfig(
    window=100.0, widen=10.0, expire=60.0, seating=10.0, tick=0.5, turn_seconds=0
)


async def seated_alone(quickplay: QuickPlay, clock: ManualClock) -> Seated:
    """Ann queues with bots after 5 s, the time passes, the matcher makes her table."""
    await quickplay.manager.store.create_player(PlayerRow(id="ann", secret_hash="h"))
    await quickplay.queue.join(
        Entry("ann", "Ann", "individual:200", 1500.0, clock.now(), clock.now() + 5), clock.now()
    )
    clock.advance(5)
    assert await quickplay.match_all() == 1
    await settle(lambda: not quickplay._seating)
    state = await quickplay.queue.poll("ann", clock.now())
    assert isinstance(state, Seated)
    return state


async def test_a_table_is_dealt_before_anyone_sees_it(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    quickplay = QuickPlay(LocalQueue(expire=60.0), manager, CONFIG)
    try:
        seat = await seated_alone(quickplay, clock)
        room = manager.rooms[seat.code]
        assert room.game is not None and room.status == "playing"
        assert [s.kind for s in room.seats] == ["human", "bot", "bot", "bot"]
    finally:
        await quickplay.stop()
        await manager.stop()


async def test_a_table_whose_deal_cannot_be_stored_is_closed(
    store: Any, clock: ManualClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def refused(*args: Any, **kwargs: Any) -> int:
        raise OSError("the database is away")

    monkeypatch.setattr(store, "start_game", refused)
    manager = manager_for(store, clock, tmp_path)
    quickplay = QuickPlay(LocalQueue(expire=60.0), manager, CONFIG)
    try:
        seat = await seated_alone(quickplay, clock)  # (handed over before the deal failed)
        assert seat.code not in manager.rooms and quickplay.tables == 1
        stored = await store.get_room(seat.code)
        assert stored.room.status == "abandoned"
        with pytest.raises(RoomError):
            await manager.get(seat.code)
    finally:
        await quickplay.stop()
        await manager.stop()
