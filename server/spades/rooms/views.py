"""What a room shows: its `room` part, its lobby summary, and each seat's state message."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .broadcast import Message
from .seats import host_away_until

if TYPE_CHECKING:
    from .room import Room


_SEAT_KEYS = ("seat", "name", "kind", "bot_level", "connected", "away", "timed_out")


def room_dict(room: Room, you: int | None = None) -> dict[str, Any]:
    # Plain loops, no comprehensions: this runs once per action, and on Python 3.11 each
    # comprehension is a function object made and called.
    online = set()
    for c in room.audience.connections.values():
        online.add(c.seat)
    seats = []
    for s in room.seats:
        seats.append(
            (
                s.index,
                s.name,
                s.kind,
                s.bot_level,
                s.kind == "bot" or s.index in online,
                s.away,
                s.timed_out,
            )
        )
    # The host dropped: when the host's role passes to a player who is here (presence.py
    # hands it over at the end of the grace period), so nobody waits without knowing why.
    host_back_by = None
    host_seat = room.host_seat
    if host_seat is not None and host_seat not in online:
        until = host_away_until(room.seats[host_seat], room.config.grace_seconds)
        host_back_by = None if until is None else round(until * 1000)
    # Everything the dict is made of, and it is made from this alone (so the two cannot drift).
    key = (
        room.room_id,
        room.code,
        room.status,
        room.host_seat,
        room.settings_dict,
        seats,
        room.game_id,
        room.invite_url,
        room.started_by,
        tuple(sorted(room.again)),
        host_back_by,
    )
    if you is not None:
        return _room_dict(key, you)
    # Every broadcast makes the spectator's `room` and compares it with the last one: while
    # nothing in it changed, the same (read-only) dict is given again, and that compare is
    # an identity check.
    memo = room.room_view_memo
    if memo is not None and memo[0] == key:
        return memo[1]
    made = _room_dict(key, None)
    room.room_view_memo = (key, made)
    return made


def _room_dict(key: tuple[Any, ...], you: int | None) -> dict[str, Any]:
    (
        room_id,
        code,
        status,
        host_seat,
        settings,
        seats,
        game_id,
        invite_url,
        started_by,
        again,
        host_back_by,
    ) = key
    return {
        "id": room_id,
        "code": code,
        "status": status,
        "host_seat": host_seat,
        "you": you,
        "settings": settings,
        "seats": [dict(zip(_SEAT_KEYS, seat, strict=True)) for seat in seats],
        "game_id": game_id,
        "invite_url": invite_url,
        "started_by": started_by,
        "again": list(again),
        "host_back_by": host_back_by,
    }


def summary(room: Room) -> dict[str, Any]:
    """The room as the lobby lists it."""
    seats = room.seats
    return {
        "id": room.room_id,
        "code": room.code,
        "status": room.status,
        "settings": room.settings_dict,
        "host": seats[room.host_seat].name if room.host_seat is not None else None,
        "seats": [{"seat": s.index, "name": s.name, "kind": s.kind} for s in seats],
        "open_seats": [s.index for s in seats if s.kind == "empty"],
        "invite_url": room.invite_url,
    }


def clock_dict(room: Room) -> dict[str, Any]:
    # epoch_ms inline (this runs once per action)
    turn, game = room.turn_deadline(), room.game_clock.deadline
    return {
        "turn_deadline": None if turn is None else round(turn * 1000),
        "game_deadline": None if game is None else round(game * 1000),
        "now": round(room.clock.now() * 1000),
    }


def state_builder(
    room: Room, shared: dict[str, Any] | None = None, clock: dict[str, Any] | None = None
) -> Callable[[int | None], Message]:
    """A function giving each seat's whole state message, each built once: the `room` and
    `clock` parts (made here unless given) are shared by every seat of one broadcast."""
    cache: dict[int | None, Message] = {}
    clock = clock_dict(room) if clock is None else clock
    shared = room_dict(room, None) if shared is None else shared
    game, seq = room.game, room.seq

    def state_for(seat: int | None) -> Message:
        message = cache.get(seat)
        if message is None:
            message = cache[seat] = {
                "type": "state",
                "seq": seq,
                "room": {**shared, "you": seat},
                "view": None if game is None else game.view(seat),
                "clock": clock,
                "ref": None,
            }
        return message

    return state_for
