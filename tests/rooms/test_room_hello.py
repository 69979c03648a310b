"""A hello is answered to its sender alone: it costs the room one message, not one per
connection (issue 14: spectators saying hello again and again flooded everyone)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from room_helpers import Conn, manager_for

from spades.rooms import ManualClock


async def test_a_hello_answers_the_sender_only(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {"target": 100})
    player, watchers = Conn(), [Conn() for _ in range(5)]
    await room.call(room.attach, player, token)
    for watcher in watchers:
        await room.call(room.attach, watcher, None)
    everyone = [player, *watchers]

    async def counted(conn: Conn, token: str | None) -> list[int]:
        before = [len(c.messages) for c in everyone]
        await room.call(room.attach, conn, token, "h")
        return [len(c.messages) - b for c, b in zip(everyone, before, strict=True)]

    # A spectator's hello, again and again: one whole state to it, nothing to anyone else.
    for _ in range(3):
        assert await counted(watchers[2], None) == [0, 0, 0, 1, 0, 0]
        reply = watchers[2].wire[-1]
        assert reply["type"] == "state" and reply["ref"] == "h" and "room" in reply
    # The player's hello again on the same connection: the same.
    assert await counted(player, token) == [1, 0, 0, 0, 0, 0]
    assert player.wire[-1]["ref"] == "h" and player.wire[-1]["room"]["you"] == 0
    # A seat coming back online is news to the others: each is sent one state, no ref.
    await room.call(room.detach, player)
    back = Conn()
    everyone[0] = back
    assert await counted(back, token) == [1, 1, 1, 1, 1, 1]
    assert all(w.last_state()["room"]["seats"][0]["connected"] for w in watchers)
    assert all(w.wire[-1]["ref"] is None for w in watchers)
    await manager.stop()


async def test_spectators_past_the_rooms_cap_are_turned_away(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """Each spectator costs a message per action: a room lets in so many, then answers
    `room_crowded` and closes (4013); players always get in, and a freed place is taken."""
    manager = manager_for(store, clock, tmp_path, settings={"spectators_per_room": 2})
    await manager.start()
    room, _, token = await manager.create("Ann", {"target": 100})
    watchers = [Conn() for _ in range(3)]
    for watcher in watchers:
        await room.call(room.attach, watcher, None, "h")
    assert [w.closed for w in watchers[:2]] == [None, None]
    assert watchers[2].closed == (4013, "too many spectators")
    assert watchers[2].errors()[-1]["code"] == "room_crowded"
    assert watchers[2] not in room.audience
    await room.call(room.attach, watchers[0], None, "again")  # a resync is no newcomer
    assert watchers[0].closed is None and watchers[0].last_state()["room"]["you"] is None
    player = Conn()
    await room.call(room.attach, player, token)
    assert player.closed is None and player.last_state()["room"]["you"] == 0
    await room.call(room.detach, watchers[1])
    late = Conn()
    await room.call(room.attach, late, None)
    assert late.closed is None and late.states()
    await manager.stop()
