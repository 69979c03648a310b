"""One table: an actor that takes commands from a queue and runs them one at a time.

The room is where its parts meet; each part gets only the parts it uses, never the room:
the actor (actor.py), the room's facts (table.py), the game's life (match.py), seats and
the host (seating.py), turn scheduling and the turn deadline (turns.py), the game clock
(gameclock.py), connections and what each was sent (audience.py), what is shown (views.py,
events.py), commands from connections (commands.py), connections coming and going
(presence.py) and bookkeeping writes (writes.py).

A card play is one straight line: `handle` finds the message's command in the registry
(protocol.py: `commands.game_action`), which checks the seat, has the match apply and
store the action, and calls `changed`, which works out the turn deadline once, shows the
new state to every connection with it, and plans the next turn by it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from spades.codes import CloseCode, ErrorCode
from spades.engine import ActionError, Game
from spades.store.protocol import RoomStatus, Store, StoredRoom

from .actor import Actor, Answer
from .audience import Audience, StateFor
from .bots import BotRunner
from .broadcast import Connection, Hub
from .chat import Chat
from .clock import Clock
from .commands import Hints
from .config import RoomConfig
from .errors import BadRequest, RoomError, RoomMoved
from .events import Events
from .gameclock import GameClock
from .joins import RecentJoins
from .match import Match
from .observer import NO_OBSERVER, Observer, now
from .presence import attach, detach
from .protocol import COMMANDS, GAME_ACTIONS
from .ratings_io import load_ratings
from .recovery import stored_seats
from .seating import Seating
from .seats import Seat
from .settings import RoomSettings
from .table import Table
from .tokens import token_matches
from .turns import TurnScheduler
from .views import Views
from .writes import STORE_RETRY_SECONDS, Bookkeeping, write_first

log = logging.getLogger(__name__)


class Room:
    def __init__(
        self,
        *,
        room_id: str,
        code: str,
        settings: RoomSettings,
        store: Store,
        clock: Clock,
        hub: Hub,
        config: RoomConfig,
        bots: BotRunner,
        host_seat: int | None = None,
        status: RoomStatus = "open",
        seats: list[Seat] | None = None,
        observer: Observer | None = None,
    ) -> None:
        self.room_id = room_id
        self.code = code
        self.store = store
        self.clock = clock
        self.hub = hub
        self.config = config
        self.bots = bots
        self.observer = observer = observer or NO_OBSERVER
        self.invite_url = f"{config.public_url.rstrip('/')}/r/{code}"
        self.table = table = Table(
            room_id=room_id,
            code=code,
            invite_url=self.invite_url,
            settings=settings,
            seats=seats or [Seat(i) for i in range(4)],
            host_seat=host_seat,
        )
        self.seats = table.seats
        self.actor = actor = Actor(f"room-{code}", after_each=self._after_command)
        # `call` without waiting or a future: the WebSocket endpoint's way (`answer` is told
        # each command's failure, if any, and answers refusals). The actor's own method.
        self.post: Callable[[Any, tuple[Any, ...], Answer, Any], None] = actor.post
        self.audience = audience = Audience(hub)
        self.chat = Chat()
        self.hints = Hints()
        self.recent_joins = RecentJoins()
        self.game_clock = GameClock(code, clock, self._call_time_up, self._clock_running)
        self.bookkeeping = Bookkeeping(code, clock, self.call, actor.spawn)
        self.match = match = Match(
            table,
            status=status,
            store=store,
            clock=clock,
            observer=observer,
            bookkeeping=self.bookkeeping,
            game_clock=self.game_clock,
            on_store_failure=self._retry_turn_later,
            on_caught_up=self._show_whole_states,
            grace=config.grace_seconds,
        )
        self.seating = Seating(table, match, audience, store=store, clock=clock, config=config)
        self.views = views = Views(
            table, match, audience, game_clock=self.game_clock, clock=clock, config=config
        )
        self.events = Events(audience, views, match)  # after an action, events, not states
        self.turns = TurnScheduler(
            table,
            match,
            connected=audience.connected,
            changed=self.changed,
            actor=actor,
            bots=bots,
            clock=clock,
            config=config,
            observer=observer,
        )
        # What the server's other layers ask of a room, answered by the part that knows.
        self.room_dict = views.room_dict
        self.summary = views.summary
        self.idle_since = self.seating.idle_since
        self.attach = partial(attach, self)  # `hello`
        self.detach = partial(detach, self)  # a closed socket

    # --- the actor ----------------------------------------------------------------------

    def start(self) -> None:
        self.actor.start()

    async def call(self, fn: Any, *args: Any) -> Any:
        """Run `fn(*args)` inside the actor, after every command queued before it."""
        return await self.actor.submit(fn, *args)

    async def stop(self) -> None:
        """Stop taking commands, let the ones queued finish (so nothing is half stored)."""
        await self.actor.stop()
        # After the queue drained: a command queued before the stop may have set these.
        self.turns.cancel()
        self.game_clock.cancel()

    @property
    def closed(self) -> bool:
        return self.actor.closed

    def _after_command(self) -> None:
        if self.match.unsent:
            # A command stored an action and failed before showing it: show it now, so
            # clients never stay behind the log and the next turn is scheduled.
            self.changed()

    # --- what the outside reads (safe outside the actor: they only read) -----------------

    @property
    def settings(self) -> RoomSettings:
        return self.table.settings

    @property
    def host_seat(self) -> int | None:
        return self.table.host_seat

    @property
    def status(self) -> RoomStatus:
        return self.match.status

    @status.setter
    def status(self, status: RoomStatus) -> None:
        self.match.status = status

    @property
    def game(self) -> Game | None:
        return self.match.game

    @property
    def game_id(self) -> int | None:
        return self.match.game_id

    @property
    def seq(self) -> int:
        return self.match.seq

    @property
    def connections(self) -> dict[int, Connection]:
        return self.audience.connections

    def states(self) -> StateFor:
        """Each seat's whole state as of now (the turn deadline worked out anew)."""
        views = self.views
        return views.state_builder(views.clock_dict(self.turns.refresh()))

    # --- a message from a connection ---------------------------------------------------

    async def handle(
        self, conn: Connection, message: dict[str, Any], received: float | None = None
    ) -> None:
        """One validated client message. Refusals answer an `error` and change nothing.

        `received`: when the message arrived (`observer.now()`), for the action latency.
        """
        received = now() if received is None else received
        ref = message.get("id")
        kind = message.get("type")
        try:
            if conn.conn_id not in self.audience.connections:  # (Audience.__contains__)
                raise RoomError("say hello first", code=ErrorCode.HELLO_FIRST)
            command = COMMANDS.get(kind) if isinstance(kind, str) else None
            if command is None:
                raise RoomError(f"unknown message type {kind!r}", code=ErrorCode.UNKNOWN_TYPE)
            await command(self, conn, message, ref)
        except (ActionError, RoomError) as exc:
            if isinstance(exc, RoomMoved):
                # Another process owns the room now (it claimed it while this one still held
                # it): nothing was stored, and it is no fault of the player's. The socket is
                # told to reconnect, lands on the owner, and plays the move there.
                self.audience.close(conn, CloseCode.RECONNECT, "the room moved: reconnect")
            else:
                self.audience.error(conn, exc.code, exc.message, ref)
        except Exception:
            log.exception("room %s: %s failed", self.code, kind, extra=self._ctx(conn.seat))
            self.audience.error(
                conn, ErrorCode.SERVER_ERROR, "that could not be done; try again", ref
            )
        else:
            if kind in GAME_ACTIONS:
                self.observer.action_latency("human", now() - received)

    # --- after a change ------------------------------------------------------------------

    def changed(self, origin: Connection | None = None, ref: Any = None) -> None:
        """Show the new state and plan the next turn, both by the one turn deadline worked
        out here; one failing never stops the other."""
        self.match.unsent = False
        turns = self.turns
        try:
            deadline = turns.refresh()
        except Exception:
            log.exception("room %s: the turn deadline failed", self.code, extra=self._ctx(None))
            return
        try:
            if self.audience.connections:
                self.events.broadcast(origin, ref, deadline)
        except Exception:
            log.exception("room %s: broadcast failed", self.code, extra=self._ctx(None))
        try:
            turns.plan_next()
        except Exception:
            log.exception("room %s: scheduling failed", self.code, extra=self._ctx(None))

    def _show_whole_states(self) -> None:
        self.events.forget()

    def _retry_turn_later(self) -> None:
        self.actor.spawn(self.turns.reschedule_later(STORE_RETRY_SECONDS))

    def _ctx(self, seat: int | None) -> dict[str, Any]:
        """`extra` for a log line about this room: its code and the seat (never a token)."""
        return {"room": self.code, "seat": seat}

    # --- seats, settings, games --------------------------------------------------------

    async def join(
        self,
        name: str,
        seat: int | None,
        spectator: bool,
        join_id: str | None = None,
        player: str | None = None,
    ) -> tuple[int | None, str | None]:
        """`POST /join` and `sit`: take a free seat (or the named one). Returns seat and token.
        A `join_id` seen before is answered as it was then (joins.py), while that seat
        still holds that token. `player`: the verified player's id (or None), recorded on
        the seat."""
        at = self.clock.now()
        if join_id is not None and not spectator:
            known = self.recent_joins.get(join_id, at)
            if known is not None and token_matches(known[1], self.seats[known[0]].token_hash):
                return known
        taken, token = await self.seating.join(name, seat, spectator, player)
        if taken is not None:
            if join_id is not None and token is not None:
                self.recent_joins.remember(join_id, taken, token, at)
            if player is not None and player not in self.table.ratings:
                await load_ratings(self.store, self.table)  # (a rated room's only)
            self.changed()
        return taken, token

    async def rename_player(self, player_id: str, name: str) -> None:
        """The player's seats say `name` (a deleted account's: stored already)."""
        for seat in self.seats:
            if seat.player_id == player_id:
                seat.name = name
        self.changed()

    async def change_settings(self, raw: dict[str, Any]) -> None:
        table = self.table
        if "rated" in raw and raw["rated"] != table.settings.rated:
            raise BadRequest("whether a room is rated is chosen when it is made")
        settings = RoomSettings.parse(raw, table.settings)
        await write_first(
            self.code, self.store.update_room(self.room_id, settings=settings.model_dump())
        )
        table.settings = settings

    async def start_game(self) -> None:
        """Fill empty seats with bots and deal. Stored before anything is shown."""
        await self.match.previous_stored()
        await self.seating.fill_with_bots()
        await self._unrate_with_bots()
        # The players' ratings as they are now (a rated room's), read while the deal is
        # stored (the deal in the actor's own task, as every command's work).
        reading = asyncio.ensure_future(load_ratings(self.store, self.table))
        try:
            await self.match.start()
        finally:
            await reading

    async def _unrate_with_bots(self) -> None:
        """A rated room whose game starts with a bot in a seat is not rated from then on
        (a rating is earned by four people): stored before the deal."""
        table = self.table
        if not table.settings.rated or all(s.kind == "human" for s in self.seats):
            return
        settings = table.settings.unrated()
        await write_first(
            self.code, self.store.update_room(self.room_id, settings=settings.model_dump())
        )
        table.settings = settings

    async def again_if_all_asked(self, seat: int) -> None:
        """Start the next game if someone here asked and nobody here is still to ask
        (`seat`: who asked last)."""
        match, connected = self.match, self.audience.connected
        if (
            match.status == "finished"
            and any(connected(s) for s in match.again)
            and not self._again_waits_for()
        ):
            await self.start_game()
            match.started_by = seat

    def _again_waits_for(self) -> list[int]:
        """The seated people here who have not asked to play again yet."""
        again, connected = self.match.again, self.audience.connected
        return [
            s.index
            for s in self.seats
            if s.kind == "human" and s.index not in again and connected(s.index)
        ]

    def _clock_running(self, game_id: int) -> bool:
        return not self.closed and self.match.game_id == game_id

    async def _call_time_up(self, game_id: int) -> None:
        await self.call(self._time_up, game_id)

    async def _time_up(self, game_id: int) -> None:
        if self.match.time_up_pending(game_id):
            await self.match.act(None, {"type": "time_up"})
            self.changed()

    # --- life cycle --------------------------------------------------------------------

    @classmethod
    def from_stored(
        cls,
        stored: StoredRoom,
        *,
        store: Store,
        clock: Clock,
        hub: Hub,
        config: RoomConfig,
        bots: BotRunner,
        observer: Observer | None = None,
    ) -> Room:
        """Rebuild a room after a restart by replaying its unfinished game's actions."""
        row = stored.room
        room = cls(
            room_id=row.id,
            code=row.code,
            settings=RoomSettings.from_stored(row.settings),
            host_seat=row.host_seat,
            status=row.status,
            seats=stored_seats(stored, clock.now()),
            store=store,
            clock=clock,
            hub=hub,
            config=config,
            bots=bots,
            observer=observer,
        )
        room.match.load(stored)
        return room

    async def resume(self) -> None:
        """Inside the actor, after a reload: finish what the crash interrupted, restart bots
        and clocks."""
        await self.match.resume()
        await load_ratings(self.store, self.table)
        self.changed()

    async def abandon(self, why: str = "this room was closed: nobody was playing") -> None:
        log.info("room %s abandoned: %s", self.code, why, extra=self._ctx(None))
        self.match.status = "abandoned"
        await self.store.update_room(self.room_id, status="abandoned")
        self.audience.close_all(
            ErrorCode.ABANDONED,
            why,
            CloseCode.ABANDONED,
            "room abandoned",
        )
        self.game_clock.set(None, None)
        self.turns.cancel()
        self.actor.closed = True
