"""Bringing a room back after a restart: rebuild it from the store by replaying its game's
actions, then finish what the crash interrupted and start its bots and clocks again."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from spades.engine import Game, Rules
from spades.store.protocol import StoredRoom

from .seats import Seat
from .settings import RoomSettings

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger(__name__)


def room_from_stored(cls: type[Room], stored: StoredRoom, **parts: Any) -> Room:
    """The room as stored; its unfinished game (if any) replayed from its actions."""
    row = stored.room
    seats = [Seat(i) for i in range(4)]
    for seat_row in stored.seats:
        if seat_row.seat in range(4):
            seats[seat_row.seat] = Seat.from_row(seat_row)
    room = cls(
        room_id=row.id,
        code=row.code,
        settings=RoomSettings.from_stored(row.settings),
        host_seat=row.host_seat,
        status=row.status,
        seats=seats,
        **parts,
    )
    now = room.clock.now()
    for seat in seats:
        seat.disconnected_at = now
    if stored.game is not None:
        room.game, room.game_id = replay(stored), stored.game.id
        room.hands_at_load = list(stored.hands)
        room.elapsed_at_load = stored_elapsed(stored)
    return room


def replay(stored: StoredRoom) -> Game:
    """The stored unfinished game, its logged actions applied in order."""
    g = stored.game
    assert g is not None
    game = Game(Rules.from_dict(g.rules), seed=g.seed, first_dealer=g.first_dealer)
    for expected, action in enumerate(stored.actions, start=1):
        if action.seq != expected:
            raise RuntimeError(f"game {g.id}: action {expected} missing from the log")
        game.apply(action.seat, action.action)
    return game


async def resume(room: Room) -> None:
    """Inside the actor, after a reload: finish what the crash interrupted, restart bots
    and clocks. A finished room shows its last game's final state."""
    game = room.game
    if game is None and room.status == "playing":
        # The crash came after the game was finished but before the room was told.
        room.status = "finished"
        await room.bookkeeping.write(
            "marking the room finished",
            lambda: room.store.update_room(room.room_id, status="finished"),
        )
    if game is None and room.status == "finished":
        await load_last_game(room)
    if game is not None and room.game_id is not None:
        # Hands the log ended whose rows the crash did not let the old process store.
        await room.store_missing_hands(room.game_id, game, room.hands_at_load)
        if game.phase == "over" and room.status == "playing":
            await room.finish_game()
        minutes = room.settings.game_minutes
        if game.phase != "over" and minutes and not game.time_is_up:
            # The clock ran from the game's start to its last stored action; the rest is
            # left. The store moves the game's start past the outage, so that a later
            # restart does not count this one's downtime as time played.
            try:
                used = await room.store.resume_game_clock(room.game_id)
            except Exception:
                log.exception("room %s: the game clock's start could not be moved", room.code)
                used = room.elapsed_at_load
            left = max(0.0, minutes * 60.0 - used)
            room.game_clock.set(room.game_id, room.clock.now() + left)
    room.turn_started = room.clock.now()
    room.changed()


async def load_last_game(room: Room) -> None:
    try:
        finished = await room.store.finished_games(room.room_id)
        if finished:
            game_id = finished[-1].game.id
            room.game = Game.from_record(await room.store.export_game(game_id))
            room.game_id = game_id
    except Exception:
        log.exception("room %s: its last game could not be loaded", room.code)


def stored_elapsed(stored: StoredRoom) -> float:
    """Seconds of game clock used before a restart: from the start to the last stored action."""
    game = stored.game
    if game is None or game.started_at is None or not stored.actions:
        return 0.0
    last = stored.actions[-1].at
    if last is None:
        return 0.0
    return max(0.0, (last - game.started_at).total_seconds())
