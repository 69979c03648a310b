"""Connections coming and going: `hello` (attach) and a closed socket (detach).

A hello is answered to its sender alone, with a whole state; the others are sent a state
only when the room they see changed (a seat is back online), never a copy of the answer.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from . import views
from .audience import CLOSE_CROWDED, CLOSE_REPLACED
from .broadcast import Connection
from .errors import BadToken
from .seats import host_gone, seat_for_token

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger(__name__)


def _ctx(room: Room, seat: int | None) -> dict[str, Any]:
    return {"room": room.code, "seat": seat}


async def attach(room: Room, conn: Connection, token: str | None, ref: Any = None) -> None:
    """`hello`: authenticate a connection (no token: a spectator) and send it the state.

    Only the sender is answered; the others hear of it only when the room they see
    changed (a seat came back)."""
    before = room.room_dict(None)
    had_humans = room.humans_connected()
    resync_of = conn.seat if conn in room.audience else None
    seat = None
    if token is not None:
        seat = seat_for_token(room.seats, token)
        if seat is None:
            room.audience.error(conn, BadToken.code, "that seat token is not valid here", ref)
            if conn in room.audience:
                # A connection already here keeps its seat (or stays a spectator): a wrong
                # token is refused and changes nothing, rather than unseat the player.
                return
    if conn in room.audience and conn.seat not in (None, seat):
        room.seats[conn.seat].disconnected_at = room.clock.now()  # a second hello moved it
    cap = room.config.spectators_per_room
    if seat is None and cap and conn not in room.audience and room.spectators() >= cap:
        # Each spectator costs a message per action: a crowd of them is a cost on
        # everyone's game. Seated players always get in; spectators past the cap do not.
        room.audience.error(
            conn, "room_crowded", "this room has as many watchers as it can take", ref
        )
        room.audience.close(conn, CLOSE_CROWDED, "too many spectators")
        return
    conn.seat = seat
    if seat is not None:
        for other in list(room.connections.values()):
            if other is not conn and other.seat == seat:
                other.seat = None
                room.audience.remove(other)
                room.audience.error(other, "replaced", "this seat was opened in another tab", None)
                room.audience.close(other, CLOSE_REPLACED, "seat taken over by a newer connection")
        s = room.seats[seat]
        if seat != resync_of:  # a new socket is the player back; a resync is only a catch-up
            s.reset_flags()
        s.disconnected_at = None
    try:
        chats = await room.store.recent_chat(room.room_id)
    except Exception:
        log.exception("room %s: reading the chat failed", room.code, extra=_ctx(room, seat))
        chats = []
    room.audience.add(conn)
    room.humans_may_have_left(had_humans)  # a player's socket said hello as a spectator
    log.info("room %s: connection %s joined", room.code, conn.conn_id, extra=_ctx(room, seat))
    states = views.state_builder(room)
    room.audience.send_state(conn, room.game_id, states(seat), ref)
    now = room.room_dict(None)
    if now != before:
        room.audience.broadcast(room.game_id, states, skip=conn)
    room.events.room_shown(now)  # every connection holds this `room` now
    room.reschedule()
    for chat in chats:
        room.audience.send(conn, {"type": "chat", **chat})
    if seat is not None and seat != room.host_seat:
        await hand_over_host(room)  # a host gone long ago: this player may take over


async def hand_over_host(room: Room) -> None:
    """Inside the actor: when the host is gone past the grace period (or is no person),
    the first seated player who is here becomes host, so the others can start the game or
    change it without waiting for someone who left. Nothing when nobody is here."""
    host = room.host_seat
    if not host_gone(
        room.seats,
        host,
        connected=host is not None and room.connected(host),
        now=room.clock.now(),
        grace=room.config.grace_seconds,
    ):
        return
    for s in room.seats:
        if s.kind == "human" and s.index != host and room.connected(s.index):
            await room.set_host(s.index)
            log.info(
                "room %s: the host left; seat %s is host now",
                room.code,
                s.index,
                extra=_ctx(room, s.index),
            )
            room.changed()
            return


def _host_gone_later(room: Room) -> None:
    """At the end of the host's grace period (a timer, outside the actor)."""
    if room.closed:
        return

    async def check() -> None:
        try:
            await hand_over_host(room)
        except Exception:
            log.exception("room %s: handing the host over failed", room.code)

    room.submit(check)


async def detach(room: Room, conn: Connection) -> None:
    if not room.audience.remove(conn):
        return
    room.spectator_numbers.pop(conn.conn_id, None)
    log.info("room %s: connection %s left", room.code, conn.conn_id, extra=_ctx(room, conn.seat))
    if conn.seat is not None and room.seats[conn.seat].kind == "human":
        now = room.clock.now()
        room.seats[conn.seat].disconnected_at = now
        if not room.humans_connected():
            room.last_human_at = now
        elif conn.seat == room.host_seat and not room.connected(conn.seat):
            # The host left the others: if they are not back within the grace period, a
            # player who is here takes over (no one would be able to start the game).
            room.clock.call_at(
                now + room.config.grace_seconds + 0.001, lambda: _host_gone_later(room)
            )
        if room.again:  # the one the others waited for to play again has gone
            await room.again_if_all_asked(min(room.again))
    room.changed()
