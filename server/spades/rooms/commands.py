"""What a connection may ask of its room, one function per message type (which function
answers which type is declared in the registry, rooms/protocol.py).

Each runs inside the room's actor. A refusal raises a `RoomError` (or the engine's
`ActionError`) before anything changed; `Room.handle` answers it as an `error`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from . import seating, views
from .broadcast import Connection
from .errors import BadRequest, HostOnly, NotSeated, RoomError, WrongStatus
from .seats import host_gone
from .settings import clean_text

if TYPE_CHECKING:
    from .room import Room

Message = dict[str, Any]
Command = Callable[["Room", Connection, Message, Any], Awaitable[None]]

log = logging.getLogger(__name__)


def seat_of(conn: Connection) -> int:
    if conn.seat is None:
        raise NotSeated("take a seat first")
    return conn.seat


async def check_host(room: Room, conn: Connection) -> None:
    if conn.seat is None:
        raise HostOnly("only the host may do that")
    if conn.seat != room.host_seat and host_gone(
        room.seats,
        room.host_seat,
        connected=room.host_seat is not None and room.connected(room.host_seat),
        now=room.clock.now(),
        grace=room.config.grace_seconds,
    ):
        # The host left for good (gone past the grace period): a present player takes over.
        await room.set_host(conn.seat)
    if conn.seat != room.host_seat:
        raise HostOnly("only the host may do that")


def not_playing(room: Room, why: str = "not while a game is being played") -> None:
    if room.game_in_progress():
        raise WrongStatus(why, code="game_in_progress")


async def sit(room: Room, conn: Connection, msg: Message, ref: Any) -> None:
    if conn.seat is not None:
        raise BadRequest("you already have a seat", code="already_seated")
    seat, token = await room.join(msg.get("name") or "", msg.get("seat"), False)
    conn.seat = seat
    room.audience.send(conn, {"type": "seated", "seat": seat, "token": token, "ref": ref})
    room.changed(conn, ref)


async def stand(room: Room, conn: Connection, msg: Message, ref: Any) -> None:
    seat = seat_of(conn)
    not_playing(room)
    await seating.vacate(room, seat)
    room.changed(conn, ref)


async def set_seat(room: Room, conn: Connection, msg: Message, ref: Any) -> None:
    await check_host(room, conn)
    seat, to = msg.get("seat"), msg.get("to")
    if not isinstance(seat, int) or seat not in range(4) or to not in ("bot", "empty"):
        raise BadRequest("set_seat needs a seat 0..3 and to = 'bot' or 'empty'")
    if seat == room.host_seat:
        raise BadRequest("the host cannot replace their own seat", code="own_seat")
    if to == "empty":
        not_playing(room)
        await seating.vacate(room, seat)
    else:
        if room.seats[seat].kind == "human":
            # A player's seat is theirs until the game ends: while they are gone the bot
            # plays it for them (away), and they can come back to it. Otherwise whoever
            # became host (the host gone past the grace period) could throw out the others.
            not_playing(
                room,
                "a player cannot be replaced during a game; the bot plays for them while away",
            )
            await seating.vacate(room, seat)
        await seating.make_bot(room, seat)
    room.changed(conn, ref)


async def settings(room: Room, conn: Connection, msg: Message, ref: Any) -> None:
    await check_host(room, conn)
    not_playing(room)
    raw = msg.get("settings")
    if not isinstance(raw, dict):
        raise BadRequest("settings must be an object")
    # A field left out keeps its value; null is a value of the wrong type, refused as the
    # REST API refuses it (it was taken silently as "keep").
    rules = raw.get("rules")
    nulls = [key for key, value in raw.items() if value is None]
    if isinstance(rules, dict):
        nulls += [f"rules.{key}" for key, value in rules.items() if value is None]
    if nulls:
        raise BadRequest(f"{nulls[0]}: may not be null (leave it out to keep its value)")
    await room.change_settings(raw)
    room.changed(conn, ref)


async def start(room: Room, conn: Connection, msg: Message, ref: Any) -> None:
    await check_host(room, conn)
    if room.status == "finished":
        raise WrongStatus("the game is over; use play_again for the next one")
    if room.status != "open":
        raise WrongStatus("the game has already started; use play_again after it ends")
    await room.start_game()
    room.started_by = conn.seat
    room.changed(conn, ref)


async def play_again(room: Room, conn: Connection, msg: Message, ref: Any) -> None:
    """Asks for the next game; it starts when every person seated and here has asked, so
    nobody still reading the results is dealt into a running turn timer."""
    seat = seat_of(conn)
    if room.status != "finished":
        raise WrongStatus("play again is for a finished game")
    room.again.add(seat)
    await room.again_if_all_asked(seat)
    room.changed(conn, ref)


async def game_action(room: Room, conn: Connection, msg: Message, ref: Any) -> None:
    """`look`, `bid` and `play`: the message goes to the engine as it is (the engine reads
    only the action's own keys, and records the action it took in its own words)."""
    seat = seat_of(conn)
    if room.game is None or room.status != "playing":
        raise WrongStatus("no game is being played", code="no_game")
    await room.act(seat, msg)
    room.seats[seat].reset_flags()
    room.changed(conn, ref)


async def back(room: Room, conn: Connection, msg: Message, ref: Any) -> None:
    """The seat's owner takes it back from the bot: no longer away or timed out, so the
    next turn waits for them again (with the turn timer, if any). When the seat is neither,
    nothing changes: the asker alone is answered, with its state."""
    seat = room.seats[seat_of(conn)]
    if seat.away or seat.timed_out:
        seat.reset_flags()
        room.changed(conn, ref)
    else:
        room.audience.send_state(conn, room.game_id, views.state_builder(room)(seat.index), ref)


async def hint(room: Room, conn: Connection, msg: Message, ref: Any) -> None:
    seat = seat_of(conn)
    if room.game is None or room.status != "playing":
        raise WrongStatus("no game is being played", code="no_game")
    view = room.game.view(seat)
    if not view["legal"]:
        raise RoomError("there is nothing for you to do now", code="nothing_to_hint")
    if conn.conn_id in room.hinting:
        raise RoomError("a hint is already being worked out", code="hint_pending")
    last = room.last_hint
    if last is not None and last[:3] == (seat, room.game_id, room.seq):
        room.audience.send(conn, {"type": "hint", "action": last[3], "ref": ref})
        return
    room.hinting.add(conn.conn_id)
    room.actor.spawn(_hint(room, conn, view, ref))


async def _hint(room: Room, conn: Connection, view: Message, ref: Any) -> None:
    asked = (seat_of(conn), room.game_id, room.seq)
    try:
        action = await room.bots.decide(room.settings.bot_level, view, None)
        if asked == (conn.seat, room.game_id, room.seq):  # still that decision
            room.last_hint = (*asked, action)
    except Exception:
        # The asker is answered either way (it would otherwise wait for a hint forever).
        log.exception("room %s: a hint failed", room.code)
        if conn in room.audience:
            room.audience.error(conn, "hint_failed", "no hint could be worked out", ref)
        return
    finally:
        room.hinting.discard(conn.conn_id)
    if conn in room.audience:
        room.audience.send(conn, {"type": "hint", "action": action, "ref": ref})


# A room's chat, all its connections together: at most this many messages in this many
# seconds. Each socket's own rate limit still lets many sockets fill a room's log (and
# everyone's screen) at speed; a conversation at a card table never comes near this.
CHAT_PER_WINDOW = 20
CHAT_WINDOW = 10.0
# Spectators together have at most this many of them: one watcher chatting at their own
# rate limit used to crowd the players out of their own table's chat.
SPECTATOR_CHAT_PER_WINDOW = 10


async def chat(room: Room, conn: Connection, msg: Message, ref: Any) -> None:
    text = clean_text(str(msg.get("text") or ""), room.config.chat_length, "chat message")
    now, times, watchers = room.clock.now(), room.chat_times, room.spectator_chat_times
    while times and now - times[0] >= CHAT_WINDOW:
        times.popleft()
    while watchers and now - watchers[0] >= CHAT_WINDOW:
        watchers.popleft()
    seat = conn.seat
    if len(times) >= CHAT_PER_WINDOW or (
        seat is None and len(watchers) >= SPECTATOR_CHAT_PER_WINDOW
    ):
        raise RoomError("the room's chat is busy; wait a few seconds", code="chat_busy")
    times.append(now)
    if seat is None:
        watchers.append(now)
    if seat is not None:
        name = room.seats[seat].name or "Spectator"
    else:  # spectators apart: numbered in the order they first speak (per connection)
        numbers = room.spectator_numbers
        if conn.conn_id not in numbers:
            room.spectators_named += 1
            numbers[conn.conn_id] = room.spectators_named
        name = f"Spectator {numbers[conn.conn_id]}"
    at = await room.write(room.store.add_chat(room.room_id, seat, name, text))
    # The stored time: a client that reconnects is sent the message again with it.
    room.audience.send_all({"type": "chat", "seat": seat, "name": name, "text": text, "at": at})
