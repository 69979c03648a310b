"""Ownership without Redis: two managers on one database with an in-memory lease table, as
two processes of a cluster. A room is claimed on demand, and an owner that lost its lease
is fenced out by the store: it writes nothing more and tells its sockets to reconnect."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from room_helpers import Conn, manager_for, settle

from spades.codes import CloseCode
from spades.rooms import (
    ManualClock,
    OwnedElsewhere,
)
from spades.store import open_store


class Leases:
    """The lease table the processes share (what Redis holds in a cluster)."""

    def __init__(self) -> None:
        self.holder: dict[str, str] = {}
        self.fences: dict[str, int] = {}


class MemoryOwnership:
    owns_everything = False

    def __init__(self, leases: Leases, node_id: str) -> None:
        self.leases = leases
        self.node_id = node_id
        self.callbacks: list[Callable[[str], None]] = []

    async def claim(self, room_id: str) -> int | None:
        await asyncio.sleep(0)  # a round trip to Redis: other tasks run meanwhile
        if room_id in self.leases.holder:
            # A lease handed to this process is taken (as RedisOwnership does).
            if self.leases.holder[room_id] == self.node_id:
                return self.leases.fences[room_id]
            return None
        self.leases.holder[room_id] = self.node_id
        self.leases.fences[room_id] = self.leases.fences.get(room_id, 0) + 1
        return self.leases.fences[room_id]

    async def release(self, room_id: str) -> None:
        if self.leases.holder.get(room_id) == self.node_id:
            del self.leases.holder[room_id]

    async def hand_over(self, room_id: str, node: str) -> None:
        if self.leases.holder.get(room_id) == self.node_id:
            self.leases.holder[room_id] = node
            self.leases.fences[room_id] += 1

    async def owner_of(self, room_id: str) -> str | None:
        return self.leases.holder.get(room_id)

    def on_lost(self, callback: Callable[[str], None]) -> None:
        self.callbacks.append(callback)

    def lapse(self, room_id: str) -> None:
        """The lease ran out (the owner was paused): nobody is told."""
        self.leases.holder.pop(room_id, None)


@pytest.fixture
async def other_store(db_url: str, clock: ManualClock) -> Any:
    s = await open_store(db_url, clock=lambda: datetime.fromtimestamp(clock.now(), UTC))
    yield s
    await s.close()


async def test_claim_on_demand_and_a_fenced_owner_drops_its_room(
    store: Any, other_store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    leases = Leases()
    a_own, b_own = MemoryOwnership(leases, "a"), MemoryOwnership(leases, "b")
    a = manager_for(store, clock, tmp_path, ownership=a_own)
    b = manager_for(other_store, clock, tmp_path, ownership=b_own)
    try:
        assert await a.start() == 0 and await b.start() == 0  # nothing reloaded at start
        room, _, token = await a.create("Ann", {})
        assert leases.holder[room.code] == "a"
        with pytest.raises(OwnedElsewhere) as caught:
            await b.get(room.code)
        assert caught.value.owner == "a"

        conn = Conn()
        await room.call(room.attach, conn, token)
        # A is paused past its lease; B claims the room (fence 2) and loads it.
        a_own.lapse(room.code)
        taken = await b.get(room.code)
        assert taken is not room and leases.holder[room.code] == "b"
        # A wakes up and writes: the store refuses (fence 1 < 2) and A drops the room.
        await room.call(room.handle, conn, {"type": "chat", "text": "hi"}, 0.0)
        await settle(lambda: room.code not in a.rooms and conn.closed is not None)
        assert conn.closed is not None and conn.closed[0] == CloseCode.RECONNECT
        # Not the player's fault, and nothing was stored: no error, only "reconnect".
        assert conn.errors() == []
        chats = await other_store.recent_chat(room.room_id)
        assert chats == []  # nothing of A's landed after B's claim
        # B goes on as the owner.
        b_conn = Conn()
        await taken.call(taken.attach, b_conn, token)
        await taken.call(taken.handle, b_conn, {"type": "chat", "text": "hello"}, 0.0)
        assert [c["text"] for c in await store.recent_chat(room.room_id)] == ["hello"]
    finally:
        await a.stop()
        await b.stop()


async def test_a_room_handed_over_is_claimed_once_however_many_ask_at_once(
    store: Any, other_store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """A table's four sockets (and the yield's own claim) ask for the room together, before
    and while it is handed over: one actor, one Room, the handed fence. (The claim lock of a
    room was dropped when released, so a woken waiter and a newcomer claimed at once.)"""
    leases = Leases()
    a = manager_for(store, clock, tmp_path, ownership=MemoryOwnership(leases, "a"))
    b = manager_for(other_store, clock, tmp_path, ownership=MemoryOwnership(leases, "b"))
    try:
        await a.start()
        await b.start()
        room, _, _ = await a.create("Ann", {})
        rng = random.Random(7)

        async def ask() -> Any:
            while True:
                try:
                    return await b.get(room.code)
                except OwnedElsewhere:
                    await asyncio.sleep(rng.choice((0, 0, 0.0001, 0.0003)))

        asking = [asyncio.ensure_future(ask()) for _ in range(40)]
        await asyncio.sleep(0.005)
        await a.drop(room.room_id, release=True, to="b")
        assert leases.holder[room.code] == "b" and leases.fences[room.code] == 2
        # A third process finds the lease taken in between.
        with pytest.raises(OwnedElsewhere):
            await manager_for(store, clock, tmp_path, ownership=MemoryOwnership(leases, "c")).get(
                room.code
            )
        got = await asyncio.wait_for(asyncio.gather(*asking), 10)
        assert len({id(r) for r in got}) == 1 and b.rooms[room.code] is got[0]
        assert leases.fences[room.code] == 2
    finally:
        await a.stop()
        await b.stop()


async def test_drain_hands_every_room_over(store: Any, clock: ManualClock, tmp_path: Path) -> None:
    leases = Leases()
    a = manager_for(store, clock, tmp_path, ownership=MemoryOwnership(leases, "a"))
    try:
        room, _, token = await a.create("Ann", {})
        conn = Conn()
        await room.call(room.attach, conn, token)
        await a.drain()
        assert a.rooms == {} and leases.holder == {}
        assert conn.closed is not None and conn.closed[0] == CloseCode.RECONNECT
        with pytest.raises(OwnedElsewhere):  # a draining process takes no room
            await a.get(room.code)
    finally:
        await a.stop()


async def test_a_move_fenced_out_tells_its_player_to_reconnect_and_stores_nothing(
    store: Any, other_store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """A move that reaches a process which has just lost its room (another claimed it) is
    not the player's fault: no `storage_error`, the socket is closed with 4012, and the new
    owner's game goes on from the same seq (the move is played again there)."""
    leases = Leases()
    a_own, b_own = MemoryOwnership(leases, "a"), MemoryOwnership(leases, "b")
    a = manager_for(store, clock, tmp_path, ownership=a_own)
    b = manager_for(other_store, clock, tmp_path, ownership=b_own)
    try:
        await a.start()
        await b.start()
        room, _, token = await a.create("Ann", {"mode": "individual", "target": 60})
        conn = Conn()
        await room.call(room.attach, conn, token)
        for seat in (1, 2, 3):
            msg = {"type": "set_seat", "seat": seat, "to": "bot"}
            await room.call(room.handle, conn, msg, 0.0)
        await room.call(room.handle, conn, {"type": "start", "id": "go"}, 0.0)
        # Stop at the human's turn (bots move on the manual clock).
        for _ in range(400):
            view = conn.last_state()["view"]
            if view["to_act"] == 0 and view["legal"]:
                break
            clock.advance(5)
            await asyncio.sleep(0.005)
        view = conn.last_state()["view"]
        assert view["to_act"] == 0 and view["legal"]
        seq = room.seq
        a_own.lapse(room.code)
        taken = await b.get(room.code)
        assert taken.seq == seq
        move = {**view["legal"][-1], "id": "m"}
        await room.call(room.handle, conn, move, 0.0)
        await settle(lambda: conn.closed is not None)
        assert conn.closed is not None and conn.closed[0] == CloseCode.RECONNECT
        assert [e["code"] for e in conn.errors()] == []
        record = await other_store.export_game(taken.game_id, in_progress=True)
        assert len(record["actions"]) == seq  # the fenced move was not stored
        assert taken.seq == seq
    finally:
        await a.stop()
        await b.stop()
