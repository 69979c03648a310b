"""What a connection may ask of its room, one function per message type (which function
answers which type is declared in the registry, rooms/protocol.py).

Each runs inside the room's actor, given the room as `CommandRoom` (the parts it uses). A
refusal raises a `RoomError` (or the engine's `ActionError`) before anything changed;
`Room.handle` answers it as an `error`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from spades.codes import ErrorCode
from spades.store.protocol import Store

from .actor import Actor
from .audience import Audience, StateFor
from .bots import BotRunner
from .broadcast import Connection
from .chat import QUICK_PHRASES, Chat
from .clock import Clock
from .config import RoomConfig
from .errors import BadRequest, NotSeated, RoomError, WrongStatus
from .match import Match
from .moderation import check as check_sanctions
from .players import verified_player
from .seating import Seating
from .settings import clean_text
from .table import Table
from .writes import write_first

Message = dict[str, Any]

log = logging.getLogger(__name__)


class Hints:
    """The hints being worked out (by connection) and the last one worked out."""

    def __init__(self) -> None:
        self.pending: set[int] = set()
        # (seat, game, seq, action): asked again for the same decision, the seat gets it
        # again instead of a new search (a hint costs as much as a bot's move; asking over
        # and over must not keep the strong bots' pool busy).
        self.last: tuple[int, int | None, int, dict[str, Any]] | None = None


class CommandRoom(Protocol):
    """What the commands use of their room."""

    table: Table
    match: Match
    seating: Seating
    audience: Audience
    chat: Chat
    hints: Hints
    store: Store
    clock: Clock
    config: RoomConfig
    bots: BotRunner
    actor: Actor

    def changed(self, origin: Connection | None = None, ref: Any = None) -> None:
        """Show the new state to every connection and plan the next turn."""

    def states(self) -> StateFor:
        """Each seat's whole state as of now."""

    async def join(
        self,
        name: str,
        seat: int | None,
        spectator: bool,
        join_id: str | None = None,
        player: str | None = None,
    ) -> tuple[int | None, str | None]: ...

    async def start_game(self) -> None: ...

    async def again_if_all_asked(self, seat: int) -> None: ...

    async def change_settings(self, raw: dict[str, Any]) -> None: ...


Command = Callable[[CommandRoom, Connection, Message, Any], Awaitable[None]]


def seat_of(conn: Connection) -> int:
    if conn.seat is None:
        raise NotSeated("take a seat first")
    return conn.seat


def not_playing(room: CommandRoom, why: str = "not while a game is being played") -> None:
    if room.match.in_progress():
        raise WrongStatus(why, code=ErrorCode.GAME_IN_PROGRESS)


