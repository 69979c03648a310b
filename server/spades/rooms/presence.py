"""Connections coming and going: `hello` (attach) and a closed socket (detach).

A hello is answered to its sender alone, with a whole state; the others are sent a state
only when the room they see changed (a seat is back online), never a copy of the answer.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from spades.codes import CloseCode, ErrorCode
from spades.store.protocol import Store

from .actor import Actor
from .audience import Audience
from .broadcast import Connection
from .chat import RECENT_CHAT, Chat
from .clock import Clock
from .config import RoomConfig
from .errors import BadToken, RoomError
from .events import Events
from .match import Match
from .seating import Seating
from .seats import seat_for_token
from .table import Table
from .turns import TurnScheduler
from .views import Views

log = logging.getLogger(__name__)


class PresenceRoom(Protocol):
    """What connections coming and going use of their room."""

    table: Table
    match: Match
    seating: Seating
    audience: Audience
    views: Views
    events: Events
    turns: TurnScheduler
    chat: Chat
    store: Store
    clock: Clock
    config: RoomConfig

    actor: Actor

    def changed(self, origin: Connection | None = None, ref: Any = None) -> None: ...

    async def again_if_all_asked(self, seat: int) -> None: ...


def _ctx(room: PresenceRoom, seat: int | None) -> dict[str, Any]:
    return {"room": room.table.code, "seat": seat}


async def attach(room: PresenceRoom, conn: Connection, token: str | None, ref: Any = None) -> None:
    """`hello`: authenticate a connection (no token: a spectator) and send it the state.

    Only the sender is answered; the others hear of it only when the room they see
    changed (a seat came back)."""
    audience, table, views = room.audience, room.table, room.views
    before = views.room_dict(None)
    had_humans = room.seating.humans_connected()
    resync_of = conn.seat if conn in audience else None
    seat = None
    if token is not None:
        seat = seat_for_token(table.seats, token)
        if seat is None:
            audience.error(conn, BadToken.code, "that seat token is not valid here", ref)
            if conn in audience:
                # A connection already here keeps its seat (or stays a spectator): a wrong
                # token is refused and changes nothing, rather than unseat the player.
                return
    if conn in audience and conn.seat not in (None, seat):
        table.seats[conn.seat].disconnected_at = room.clock.now()  # a second hello moved it
    if seat is None and _crowded(room, conn):
        audience.error(
            conn, ErrorCode.ROOM_CROWDED, "this room has as many watchers as it can take", ref
        )
        audience.close(conn, CloseCode.CROWDED, "too many spectators")
        return
    conn.seat = seat
    if seat is not None:
        _take_seat(room, conn, seat, resync_of)
    chats = room.chat.kept_recent(room.clock.now())
    if chats is None:
        try:
            chats = await room.store.recent_chat(table.room_id, RECENT_CHAT)
            room.chat.keep_recent(chats, room.clock.now())
        except Exception:
            log.exception("room %s: reading the chat failed", table.code, extra=_ctx(room, seat))
            chats = []
    audience.add(conn)
    room.seating.humans_may_have_left(had_humans)  # a player's socket said hello as a spectator
    log.info("room %s: connection %s joined", table.code, conn.conn_id, extra=_ctx(room, seat))
    turns = room.turns
    states = views.state_builder(views.clock_dict(turns.refresh()))
    audience.send_state(conn, room.match.game_id, states(seat), ref)
    now = views.room_dict(None)
    if now != before:
        audience.broadcast(room.match.game_id, states, skip=conn)
    room.events.room_shown(now)  # every connection holds this `room` now
    turns.plan_next()
    for chat in chats:
        audience.send(conn, {"type": "chat", **chat})
    if seat is not None and seat != table.host_seat and await room.seating.hand_over_host():
        room.changed()  # a host gone long ago: this player took over


def _crowded(room: PresenceRoom, conn: Connection) -> bool:
    """A new spectator past the room's cap. Each spectator costs a message per action: a
    crowd of them is a cost on everyone's game. Seated players always get in."""
    cap = room.config.spectators_per_room
    if not cap or conn in room.audience:
        return False
    spectators = 0
    for c in room.audience.connections.values():
        if c.seat is None:
            spectators += 1
    return spectators >= cap


def _take_seat(room: PresenceRoom, conn: Connection, seat: int, resync_of: int | None) -> None:
    """`conn` holds `seat` now: another connection that held it is closed."""
    audience = room.audience
    for other in list(audience.connections.values()):
        if other is not conn and other.seat == seat:
            other.seat = None
            audience.remove(other)
            audience.error(other, ErrorCode.REPLACED, "this seat was opened in another tab", None)
            audience.close(other, CloseCode.REPLACED, "seat taken over by a newer connection")
    s = room.table.seats[seat]
    if seat != resync_of:  # a new socket is the player back; a resync is only a catch-up
        s.reset_flags()
    s.disconnected_at = None


def _host_gone_later(room: PresenceRoom) -> None:
    """At the end of the host's grace period (a timer, outside the actor)."""
    if room.actor.closed:
        return

    async def check() -> None:
        try:
            if await room.seating.hand_over_host():
                room.changed()
        except Exception:
            log.exception("room %s: handing the host over failed", room.table.code)

    room.actor.submit(check)


async def detach(room: PresenceRoom, conn: Connection) -> None:
    if not room.audience.remove(conn):
        return
    room.chat.forget(conn.conn_id)
    table, seat = room.table, conn.seat
    log.info("room %s: connection %s left", table.code, conn.conn_id, extra=_ctx(room, seat))
    if seat is not None and table.seats[seat].kind == "human":
        now = room.clock.now()
        table.seats[seat].disconnected_at = now
        if not room.seating.humans_connected():
            room.seating.last_human_at = now
        elif seat == table.host_seat and not room.audience.connected(seat):
            # The host left the others: if they are not back within the grace period, a
            # player who is here takes over (no one would be able to start the game).
            room.clock.call_at(
                now + room.config.grace_seconds + 0.001, lambda: _host_gone_later(room)
            )
        again = room.match.again
        if again:  # the one the others waited for to play again has gone
            try:
                await room.again_if_all_asked(min(again))
            except RoomError:  # not started (storage): the next one to ask tries again
                log.warning("room %s: the next game could not start", table.code)
    room.changed()
