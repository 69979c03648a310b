"""A player whom the host puts out of a seat is told so (`unseated`), every `room`
counts the spectators, and quick chat comes from players only (issue 59)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from room_helpers import Conn, manager_for

from spades.api.models import SERVER_MESSAGE
from spades.rooms import ManualClock, Room


async def _hello(room: Room, conn: Conn, token: str | None) -> None:
    await room.call(room.attach, conn, token)


async def _act(room: Room, conn: Conn, **message: Any) -> None:
    await room.call(room.handle, conn, message)


async def test_the_player_put_out_of_a_seat_is_told(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {})
    host, bo, cy = Conn(), Conn(), Conn()
    await _hello(room, host, token)
    for name, seat, conn in (("Bo", 1, bo), ("Cy", 2, cy)):
        _, seat_token = await room.call(room.join, name, seat, False)
        await _hello(room, conn, seat_token)
    await _act(room, host, type="set_seat", seat=1, to="empty", id="free")
    await _act(room, host, type="set_seat", seat=2, to="bot", id="bot")
    told = [m for m in bo.messages + cy.messages if m["type"] == "unseated"]
    assert told == [
        {"type": "unseated", "seat": 1, "to": "empty"},
        {"type": "unseated", "seat": 2, "to": "bot"},
    ]
    for message in told:
        SERVER_MESSAGE.validate_python(message)
    assert bo.seat is None and bo.last_state()["room"]["you"] is None
    # Nobody else hears of it, and an empty seat made a bot tells no one.
    await _act(room, host, type="set_seat", seat=3, to="bot", id="again")
    assert not [m for m in host.messages if m["type"] == "unseated"]
    assert len([m for m in bo.messages + cy.messages if m["type"] == "unseated"]) == 2
    await manager.stop()


async def test_every_room_counts_its_spectators(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {})
    host = Conn()
    await _hello(room, host, token)
    assert host.last_state()["room"]["spectators"] == 0
    watchers = [Conn() for _ in range(12)]
    for watcher in watchers[:2]:
        await _hello(room, watcher, None)
    assert host.last_state()["room"]["spectators"] == 2  # the player is sent the new count
    for watcher in watchers[2:]:
        await _hello(room, watcher, None)
    assert host.last_state()["room"]["spectators"] == 10  # ten or more
    await room.call(room.detach, watchers[0])
    assert host.last_state()["room"]["spectators"] == 10
    for watcher in watchers[1:4]:
        await room.call(room.detach, watcher)
    assert host.last_state()["room"]["spectators"] == 8
    await manager.stop()


async def test_quick_chat_reaches_everyone_and_never_comes_from_a_spectator(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {})
    host, watcher = Conn(), Conn()
    await _hello(room, host, token)
    await _hello(room, watcher, None)
    await _act(room, host, type="quick", phrase="good_game", id=1)
    said = {"type": "quick", "seat": 0, "phrase": "good_game"}
    assert said in host.messages and said in watcher.messages
    SERVER_MESSAGE.validate_python(said)
    await _act(room, watcher, type="quick", phrase="nice", id=2)
    await _act(room, host, type="quick", phrase="<b>", id=3)
    codes = [(e["code"], e["ref"]) for e in watcher.errors() + host.errors()]
    assert ("not_seated", 2) in codes and ("bad_request", 3) in codes
    assert [m["phrase"] for m in host.messages if m["type"] == "quick"] == ["good_game"]
    # Counted as chat: the room's chat limit holds for quick chat too.
    for n in range(25):
        await _act(room, host, type="quick", phrase="oops", id=f"q{n}")
    assert any(e["code"] == "chat_busy" for e in host.errors())
    await manager.stop()
