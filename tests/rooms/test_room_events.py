"""Events (docs/protocol.md, `event`): applied in order, they give every seat exactly the
view a whole state would, they follow the version each connection holds, and each carries
a seat's own keys to that seat only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from room_helpers import Conn, first_legal, manager_for

from spades.rooms import ManualClock, Room, RoomManager


class Checking(Conn):
    """A seat that compares the view it holds with the room's truth after every message."""

    def __init__(self, room: Room, seat: int | None) -> None:
        super().__init__(seat)
        self.room = room
        self.mismatches: list[tuple[int, list[str]]] = []

    def send(self, message: dict[str, Any] | bytes) -> None:
        super().send(message)
        game = self.room.game
        states = self.states()
        if game is None or not states or states[-1]["view"] is None:
            return
        truth, held = game.view(self.seat), states[-1]["view"]
        wrong = [key for key in truth if truth[key] != held.get(key)]
        if wrong:
            self.mismatches.append((states[-1]["seq"], wrong))


async def started_table(
    store: Any, clock: ManualClock, tmp_path: Path
) -> tuple[RoomManager, Room, list[str], list[Checking], Checking]:
    """A partnership game of four connected players and a spectator, just started."""
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("P0", {"mode": "partnership", "target": 100})
    tokens = [token]
    for seat in (1, 2, 3):
        _, t = await room.call(room.join, f"P{seat}", seat, False)
        tokens.append(t)
    seats = [Checking(room, s) for s in range(4)]
    for conn, t in zip(seats, tokens, strict=True):
        await room.call(room.attach, conn, t)
    watcher = Checking(room, None)
    await room.call(room.attach, watcher, None)
    await room.call(room.handle, seats[0], {"type": "start"})
    return manager, room, tokens, seats, watcher


async def test_events_give_each_seat_exactly_its_view(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager, room, _tokens, seats, watcher = await started_table(store, clock, tmp_path)
    late: Checking | None = None
    actions = 0
    game = room.game
    while game is not None and game.phase != "over":
        to_act = game.to_act
        assert to_act is not None
        await room.call(room.handle, seats[to_act], first_legal("", game.view(to_act)))
        actions += 1
        if actions == 30:  # a spectator arrives mid-hand: a whole state, then events
            late = Checking(room, None)
            await room.call(room.attach, late, None)
        game = room.game
    assert late is not None
    for conn in [*seats, watcher, late]:
        assert conn.mismatches == []
        assert conn.applied, "no events were sent"
        # Every event followed the state or event before it (the test client asserts it).
    for conn in seats:
        # A seat's own keys come in `you`, only those; most events to a seat carry none.
        mine = [event["you"] for event, _ in conn.applied if "you" in event]
        assert all(set(you) <= {"hand", "blind_nil_open", "legal"} for you in mine)
        assert 0 < len(mine) < len(conn.applied)
    for event, _ in [*watcher.applied, *late.applied]:
        assert "you" not in event
        assert not {"hand", "legal", "blind_nil_open", "seat"} & set(event["view"])
    await manager.stop()


async def test_a_room_part_shown_outside_an_event_is_the_next_events_base(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """A hello shows the others a changed `room` (a seat back, its flags cleared) in whole
    states of its own. If the next action sets the room back as it was before that hello
    (the seat timed out again, as a bot move does), the connections must hear of it: they
    hold the hello's `room`, not the one before it."""
    manager, room, tokens, seats, watcher = await started_table(store, clock, tmp_path)
    game = room.game
    assert game is not None
    to_act = game.to_act
    assert to_act is not None
    flagged = (to_act + 1) % 4

    async def act_and_flag() -> None:  # as a bot's move: the move, the flag, one broadcast
        current = room.game
        assert current is not None and current.to_act is not None
        await room.match.act(current.to_act, first_legal("", current.view(current.to_act)))
        room.seats[flagged].timed_out = True
        room.changed()

    await room.call(act_and_flag)
    assert watcher.last_state()["room"]["seats"][flagged]["timed_out"]
    # The flagged seat says hello again: its flags are cleared and the others are shown it.
    again = Checking(room, flagged)
    await room.call(room.attach, again, tokens[flagged])
    replaced = seats[flagged]
    assert replaced.closed is not None
    assert not watcher.last_state()["room"]["seats"][flagged]["timed_out"]
    await room.call(act_and_flag)  # flagged once more, with the next action
    for conn in (watcher, again, *[c for c in seats if c is not replaced]):
        assert conn.last_state()["room"]["seats"][flagged]["timed_out"], conn.seat
        assert conn.mismatches == []
    await manager.stop()
