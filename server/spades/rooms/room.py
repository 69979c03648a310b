"""One table: an actor that takes commands from a queue and runs them one at a time.

Every accepted game action gets the next sequence number, is appended to the store, and
only then are the new per-seat states sent (write-ahead: nothing is shown that is not
stored). Once an action is stored, nothing may stop the room: the hand and game
bookkeeping is retried when it fails, and the states are sent and the next turn scheduled
whatever else failed. The parts, each in its own module: the actor (actor.py), seats and
the host rule (seats.py), commands from connections (commands.py), turn scheduling
(turns.py), the game clock (gameclock.py), per-connection states (audience.py),
bookkeeping writes (writes.py) and recovery after a restart (recovery.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from spades.engine import ActionError, Game, Rules
from spades.store.protocol import (
    ActionRow,
    FencedOut,
    HandRow,
    RoomStatus,
    SequenceError,
    Store,
    StoredRoom,
)

from . import presence, seating, views
from .actor import Actor, Answer
from .audience import CLOSE_ABANDONED, Audience
from .bots import BotRunner
from .broadcast import Connection, Hub
from .clock import Clock
from .config import RoomConfig
from .errors import RoomError, RoomMoved
from .events import Events
from .gameclock import GameClock
from .observer import NO_OBSERVER, Observer, now
from .ownership import CLOSE_RECONNECT
from .protocol import COMMANDS, GAME_ACTIONS
from .recovery import replay, resume, room_from_stored
from .seats import Seat
from .settings import RoomSettings
from .turns import TurnScheduler
from .writes import STORE_RETRY_SECONDS, Bookkeeping, store_failures

log = logging.getLogger(__name__)

_UNKNOWN: Any = object()  # Room._deadline outside `changed`


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
        self.settings = settings
        self.host_seat = host_seat
        self.status: RoomStatus = status
        self.seats = seats or [Seat(i) for i in range(4)]
        self.store = store
        self.clock = clock
        self.hub = hub
        self.config = config
        self.bots = bots
        self.observer = observer or NO_OBSERVER
        self.base_url = config.public_url.rstrip("/")
        self.invite_url = f"{self.base_url}/r/{code}"  # read on every broadcast
        self.game: Game | None = None
        self.game_id: int | None = None
        # The seat that started the game being played (`start` or `play_again`): the others'
        # clients can say who. Not stored: after a restart it is not known (None).
        self.started_by: int | None = None
        # Seats that asked to play again after a game: the next starts once every person
        # seated and here has asked (a bot, or someone gone, never holds it up).
        self.again: set[int] = set()
        self.turn_started = clock.now()
        self.last_human_at = clock.now()
        self.elapsed_at_load = 0.0  # game clock used before a restart
        self.hands_at_load: list[int] = []  # hand rows stored for the game when it was loaded
        self.hinting: set[int] = set()  # connections waiting for a hint
        # The last hint worked out: (seat, game, seq, action). Asked again for the same
        # decision, the seat gets it again instead of a new search (hints cost as much as
        # a bot's move; asking over and over must not keep the strong bots' pool busy).
        self.last_hint: tuple[int, int | None, int, dict[str, Any]] | None = None
        self.chat_times: deque[float] = deque()  # when the room's recent chat was accepted
        self.spectator_chat_times: deque[float] = deque()  # the spectators' share of it
        self._unsent = False  # an action was stored and not yet shown
        self._deadline: float | None = _UNKNOWN  # the turn deadline, while `changed` runs
        self.actor = Actor(f"room-{code}", after_each=self._after_command)
        # `call` without waiting or a future: the WebSocket endpoint's way (`answer` is told
        # each command's failure, if any, and answers refusals). The actor's own method.
        self.post: Callable[[Any, tuple[Any, ...], Answer, Any], None] = self.actor.post
        self.audience = Audience(hub)
        self.events = Events()  # after an action, events instead of whole states
        # Connection id -> N of "Spectator N" in chat, for the spectators here (a number is
        # never given twice in a room: `spectators_named` counts them).
        self.spectator_numbers: dict[int, int] = {}
        self.spectators_named = 0
        self.room_view_memo: tuple[tuple[Any, ...], dict[str, Any]] | None = None  # views.py
        self.turns = TurnScheduler(self)
        self.game_clock = GameClock(code, clock, self._call_time_up, self._clock_running)
        self.bookkeeping = Bookkeeping(code, clock, self.call, self.actor.spawn)

    # --- the actor ----------------------------------------------------------------------

    def start(self) -> None:
        self.actor.start()

    async def call(self, fn: Any, *args: Any) -> Any:
        """Run `fn(*args)` inside the actor, after every command queued before it."""
        return await self.actor.submit(fn, *args)

    def submit(self, fn: Any, *args: Any) -> asyncio.Future[Any]:
        """`call` without waiting: the future tells the outcome."""
        return self.actor.submit(fn, *args)

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
        if self._unsent:
            # A command stored an action and failed before showing it: show it now, so
            # clients never stay behind the log and the next turn is scheduled.
            self.changed()

    # --- queries (safe outside the actor: they only read) -----------------------------

    @property
    def settings(self) -> RoomSettings:
        return self._settings

    @settings.setter
    def settings(self, settings: RoomSettings) -> None:
        self._settings = settings
        self.settings_dict = settings.model_dump()  # as every state shows it, made once

    @property
    def seq(self) -> int:
        return self.game.action_count if self.game is not None else 0

    @property
    def connections(self) -> dict[int, Connection]:
        return self.audience.connections

    @property
    def game_deadline(self) -> float | None:
        return self.game_clock.deadline

    def connected(self, seat: int) -> bool:
        return self.audience.connected(seat)

    async def again_if_all_asked(self, seat: int) -> None:
        """Start the next game if someone here asked and nobody here is still to ask
        (`seat`: who asked last)."""
        if (
            self.status == "finished"
            and any(self.connected(s) for s in self.again)
            and not self.again_waits_for()
        ):
            await self.start_game()
            self.started_by = seat

    def again_waits_for(self) -> list[int]:
        """The seated people here who have not asked to play again yet."""
        return [
            s.index
            for s in self.seats
            if s.kind == "human" and s.index not in self.again and self.connected(s.index)
        ]

    def spectators(self) -> int:
        n = 0
        for c in self.connections.values():
            if c.seat is None:
                n += 1
        return n

    def humans_connected(self) -> bool:
        return any(
            c.seat is not None and self.seats[c.seat].kind == "human"
            for c in self.connections.values()
        )

    def idle_since(self) -> float | None:
        """When the last human left (None while one is connected)."""
        return None if self.humans_connected() else self.last_human_at

    def humans_may_have_left(self, had: bool) -> None:
        """After a connection lost its seat or a seat its person (a stand, a kick, a hello
        that moved a socket), without the socket closing: if humans were connected before
        (`had`) and none is now, the room's idle time starts now, not at its last close."""
        if had and not self.humans_connected():
            self.last_human_at = self.clock.now()

    def game_in_progress(self) -> bool:
        return self.game is not None and self.game.phase != "over"

    def room_dict(self, you: int | None = None) -> dict[str, Any]:
        return views.room_dict(self, you)

    def summary(self) -> dict[str, Any]:
        return views.summary(self)

    def turn_deadline(self) -> float | None:
        """When the seat to act loses its turn to the bot (None: no clock on this turn)."""
        if self._deadline is not _UNKNOWN:  # worked out once per change (`changed`)
            return self._deadline
        return self.turns.deadline()

    def clock_dict(self) -> dict[str, Any]:
        return views.clock_dict(self)

    # --- after a change ------------------------------------------------------------------

    def changed(self, origin: Connection | None = None, ref: Any = None) -> None:
        """Show the new state and schedule the next turn; one failing never stops the other."""
        self._unsent = False
        try:
            # The clocks in the broadcast and the next turn's plan need the same deadline:
            # work it out once. Nothing in between changes what it depends on.
            self._deadline = self.turns.deadline()
        except Exception:
            log.exception("room %s: the turn deadline failed", self.code, extra=self._ctx(None))
        try:
            try:
                if self.connections:
                    self.events.broadcast(self, origin, ref)
            except Exception:
                log.exception("room %s: broadcast failed", self.code, extra=self._ctx(None))
            try:
                self.reschedule()
            except Exception:
                log.exception("room %s: scheduling failed", self.code, extra=self._ctx(None))
        finally:
            self._deadline = _UNKNOWN

    def reschedule(self) -> None:
        """Start the next bot move or turn timer for the seat to act, replacing any pending."""
        self.turns.reschedule()

    def _ctx(self, seat: int | None) -> dict[str, Any]:
        """`extra` for a log line about this room: its code and the seat (never a token)."""
        return {"room": self.code, "seat": seat}

    async def write(self, write: Awaitable[Any]) -> Any:
        """A write that comes before any change: its failure refuses the command."""
        try:
            return await write
        except Exception as exc:
            if isinstance(exc, FencedOut):
                raise RoomMoved("the room moved to another process: reconnect") from exc
            store_failures.log(
                log, self.code, "room %s: a write failed", self.code, extra=self._ctx(None)
            )
            raise RoomError("that could not be saved; try again", code="storage_error") from exc

    # --- connections -------------------------------------------------------------------

    async def attach(self, conn: Connection, token: str | None, ref: Any = None) -> None:
        """`hello`: authenticate a connection (no token: a spectator); answer it alone."""
        await presence.attach(self, conn, token, ref)

    async def detach(self, conn: Connection) -> None:
        await presence.detach(self, conn)

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
                raise RoomError("say hello first", code="hello_first")
            command = COMMANDS.get(kind) if isinstance(kind, str) else None
            if command is None:
                raise RoomError(f"unknown message type {kind!r}", code="unknown_type")
            await command(self, conn, message, ref)
        except (ActionError, RoomError) as exc:
            if isinstance(exc, RoomMoved):
                # Another process owns the room now (it claimed it while this one still held
                # it): nothing was stored, and it is no fault of the player's. The socket is
                # told to reconnect, lands on the owner, and plays the move there.
                self.audience.close(conn, CLOSE_RECONNECT, "the room moved: reconnect")
            else:
                self.audience.error(conn, exc.code, exc.message, ref)
        except Exception:
            log.exception("room %s: %s failed", self.code, kind, extra=self._ctx(conn.seat))
            self.audience.error(conn, "server_error", "that could not be done; try again", ref)
        else:
            if kind in GAME_ACTIONS:
                self.observer.action_latency("human", now() - received)

    # --- seats -------------------------------------------------------------------------

    async def join(
        self, name: str, seat: int | None, spectator: bool
    ) -> tuple[int | None, str | None]:
        """`POST /join` and `sit`: take a free seat (or the named one). Returns seat and token."""
        return await seating.join(self, name, seat, spectator)

    async def set_host(self, seat: int | None) -> None:
        await self.write(self.store.update_room(self.room_id, host_seat=seat))
        self.host_seat = seat

    async def change_settings(self, raw: dict[str, Any]) -> None:
        settings = RoomSettings.parse(raw, self.settings)
        await self.write(self.store.update_room(self.room_id, settings=settings.model_dump()))
        self.settings = settings

    # --- the game ----------------------------------------------------------------------

    async def start_game(self) -> None:
        """Fill empty seats with bots and deal. Stored before anything is shown."""
        for seat in list(self.seats):
            if seat.kind == "empty":
                await seating.make_bot(self, seat.index)
        rules: Rules = self.settings.rules_value()
        game = Game.new(rules)
        game_id = await self.write(
            self.store.start_game(self.room_id, rules.to_dict(), game.first_dealer, game.seed)
        )
        self.game, self.game_id = game, game_id
        self.again = set()
        log.info("room %s: game %s started", self.code, game_id, extra=self._ctx(None))
        if self.status != "playing":
            self.status = "playing"
            await self.bookkeeping.write(
                "marking the room playing",
                lambda: self.store.update_room(self.room_id, status="playing"),
            )
        for seat in self.seats:
            seat.reset_flags()
        now = self.clock.now()
        self.turn_started = now
        minutes = self.settings.game_minutes
        self.game_clock.set(game_id, now + 60 * minutes if minutes else None)

    async def act(
        self, seat: int | None, action: dict[str, Any], *, caught_up: bool = False
    ) -> dict[str, Any]:
        """Apply and store; then record hand and game ends. Raises ActionError or RoomError
        with nothing changed; once the action is stored, raises nothing.

        `caught_up`: the game was just taken from the log (an append in doubt had committed
        after all); this is the action's second and last try."""
        game, game_id = self.game, self.game_id
        assert game is not None and game_id is not None
        hands_before = len(game.history)
        recorded = game.apply(seat, action)
        seq = game.action_count
        started = now()
        try:
            # No time of its own: the store stamps the row with its batch's commit time (at
            # most the commit interval later), which spares a datetime per action.
            await self.store.append_action(ActionRow(game_id, seq, seat, recorded))
        except Exception as exc:
            self.observer.store_append(now() - started)
            # Not stored, so it never happened: rebuild the game without it.
            record = game.to_record()
            record["actions"] = record["actions"][:-1]
            self.game = Game.from_record(record)
            if isinstance(exc, FencedOut):
                # FencedStore has said so (a warning, once).
                raise RoomMoved("the room moved to another process: reconnect") from exc
            # A seq taken means the log is ahead of this game: an earlier append this room
            # was told had failed (a timeout: in doubt) committed after all. The log is the
            # truth: take the game from it, show it, and try the action on it once.
            if (
                isinstance(exc, SequenceError)
                and not caught_up
                and await self._catch_up_with_log(game_id, hands_before)
            ):
                return await self.act(seat, action, caught_up=True)
            store_failures.log(
                log,
                self.code,
                "room %s: storing action %s of game %s failed",
                self.code,
                seq,
                game_id,
                extra={**self._ctx(seat), "game_id": game_id},
            )
            self.actor.spawn(self.turns.reschedule_later(STORE_RETRY_SECONDS))
            raise RoomError("the action could not be saved", code="storage_error") from exc
        self._unsent = True
        self.observer.store_append(now() - started)
        self.observer.action(recorded["type"])
        if recorded["type"] in ("bid", "play"):
            self.turn_started = self.clock.now()
        if len(game.history) != hands_before:  # (no slice per action)
            for entry in game.history[hands_before:]:
                row = HandRow(game_id, entry["hand"], entry)
                await self.bookkeeping.write(
                    f"storing hand {row.hand_number} of game {game_id}", self._hand_write(row)
                )
        if game.phase == "over":
            await self.finish_game()
        return recorded

    async def store_missing_hands(self, game_id: int, game: Game, stored: list[int]) -> None:
        """Store the rows of the game's finished hands that are not among `stored`."""
        have = set(stored)
        for entry in game.history:
            if entry["hand"] not in have:
                row = HandRow(game_id, entry["hand"], entry)
                await self.bookkeeping.write(
                    f"storing hand {row.hand_number} of game {game_id}", self._hand_write(row)
                )

    async def _catch_up_with_log(self, game_id: int, hands_before: int) -> bool:
        """Replace the game by the one its stored log holds; store the hands and the game's
        end the logged actions brought, and have every connection sent the whole state.
        False (nothing changed) when the log cannot be read now."""
        try:
            stored = await self.store.load_room(self.room_id)
            if stored.game is None or stored.game.id != game_id:
                raise RuntimeError(f"game {game_id} is no longer the room's unfinished game")
            game = replay(stored)
            stored_hands = stored.hands
        except Exception:
            log.exception(
                "room %s: reading game %s from the log failed",
                self.code,
                game_id,
                extra={**self._ctx(None), "game_id": game_id},
            )
            return False
        log.warning(
            "room %s: game %s was behind its log (an append in doubt was stored): "
            "%s actions held, %s logged",
            self.code,
            game_id,
            self.seq,
            game.action_count,
            extra={**self._ctx(None), "game_id": game_id},
        )
        self.game = game
        self.events.key = None  # every connection gets a whole state next
        self._unsent = True  # shown after this command, whatever it turns out to be
        self.turn_started = self.clock.now()
        # The hands the late actions ended (not those this room stored or still retries).
        kept = [e["hand"] for e in game.history[:hands_before]]
        await self.store_missing_hands(game_id, game, kept + stored_hands)
        if game.phase == "over":
            await self.finish_game()
        return True

    def _hand_write(self, row: HandRow) -> Any:
        return lambda: self.store.finish_hand(row)

    async def finish_game(self) -> None:
        game, game_id = self.game, self.game_id
        assert game is not None and game_id is not None
        winner, scores = game.winner, list(game.scores)
        self.status = "finished"
        self.game_clock.set(None, None)
        await self.bookkeeping.write(
            f"finishing game {game_id}", lambda: self.store.finish_game(game_id, winner, scores)
        )
        await self.bookkeeping.write(
            "marking the room finished",
            lambda: self.store.update_room(self.room_id, status="finished"),
        )
        log.info(
            "room %s: game %s over, winner %s",
            self.code,
            game_id,
            winner,
            extra={**self._ctx(None), "game_id": game_id},
        )

    def _clock_running(self, game_id: int) -> bool:
        return not self.closed and self.game_id == game_id

    async def _call_time_up(self, game_id: int) -> None:
        await self.call(self._time_up, game_id)

    async def _time_up(self, game_id: int) -> None:
        game = self.game
        if self.game_id != game_id or game is None or game.phase == "over" or game.time_is_up:
            return
        await self.act(None, {"type": "time_up"})
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
        return room_from_stored(
            cls,
            stored,
            store=store,
            clock=clock,
            hub=hub,
            config=config,
            bots=bots,
            observer=observer,
        )

    async def resume(self) -> None:
        """After a reload: finish what the crash interrupted, restart bots and clocks."""
        await resume(self)

    async def abandon(self) -> None:
        log.info("room %s abandoned", self.code, extra=self._ctx(None))
        self.status = "abandoned"
        await self.store.update_room(self.room_id, status="abandoned")
        self.audience.close_all(
            "abandoned",
            "this room was closed: nobody was playing",
            CLOSE_ABANDONED,
            "room abandoned",
        )
        self.game_clock.set(None, None)
        self.turns.cancel()
        self.actor.closed = True