async def sit(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    if conn.seat is not None:
        raise BadRequest("you already have a seat", code=ErrorCode.ALREADY_SEATED)
    # A player credential is checked before anything changes (BadPlayer refuses the sit).
    given = msg.get("player")
    player = None if given is None else (await verified_player(room.store, given)).id
    await check_sanctions(room.store, player, conn.address)  # a ban refuses the seat
    seat, token = await room.join(msg.get("name") or "", msg.get("seat"), False, player=player)
    conn.seat = seat
    room.audience.send(conn, {"type": "seated", "seat": seat, "token": token, "ref": ref})
    room.changed(conn, ref)


async def stand(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    seat = seat_of(conn)
    not_playing(room)
    await room.seating.vacate(seat)
    room.changed(conn, ref)


async def set_seat(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    await room.seating.check_host(conn.seat)
    seat, to = msg.get("seat"), msg.get("to")
    if not isinstance(seat, int) or seat not in range(4) or to not in ("bot", "empty"):
        raise BadRequest("set_seat needs a seat 0..3 and to = 'bot' or 'empty'")
    if seat == room.table.host_seat:
        raise BadRequest("the host cannot replace their own seat", code=ErrorCode.OWN_SEAT)
    # The player put out of the seat is told so (`unseated`), not left to find out.
    removed = []
    if room.table.seats[seat].kind == "human":
        removed = [c for c in room.audience.connections.values() if c.seat == seat]
    if to == "empty":
        not_playing(room)
        await room.seating.vacate(seat)
    else:
        if room.table.seats[seat].kind == "human":
            # A player's seat is theirs until the game ends: while they are gone the bot
            # plays it for them (away), and they can come back to it. Otherwise whoever
            # became host (the host gone past the grace period) could throw out the others.
            not_playing(
                room,
                "a player cannot be replaced during a game; the bot plays for them while away",
            )
            await room.seating.vacate(seat)
        await room.seating.make_bot(seat)
    room.changed(conn, ref)
    for other in removed:
        room.audience.send(other, {"type": "unseated", "seat": seat, "to": to})


async def settings(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    await room.seating.check_host(conn.seat)
    not_playing(room)
    raw = msg.get("settings")
    if not isinstance(raw, dict):
        raise BadRequest("settings must be an object")
    # A field left out keeps its value; null is a value of the wrong type, refused as the
    # REST API refuses it.
    rules = raw.get("rules")
    nulls = [key for key, value in raw.items() if value is None]
    if isinstance(rules, dict):
        nulls += [f"rules.{key}" for key, value in rules.items() if value is None]
    if nulls:
        raise BadRequest(f"{nulls[0]}: may not be null (leave it out to keep its value)")
    await room.change_settings(raw)
    room.changed(conn, ref)


async def start(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    await room.seating.check_host(conn.seat)
    match = room.match
    if match.status == "finished":
        raise WrongStatus("the game is over; use play_again for the next one")
    if match.status != "open":
        raise WrongStatus("the game has already started; use play_again after it ends")
    await room.start_game()
    match.started_by = conn.seat
    room.changed(conn, ref)


async def play_again(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    """Asks for the next game; it starts when every person seated and here has asked, so
    nobody still reading the results is dealt into a running turn timer."""
    seat = seat_of(conn)
    if room.match.status != "finished":
        raise WrongStatus("play again is for a finished game")
    again, asked = room.match.again, seat not in room.match.again
    again.add(seat)
    try:
        await room.again_if_all_asked(seat)
    except RoomError:  # the next game could not start (the last one's end is not stored)
        if asked:
            again.discard(seat)  # refused with nothing changed: the player asks again
        raise
    room.changed(conn, ref)


async def game_action(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    """`look`, `bid` and `play`, in one straight line: check, apply and store, show, plan.
    The message goes to the engine as it is (the engine reads only the action's own keys,
    and records the action it took in its own words)."""
    seat = seat_of(conn)
    match = room.match
    if match.game is None or match.status != "playing":
        raise WrongStatus("no game is being played", code=ErrorCode.NO_GAME)
    await match.act(seat, msg)  # applied and stored, or refused with nothing changed
    room.table.seats[seat].reset_flags()  # the seat's person is here and playing
    room.changed(conn, ref)  # the new state to everyone, the next turn planned


async def back(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    """The seat's owner takes it back from the bot: no longer away or timed out, so the
    next turn waits for them again (with the turn timer, if any). When the seat is neither,
    nothing changes: the asker alone is answered, with its state."""
    seat = room.table.seats[seat_of(conn)]
    if seat.away or seat.timed_out:
        seat.reset_flags()
        room.changed(conn, ref)
    else:
        room.audience.send_state(conn, room.match.game_id, room.states()(seat.index), ref)


async def hint(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    seat = seat_of(conn)
    match, hints = room.match, room.hints
    if match.game is None or match.status != "playing":
        raise WrongStatus("no game is being played", code=ErrorCode.NO_GAME)
    view = match.game.view(seat)
    if not view["legal"]:
        raise RoomError("there is nothing for you to do now", code=ErrorCode.NOTHING_TO_HINT)
    if conn.conn_id in hints.pending:
        raise RoomError("a hint is already being worked out", code=ErrorCode.HINT_PENDING)
    last = hints.last
    if last is not None and last[:3] == (seat, match.game_id, match.seq):
        room.audience.send(conn, {"type": "hint", "action": last[3], "ref": ref})
        return
    hints.pending.add(conn.conn_id)
    room.actor.spawn(_hint(room, conn, view, ref))


async def _hint(room: CommandRoom, conn: Connection, view: Message, ref: Any) -> None:
    match, hints = room.match, room.hints
    asked = (seat_of(conn), match.game_id, match.seq)
    try:
        action = await room.bots.decide(room.table.settings.bot_level, view, None)
        if asked == (conn.seat, match.game_id, match.seq):  # still that decision
            hints.last = (*asked, action)
    except Exception:
        # The asker is answered either way (it would otherwise wait for a hint forever).
        log.exception("room %s: a hint failed", room.table.code)
        if conn in room.audience:
            room.audience.error(conn, ErrorCode.HINT_FAILED, "no hint could be worked out", ref)
        return
    finally:
        hints.pending.discard(conn.conn_id)
    if conn in room.audience:
        room.audience.send(conn, {"type": "hint", "action": action, "ref": ref})


async def quick(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    """A quick chat phrase or emote: a player's only (spectators watch), counted as chat,
    not stored (it shows by the player's plate for a moment)."""
    seat = seat_of(conn)
    phrase = msg.get("phrase")
    if phrase not in QUICK_PHRASES:
        raise BadRequest(f"phrase must be one of {', '.join(QUICK_PHRASES)}")
    await _may_chat(room, conn, msg)
    room.chat.admit(False, room.clock.now())
    room.audience.send_all({"type": "quick", "seat": seat, "phrase": phrase})


async def chat(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    text = clean_text(str(msg.get("text") or ""), room.config.chat_length, "chat message")
    seat, table = conn.seat, room.table
    player = await _may_chat(room, conn, msg)
    room.chat.admit(seat is None, room.clock.now())
    if seat is not None:
        name = table.seats[seat].name or "Spectator"
    else:
        name = room.chat.spectator_name(conn.conn_id)
    said = room.store.add_chat(table.room_id, seat, name, text, player_id=player)
    at = await write_first(table.code, said)
    # The stored time: a client that reconnects is sent the message again with it.
    message = {"seat": seat, "name": name, "text": text, "at": at}
    room.chat.said(message)
    room.audience.send_all({"type": "chat", **message})


async def _speaker(room: CommandRoom, conn: Connection, msg: Message) -> str | None:
    """The player a connection speaks as: its seat's, else the one the message's `player`
    credential names (a spectator's; checked once per connection and credential), else
    none (BadPlayer for a wrong credential)."""
    seat = conn.seat
    if seat is not None and room.table.seats[seat].player_id is not None:
        return room.table.seats[seat].player_id
    given = msg.get("player")
    if given is None:
        return None
    speakers = room.chat.speakers
    known = speakers.get(conn.conn_id)
    if known is not None and known[0] == given:
        return known[1]
    player = (await verified_player(room.store, given)).id
    speakers[conn.conn_id] = (given, player)
    return player


def _chat_key(room: CommandRoom, conn: Connection, player: str | None) -> str:
    """The speaker's key in the room's mutes: their player, else their name here."""
    if player is not None:
        return room.chat.mutes.key(player, None)
    seat = conn.seat
    if seat is None:
        return room.chat.mutes.key(None, room.chat.spectator_name(conn.conn_id))
    return room.chat.mutes.key(None, room.table.seats[seat].name)


async def _may_chat(room: CommandRoom, conn: Connection, msg: Message) -> str | None:
    """The speaker's player, or refused (`Sanctioned`) when a ban or a mute is in force on
    their player or address, or the host muted them here."""
    player = await _speaker(room, conn, msg)
    await check_sanctions(room.store, player, conn.address, chat=True)
    mutes = room.chat.mutes
    await mutes.load(room.store, room.table.room_id)
    mutes.check(_chat_key(room, conn, player))
    return player


async def mute(room: CommandRoom, conn: Connection, msg: Message, ref: Any) -> None:
    """The host mutes (or unmutes) a seat's chat in this room; the host is answered
    `muted`, the seat's connections are told nothing (their chat is refused with `muted`)."""
    await room.seating.check_host(conn.seat)
    seat, muted = msg.get("seat"), msg.get("muted", True)
    if not isinstance(seat, int) or seat not in range(4) or not isinstance(muted, bool):
        raise BadRequest("mute needs a seat 0..3 (and muted true or false)")
    if seat == room.table.host_seat:
        raise BadRequest("the host cannot mute their own seat", code=ErrorCode.OWN_SEAT)
    target = room.table.seats[seat]
    if target.kind != "human":
        raise BadRequest("only a player's seat can be muted")
    mutes, table = room.chat.mutes, room.table
    key = mutes.key(target.player_id, target.name)
    await mutes.load(room.store, table.room_id)
    # Stored with the room first: a restart, or another process taking the room, keeps it.
    await write_first(table.code, room.store.set_room_mute(table.room_id, key, muted))
    mutes.set(key, muted)
    room.audience.send(conn, {"type": "muted", "seat": seat, "muted": muted, "ref": ref})
