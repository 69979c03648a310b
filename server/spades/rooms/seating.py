"""Taking, leaving and filling seats. Each stores first and then changes the room, so a
failed write leaves the room as it was."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import BadRequest, RoomFull
from .seats import Seat, first_human
from .settings import clean_name, distinct_name
from .tokens import hash_token, new_token

if TYPE_CHECKING:
    from .room import Room


async def join(
    room: Room, name: str, seat: int | None, spectator: bool
) -> tuple[int | None, str | None]:
    """`POST /join` and `sit`: take a free seat (or the named one). Returns seat and token."""
    if spectator:
        return None, None
    name = clean_name(name, room.config.name_length)
    if room.status not in ("open", "finished") or room.game_in_progress():
        raise RoomFull("the game has started; you can watch", code="game_in_progress")
    if seat is None:
        free = [s.index for s in room.seats if s.kind == "empty"]
        if not free:
            raise RoomFull("every seat is taken")
        seat = free[0]
    if seat not in range(4):
        raise BadRequest("a seat is 0..3")
    if room.seats[seat].kind == "human":
        raise RoomFull(f"seat {seat} is taken")
    others = [s.name for s in room.seats if s.kind == "human" and s.index != seat and s.name]
    name = distinct_name(name, others, room.config.name_length)
    token = new_token()
    taken = Seat(seat, "human", name, None, hash_token(token))
    taken.disconnected_at = room.clock.now()
    await store_seat(room, taken)
    if room.host_seat is None or room.seats[room.host_seat].kind != "human":
        await room.set_host(seat)
    room.changed()
    return seat, token


async def store_seat(room: Room, seat: Seat) -> None:
    """Store first, then take it in memory: a failed write leaves the room as it was."""
    await room.write(room.store.set_seat(seat.row(room.room_id)))
    had = room.humans_connected()
    room.seats[seat.index] = seat
    room.humans_may_have_left(had)


async def vacate(room: Room, seat: int) -> None:
    await store_seat(room, Seat(seat))  # (which starts the idle time if they were the last)
    for conn in room.connections.values():
        if conn.seat == seat:
            conn.seat = None
    if room.host_seat == seat:
        await room.set_host(first_human(room.seats))


async def make_bot(room: Room, seat: int) -> None:
    await store_seat(room, Seat.bot(seat, room.settings.bot_level))
