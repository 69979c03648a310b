"""Two managers on one database, as two processes of a cluster: join codes never collide
and the shared lobby lists the rooms of both."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from room_helpers import manager_for

from spades.rooms import ManualClock
from spades.rooms import manager as manager_module
from spades.store import open_store

SHARED = {"public_url": "http://spades.test"}


async def test_codes_never_collide_across_processes(
    store: Any, db_url: str, clock: ManualClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = await open_store(db_url, clock=lambda: datetime.fromtimestamp(clock.now(), UTC))
    first, second = (
        manager_for(store, clock, tmp_path, settings=SHARED),
        manager_for(other, clock, tmp_path, settings=SHARED),
    )
    # Randomness injected: both processes draw the same code first.
    codes = iter(["SAME22", "SAME22", "NEXT33", "LAST44"])
    monkeypatch.setattr(manager_module, "new_code", lambda: next(codes))
    try:
        made = await asyncio.gather(first.create("Ann", {}), second.create("Bo", {}))
        assert sorted(room.code for room, _, _ in made) == ["NEXT33", "SAME22"]
        for room, _, _ in made:
            stored = await store.get_room(room.room_id)
            assert stored.room.code == room.code
            assert stored.seats[0].name == room.seats[0].name
    finally:
        await first.stop()
        await second.stop()
        await other.close()


async def test_shared_lobby_lists_every_processs_rooms(
    store: Any, db_url: str, clock: ManualClock, tmp_path: Path
) -> None:
    other = await open_store(db_url, clock=lambda: datetime.fromtimestamp(clock.now(), UTC))
    here = manager_for(store, clock, tmp_path, settings=SHARED, shared_lobby=True)
    there = manager_for(other, clock, tmp_path, settings=SHARED)
    try:
        mine, _, _ = await here.create("Ann", {})
        clock.advance(1)
        theirs, _, _ = await there.create("Bo", {"bot_level": "basic"})
        await there.create("Cy", {"public": False})
        await there.create_solo("Di", {})
        await theirs.call(theirs.join, "Ed", None, False)

        lobby = await here.lobby()
        assert [r["code"] for r in lobby] == [mine.code, theirs.code]
        # The same entry the owning process lists for its own room.
        assert lobby[1] == there.public_rooms()[0]
        assert lobby[0] == here.public_rooms()[0]
        # Without the flag a manager lists its own rooms only, as before.
        assert [r["code"] for r in await there.lobby()] == [theirs.code]
    finally:
        await here.stop()
        await there.stop()
        await other.close()
