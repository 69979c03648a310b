"""One table: an actor that takes commands from a queue and runs them one at a time.

Every accepted game action gets the next sequence number, is appended to the store, and
only then are the new per-seat states sent (write-ahead: nothing is shown that is not
stored). Bots, turn timers and the game clock are tasks that wait on the room's `Clock`
and then submit a command like anyone else; a command that finds the game moved on
(a different sequence number) does nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from spades.engine import ActionError, Game, Rules
from spades.store.protocol import ActionRow, HandRow, RoomStatus, SeatRow, Store, StoredRoom

from .bots import BotRunner
from .broadcast import Connection, Hub, Message
from .clock import Clock, epoch_ms
from .config import RoomConfig
from .errors import BadRequest, BadToken, HostOnly, NotSeated, RoomError, RoomFull, WrongStatus
from .observer import NO_OBSERVER, Observer, now
from .settings import clean_text, normalize_settings, rules_of
from .tokens import hash_token, new_token, token_matches

log = logging.getLogger(__name__)

# View keys a state carries only when their value differs from the last state the
# connection was sent: the bulky parts that change a few times a hand at most. With them and
# an unchanged `room` left out, states take less than half the bytes (more in long games).
SENT_ON_CHANGE = ("rules", "tricks", "last_trick", "commitment", "history")

SeatKind = Literal["human", "bot", "empty"]
GAME_ACTIONS = ("look", "bid", "play")

# WebSocket close codes the room uses (4000-4999 are free for applications).
CLOSE_REPLACED = 4001
CLOSE_ABANDONED = 4002
CLOSE_SLOW = 4003
STORE_RETRY_SECONDS = 1.0


@dataclass
class Seat:
    index: int
    kind: SeatKind = "empty"
    name: str | None = None
    bot_level: str | None = None
    token_hash: str | None = None
    away: bool = False
    timed_out: bool = False
    timeouts_in_row: int = 0
    disconnected_at: float | None = None

    def row(self, room_id: str) -> SeatRow:
        return SeatRow(
            room_id=room_id,
            seat=self.index,
            name=self.name,
            bot_level=self.bot_level if self.kind == "bot" else None,
            token_hash=self.token_hash if self.kind == "human" else None,
        )

    @classmethod
    def from_row(cls, row: SeatRow) -> Seat:
        if row.bot_level:
            return cls(row.seat, "bot", row.name or "Bot", row.bot_level)
        if row.token_hash:
            return cls(row.seat, "human", row.name, None, row.token_hash)
        return cls(row.seat)

    def reset_flags(self) -> None:
        self.away = self.timed_out = False
        self.timeouts_in_row = 0


@dataclass(frozen=True)
class TurnPlan:
    """What waits for the seat to act: its bot (after `bot_delay`), or, with a `deadline`,
    the turn timer whose expiry lets the bot move for a human. Keyed on the game's id and
    sequence number, so a plan made for a turn that has passed does nothing."""

    game_id: int
    seq: int
    seat: int
    level: str
    deadline: float | None = None

    @property
    def timeout(self) -> bool:
        return self.deadline is not None


BOT_NAMES = ("South Bot", "West Bot", "North Bot", "East Bot")


async def _STOP() -> None:  # the queue marker that ends a room's worker
    return None


class Room:
    def __init__(
        self,
        *,
        room_id: str,
        code: str,
        settings: dict[str, Any],
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
        self.connections: dict[int, Connection] = {}
        # Per connection: the game, `room` and whole view of the last state it was sent, so
        # the next one can leave out what did not change (`_only_changes`).
        self._sent: dict[int, tuple[int | None, Message, dict[str, Any] | None]] = {}
        self.game: Game | None = None
        self.game_id: int | None = None
        self.turn_started = clock.now()
        self.game_deadline: float | None = None
        self.last_human_at = clock.now()
        self.closed = False
        self._queue: asyncio.Queue[tuple[Callable[[], Awaitable[Any]], asyncio.Future[Any]]]
        self._queue = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._turn_task: asyncio.Task[None] | None = None
        self._turn_plan: TurnPlan | None = None
        self._clock_task: asyncio.Task[None] | None = None
        self._side_tasks: set[asyncio.Task[Any]] = set()
        self._hinting: set[int] = set()  # connections waiting for a hint
        # Bookkeeping writes (hand and game ends, the room's status) that failed after
        # their action was stored: retried in order until they go through.
        self._pending_writes: list[tuple[str, Callable[[], Awaitable[Any]]]] = []
        self._retrying: asyncio.Task[None] | None = None
        self._unsent = False  # an action was stored and not yet broadcast

    # --- the actor ----------------------------------------------------------------------

    def start(self) -> None:
        if self._worker is None:
            self._worker = asyncio.create_task(self._run(), name=f"room-{self.code}")

    async def _run(self) -> None:
        while True:
            job, future = await self._queue.get()
            if job is _STOP:
                future.set_result(None)
                return
            if future.done():
                continue
            try:
                result = await job()
            except Exception as exc:
                if not future.done():
                    future.set_exception(exc)
            else:
                if not future.done():
                    future.set_result(result)
            if self._unsent:
                # A command stored an action and failed before showing it: show it now, so
                # clients never stay behind the log and the next turn is scheduled.
                self._changed()

    async def call(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run `fn(*args)` inside the actor, after every command queued before it."""
        if self.closed:
            raise WrongStatus("this room is closed", code="room_closed")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((lambda: fn(*args), future))
        return await future

    async def stop(self) -> None:
        """Stop taking commands, let the ones queued finish (so nothing is half stored)."""
        self.closed = True
        for task in (self._turn_task, self._clock_task, self._retrying, *self._side_tasks):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        worker = self._worker
        if worker is None or worker is asyncio.current_task() or worker.done():
            return
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((_STOP, done))
        try:
            await asyncio.wait_for(asyncio.shield(worker), 10)
        except (TimeoutError, asyncio.CancelledError):
            worker.cancel()

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)
        return task

    # --- queries (safe outside the actor: they only read) -----------------------------

    @property
    def seq(self) -> int:
        return self.game.action_count if self.game is not None else 0

    @property
    def invite_url(self) -> str:
        return f"{self.base_url}/r/{self.code}"

    def connected(self, seat: int) -> bool:
        return any(c.seat == seat for c in self.connections.values())

    def humans_connected(self) -> bool:
        return any(
            c.seat is not None and self.seats[c.seat].kind == "human"
            for c in self.connections.values()
        )

    def idle_since(self) -> float | None:
        """When the last human left (None while one is connected)."""
        return None if self.humans_connected() else self.last_human_at

    def room_dict(self, you: int | None = None) -> dict[str, Any]:
        online = {c.seat for c in self.connections.values()}
        return {
            "id": self.room_id,
            "code": self.code,
            "status": self.status,
            "host_seat": self.host_seat,
            "you": you,
            "settings": self.settings,
            "seats": [
                {
                    "seat": s.index,
                    "name": s.name,
                    "kind": s.kind,
                    "bot_level": s.bot_level,
                    "connected": s.kind == "bot" or s.index in online,
                    "away": s.away,
                    "timed_out": s.timed_out,
                }
                for s in self.seats
            ],
            "game_id": self.game_id,
            "invite_url": self.invite_url,
        }

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.room_id,
            "code": self.code,
            "status": self.status,
            "settings": self.settings,
            "host": self.seats[self.host_seat].name if self.host_seat is not None else None,
            "seats": [{"seat": s.index, "name": s.name, "kind": s.kind} for s in self.seats],
            "open_seats": [s.index for s in self.seats if s.kind == "empty"],
            "invite_url": self.invite_url,
        }

    def turn_deadline(self) -> float | None:
        """When the seat to act loses its turn to the bot (None: no clock on this turn)."""
        game = self.game
        if game is None or game.phase == "over" or game.to_act is None:
            return None
        seat = self.seats[game.to_act]
        if seat.kind != "human" or seat.away:
            return None
        deadline = None
        if self.settings["turn_seconds"]:
            deadline = self.turn_started + self.settings["turn_seconds"]
        if not self.connected(seat.index):
            gone = max(self.turn_started, seat.disconnected_at or self.turn_started)
            grace = gone + self.config.grace_seconds
            deadline = grace if deadline is None else min(deadline, grace)
        return deadline

    def clock_dict(self) -> dict[str, Any]:
        return {
            "turn_deadline": epoch_ms(self.turn_deadline()),
            "game_deadline": epoch_ms(self.game_deadline),
            "now": epoch_ms(self.clock.now()),
        }

    def state_for(
        self,
        seat: int | None,
        cache: dict[int | None, Message],
        clock: dict[str, Any],
        room: dict[str, Any],
    ) -> Message:
        """The whole state message for `seat`; one per seat per broadcast. `room` is the
        room part shared by every seat (`room_dict(None)`, built once per broadcast)."""
        message = cache.get(seat)
        if message is None:
            message = cache[seat] = {
                "type": "state",
                "seq": self.seq,
                "room": {**room, "you": seat},
                "view": None if self.game is None else self.game.view(seat),
                "clock": clock,
                "ref": None,
            }
        return message

    def _only_changes(self, conn: Connection, message: Message) -> Message:
        """`message` without what `conn` already holds: `room` when it is unchanged, and the
        bulky view keys (SENT_ON_CHANGE) whose values are unchanged. The first state after a
        hello, and the first of each game, are whole (docs/protocol.md, `state`)."""
        room, view = message["room"], message["view"]
        last = self._sent.get(conn.conn_id)
        self._sent[conn.conn_id] = (self.game_id, room, view)
        if last is None or last[0] != self.game_id:
            return message
        _, last_room, last_view = last
        out = dict(message)
        if room == last_room:
            del out["room"]
        if view is not None and last_view is not None:
            trimmed = None
            for key in SENT_ON_CHANGE:
                if view[key] == last_view[key]:
                    if trimmed is None:
                        trimmed = dict(view)
                    del trimmed[key]
            if trimmed is not None:
                out["view"] = trimmed
        return out

    # --- sending -------------------------------------------------------------------------

    def _ctx(self, seat: int | None) -> dict[str, Any]:
        """`extra` for a log line about this room: its code and the seat (never a token)."""
        return {"room": self.code, "seat": seat}

    def _send(self, conn: Connection, message: Message) -> None:
        self.hub.send(conn, message)

    def _error(self, conn: Connection, code: str, message: str, ref: Any) -> None:
        self._send(conn, {"type": "error", "code": code, "message": message, "ref": ref})

    def _broadcast(self, origin: Connection | None = None, ref: Any = None) -> None:
        if not self.connections:
            return
        cache: dict[int | None, Message] = {}
        clock = self.clock_dict()
        room = self.room_dict(None)
        for conn in list(self.connections.values()):
            message = self._only_changes(conn, self.state_for(conn.seat, cache, clock, room))
            if conn is origin:
                message = {**message, "ref": ref}
            self._send(conn, message)

    def _changed(self, origin: Connection | None = None, ref: Any = None) -> None:
        """Show the new state and schedule the next turn; one failing never stops the other."""
        self._unsent = False
        try:
            self._broadcast(origin, ref)
        except Exception:
            log.exception("room %s: broadcast failed", self.code, extra=self._ctx(None))
        try:
            self._reschedule()
        except Exception:
            log.exception(
                "room %s: scheduling the next turn failed", self.code, extra=self._ctx(None)
            )

    async def _write(self, write: Awaitable[Any]) -> Any:
        """A write that comes before any change: its failure refuses the command."""
        try:
            return await write
        except Exception as exc:
            log.exception("room %s: a write failed", self.code, extra=self._ctx(None))
            raise RoomError("that could not be saved; try again", code="storage_error") from exc

    async def _bookkeep(self, what: str, write: Callable[[], Awaitable[Any]]) -> None:
        """A write that follows a stored action: on failure it is logged and retried later
        (in order, after those already waiting), and the room goes on."""
        if not self._pending_writes:
            try:
                await write()
                return
            except Exception:
                log.exception(
                    "room %s: %s failed; will retry", self.code, what, extra=self._ctx(None)
                )
        self._pending_writes.append((what, write))
        if self._retrying is None or self._retrying.done():
            self._retrying = asyncio.create_task(self._retry_writes())

    async def _retry_writes(self) -> None:
        while self._pending_writes and not self.closed:
            await self.clock.sleep_until(self.clock.now() + STORE_RETRY_SECONDS)
            try:
                await self.call(self._flush_writes)
            except RoomError:
                return  # closed

    async def _flush_writes(self) -> None:
        while self._pending_writes:
            what, write = self._pending_writes[0]
            try:
                await write()
            except Exception:
                log.exception(
                    "room %s: %s failed again; will retry", self.code, what, extra=self._ctx(None)
                )
                return
            self._pending_writes.pop(0)
            log.info("room %s: %s stored on retry", self.code, what, extra=self._ctx(None))

    # --- connections -------------------------------------------------------------------

    async def attach(self, conn: Connection, token: str | None, ref: Any = None) -> None:
        """`hello`: authenticate a connection (no token: a spectator) and send it the state."""
        seat = None
        if token is not None:
            seat = self._seat_for_token(token)
            if seat is None:
                self._error(conn, BadToken.code, "that seat token is not valid here", ref)
        if conn.conn_id in self.connections and conn.seat not in (None, seat):
            self.seats[conn.seat].disconnected_at = self.clock.now()  # a second hello moved it
        conn.seat = seat
        if seat is not None:
            for other in list(self.connections.values()):
                if other is not conn and other.seat == seat:
                    other.seat = None
                    del self.connections[other.conn_id]
                    self._sent.pop(other.conn_id, None)
                    self._error(other, "replaced", "this seat was opened in another tab", None)
                    self.hub.close(other, CLOSE_REPLACED, "seat taken over by a newer connection")
            s = self.seats[seat]
            s.reset_flags()
            s.disconnected_at = None
        try:
            chats = await self.store.recent_chat(self.room_id)
        except Exception:
            log.exception("room %s: reading the chat failed", self.code, extra=self._ctx(seat))
            chats = []
        self.connections[conn.conn_id] = conn
        self._sent.pop(conn.conn_id, None)  # the answer to a hello is whole
        log.info("room %s: connection %s joined", self.code, conn.conn_id, extra=self._ctx(seat))
        self._changed(conn, ref)
        for chat in chats:
            self._send(conn, {"type": "chat", **chat})

    async def detach(self, conn: Connection) -> None:
        self._sent.pop(conn.conn_id, None)
        if self.connections.pop(conn.conn_id, None) is None:
            return
        log.info("room %s: connection %s left", self.code, conn.conn_id, extra=self._ctx(conn.seat))
        if conn.seat is not None and self.seats[conn.seat].kind == "human":
            now = self.clock.now()
            self.seats[conn.seat].disconnected_at = now
            if not self.humans_connected():
                self.last_human_at = now
        self._changed()

    def _seat_for_token(self, token: str) -> int | None:
        found = None
        for seat in self.seats:  # check every seat so the time taken says nothing
            if token_matches(token, seat.token_hash) and seat.kind == "human":
                found = seat.index
        return found

    # --- seats -------------------------------------------------------------------------

    async def join(
        self, name: str, seat: int | None, spectator: bool
    ) -> tuple[int | None, str | None]:
        """`POST /join` and `sit`: take a free seat (or the named one). Returns seat and token."""
        if spectator:
            return None, None
        name = clean_text(name, self.config.name_length, "name")
        if self.status not in ("open", "finished") or self.game_in_progress():
            raise RoomFull("the game has started; you can watch", code="game_in_progress")
        if seat is None:
            free = [s.index for s in self.seats if s.kind == "empty"]
            if not free:
                raise RoomFull("every seat is taken")
            seat = free[0]
        if seat not in range(4):
            raise BadRequest("a seat is 0..3")
        if self.seats[seat].kind == "human":
            raise RoomFull(f"seat {seat} is taken")
        token = new_token()
        taken = Seat(seat, "human", name, None, hash_token(token))
        taken.disconnected_at = self.clock.now()
        await self._store_seat(taken)
        if self.host_seat is None or self.seats[self.host_seat].kind != "human":
            await self._set_host(seat)
        self._changed()
        return seat, token

    async def _store_seat(self, seat: Seat) -> None:
        """Store first, then take it in memory: a failed write leaves the room as it was."""
        await self._write(self.store.set_seat(seat.row(self.room_id)))
        self.seats[seat.index] = seat

    async def _set_host(self, seat: int | None) -> None:
        await self._write(self.store.update_room(self.room_id, host_seat=seat))
        self.host_seat = seat

    def game_in_progress(self) -> bool:
        return self.game is not None and self.game.phase != "over"

    async def _vacate(self, seat: int) -> None:
        await self._store_seat(Seat(seat))
        for conn in self.connections.values():
            if conn.seat == seat:
                conn.seat = None
        if self.host_seat == seat:
            humans = [s.index for s in self.seats if s.kind == "human"]
            await self._set_host(humans[0] if humans else None)

    # --- commands from a connection ----------------------------------------------------

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
            if conn.conn_id not in self.connections:
                raise RoomError("say hello first", code="hello_first")
            handler = getattr(self, f"_on_{kind}", None)
            if handler is None:
                raise RoomError(f"unknown message type {kind!r}", code="unknown_type")
            await handler(conn, message, ref)
        except ActionError as exc:
            self._error(conn, exc.code, exc.message, ref)
        except RoomError as exc:
            self._error(conn, exc.code, exc.message, ref)
        except Exception:
            log.exception("room %s: %s failed", self.code, kind, extra=self._ctx(conn.seat))
            self._error(conn, "server_error", "that could not be done; try again", ref)
        else:
            if kind in GAME_ACTIONS:
                self.observer.action_latency("human", now() - received)

    def _seat_of(self, conn: Connection) -> int:
        if conn.seat is None:
            raise NotSeated("take a seat first")
        return conn.seat

    async def _host(self, conn: Connection) -> None:
        if conn.seat is None:
            raise HostOnly("only the host may do that")
        if conn.seat != self.host_seat and self._host_gone():
            # The host left for good (gone past the grace period): a present player takes over.
            await self._set_host(conn.seat)
        if conn.seat != self.host_seat:
            raise HostOnly("only the host may do that")

    def _host_gone(self) -> bool:
        if self.host_seat is None:
            return True
        host = self.seats[self.host_seat]
        if host.kind != "human":
            return True
        if self.connected(host.index) or host.disconnected_at is None:
            return False
        return self.clock.now() - host.disconnected_at >= self.config.grace_seconds

    def _not_playing(self) -> None:
        if self.game_in_progress():
            raise WrongStatus("not while a game is being played", code="game_in_progress")

    async def _on_sit(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        if conn.seat is not None:
            raise BadRequest("you already have a seat", code="already_seated")
        seat, token = await self.join(msg.get("name") or "", msg.get("seat"), False)
        conn.seat = seat
        self._send(conn, {"type": "seated", "seat": seat, "token": token, "ref": ref})
        self._changed(conn, ref)

    async def _on_stand(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        seat = self._seat_of(conn)
        self._not_playing()
        await self._vacate(seat)
        self._changed(conn, ref)

    async def _on_set_seat(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        await self._host(conn)
        seat, to = msg.get("seat"), msg.get("to")
        if not isinstance(seat, int) or seat not in range(4) or to not in ("bot", "empty"):
            raise BadRequest("set_seat needs a seat 0..3 and to = 'bot' or 'empty'")
        if seat == self.host_seat:
            raise BadRequest("the host cannot replace their own seat", code="own_seat")
        if to == "empty":
            self._not_playing()
            await self._vacate(seat)
        else:
            if self.seats[seat].kind == "human":
                await self._vacate(seat)
            await self._make_bot(seat)
        self._changed(conn, ref)

    async def _make_bot(self, seat: int) -> None:
        await self._store_seat(Seat(seat, "bot", BOT_NAMES[seat], self.settings["bot_level"]))

    async def _on_settings(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        await self._host(conn)
        self._not_playing()
        raw = msg.get("settings")
        if not isinstance(raw, dict):
            raise BadRequest("settings must be an object")
        settings = normalize_settings(raw, self.settings)
        await self._write(self.store.update_room(self.room_id, settings=settings))
        self.settings = settings
        self._changed(conn, ref)

    async def _on_start(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        await self._host(conn)
        if self.status != "open":
            raise WrongStatus("the game has already started; use play_again after it ends")
        await self.start_game()
        self._changed(conn, ref)

    async def _on_play_again(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        self._seat_of(conn)
        if self.status != "finished":
            raise WrongStatus("play again is for a finished game")
        await self.start_game()
        self._changed(conn, ref)

    async def start_game(self) -> None:
        """Fill empty seats with bots and deal. Stored before anything is shown."""
        for seat in list(self.seats):
            if seat.kind == "empty":
                await self._make_bot(seat.index)
        rules: Rules = rules_of(self.settings)
        game = Game.new(rules)
        game_id = await self._write(
            self.store.start_game(self.room_id, rules.to_dict(), game.first_dealer, game.seed)
        )
        self.game, self.game_id = game, game_id
        log.info(
            "room %s: game %s started",
            self.code,
            game_id,
            extra={**self._ctx(None), "game_id": game_id},
        )
        if self.status != "playing":
            self.status = "playing"
            await self._bookkeep(
                "marking the room playing",
                lambda: self.store.update_room(self.room_id, status="playing"),
            )
        for seat in self.seats:
            seat.reset_flags()
        now = self.clock.now()
        self.turn_started = now
        minutes = self.settings["game_minutes"]
        self._set_game_clock(now + 60 * minutes if minutes else None)

    async def _on_look(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        await self._owner_action(conn, {"type": "look"}, ref)

    async def _on_bid(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        await self._owner_action(conn, {"type": "bid", "bid": msg.get("bid")}, ref)

    async def _on_play(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        await self._owner_action(conn, {"type": "play", "card": msg.get("card")}, ref)

    async def _owner_action(self, conn: Connection, action: dict[str, Any], ref: Any) -> None:
        seat = self._seat_of(conn)
        if self.game is None or self.status != "playing":
            raise WrongStatus("no game is being played", code="no_game")
        await self._act(seat, action)
        self.seats[seat].reset_flags()
        self._changed(conn, ref)

    async def _on_hint(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        seat = self._seat_of(conn)
        if self.game is None or self.status != "playing":
            raise WrongStatus("no game is being played", code="no_game")
        view = self.game.view(seat)
        if not view["legal"]:
            raise RoomError("there is nothing for you to do now", code="nothing_to_hint")
        if conn.conn_id in self._hinting:
            raise RoomError("a hint is already being worked out", code="hint_pending")
        self._hinting.add(conn.conn_id)
        self._spawn(self._hint(conn, view, ref))

    async def _hint(self, conn: Connection, view: dict[str, Any], ref: Any) -> None:
        try:
            action = await self.bots.decide(self.settings["bot_level"], view, None)
        finally:
            self._hinting.discard(conn.conn_id)
        if conn.conn_id in self.connections:
            self._send(conn, {"type": "hint", "action": action, "ref": ref})

    async def _on_chat(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        text = clean_text(str(msg.get("text") or ""), self.config.chat_length, "chat message")
        seat = conn.seat
        name = (self.seats[seat].name if seat is not None else None) or "Spectator"
        await self._write(self.store.add_chat(self.room_id, seat, name, text))
        chat = {
            "type": "chat",
            "seat": seat,
            "name": name,
            "text": text,
            "at": epoch_ms(self.clock.now()),
        }
        for other in self.connections.values():
            self._send(other, chat)

    async def _on_ping(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        self._send(conn, {"type": "pong", "ref": ref})

    async def _on_hello(self, conn: Connection, msg: dict[str, Any], ref: Any) -> None:
        await self.attach(conn, msg.get("token"), ref)

    # --- the game ----------------------------------------------------------------------

    async def _act(self, seat: int | None, action: dict[str, Any]) -> dict[str, Any]:
        """Apply, store, and record hand/game ends. Raises ActionError with nothing changed."""
        game = self.game
        assert game is not None and self.game_id is not None
        hands_before = len(game.history)
        recorded = game.apply(seat, action)
        seq = game.action_count
        at = datetime.fromtimestamp(self.clock.now(), UTC)
        started = now()
        try:
            await self.store.append_action(ActionRow(self.game_id, seq, seat, recorded, at))
        except Exception as exc:
            self.observer.store_append(now() - started)
            # Not stored, so it never happened: rebuild the game without it.
            record = game.to_record()
            record["actions"] = record["actions"][:-1]
            self.game = Game.from_record(record)
            log.exception(
                "room %s: storing action %s of game %s failed",
                self.code,
                seq,
                self.game_id,
                extra={**self._ctx(seat), "game_id": self.game_id},
            )
            self._spawn(self._retry_turn(STORE_RETRY_SECONDS))
            raise RoomError("the action could not be saved", code="storage_error") from exc
        # Stored: from here on nothing may stop the room from showing it and going on.
        self._unsent = True
        self.observer.store_append(now() - started)
        self.observer.action(recorded["type"])
        if recorded["type"] in ("bid", "play"):
            self.turn_started = self.clock.now()
        for entry in game.history[hands_before:]:
            row = HandRow(self.game_id, entry["hand"], entry)
            await self._bookkeep(
                f"storing hand {row.hand_number} of game {row.game_id}",
                self._hand_write(row),
            )
        if game.phase == "over":
            await self._finish_game()
        return recorded

    def _hand_write(self, row: HandRow) -> Callable[[], Awaitable[None]]:
        return lambda: self.store.finish_hand(row)

    async def _finish_game(self) -> None:
        game = self.game
        game_id = self.game_id
        assert game is not None and game_id is not None
        winner, scores = game.winner, list(game.scores)
        self.status = "finished"
        self._set_game_clock(None)
        await self._bookkeep(
            f"finishing game {game_id}",
            lambda: self.store.finish_game(game_id, winner, scores),
        )
        await self._bookkeep(
            "marking the room finished",
            lambda: self.store.update_room(self.room_id, status="finished"),
        )
        log.info(
            "room %s: game %s over, winner %s",
            self.code,
            self.game_id,
            game.winner,
            extra={**self._ctx(None), "game_id": self.game_id},
        )

    def _set_game_clock(self, deadline: float | None) -> None:
        if self._clock_task is not None:
            self._clock_task.cancel()
            self._clock_task = None
        self.game_deadline = deadline
        if deadline is not None and self.game_id is not None:
            self._clock_task = asyncio.create_task(self._game_clock(self.game_id, deadline))

    async def _game_clock(self, game_id: int, deadline: float) -> None:
        """Keyed on the game's id, not its object: a failed write rebuilds the object."""
        while True:
            await self.clock.sleep_until(deadline)
            if self.closed or self.game_id != game_id:
                return
            try:
                await self.call(self._time_up, game_id)
                return
            except Exception as exc:
                log.warning(
                    "room %s: the game clock could not end the game (%s); will retry",
                    self.code,
                    exc,
                    extra=self._ctx(None),
                )
                deadline = self.clock.now() + STORE_RETRY_SECONDS

    async def _time_up(self, game_id: int) -> None:
        game = self.game
        if self.game_id != game_id or game is None or game.phase == "over" or game.time_is_up:
            return
        await self._act(None, {"type": "time_up"})
        self._changed()

    async def _retry_turn(self, seconds: float) -> None:
        """After a failed write, give the seat to act its bot or timer again, a little later."""
        await self.clock.sleep_until(self.clock.now() + seconds)
        if not self.closed:
            await self.call(self._reschedule_now)

    async def _reschedule_now(self) -> None:
        self._reschedule()

    def _reschedule(self) -> None:
        """Start the next bot move or turn timer for the seat to act, replacing any pending.

        A pending move for the same turn is kept, so people coming and going do not keep
        restarting a bot's delay.
        """
        plan = None if self.closed else self._plan()
        task = self._turn_task
        if plan is not None and plan == self._turn_plan and task is not None and not task.done():
            return
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        self._turn_task, self._turn_plan = None, plan
        if plan is not None:
            when = plan.deadline
            if when is None:
                when = self.clock.now() + self.config.bot_delay
            self._turn_task = asyncio.create_task(self._bot_turn(plan, when))

    def _plan(self) -> TurnPlan | None:
        game = self.game
        if game is None or self.game_id is None or game.phase == "over" or game.to_act is None:
            return None
        seat = self.seats[game.to_act]
        if seat.kind != "human" or seat.away:
            level = seat.bot_level or self.settings["bot_level"]
            return TurnPlan(self.game_id, self.seq, seat.index, level)
        deadline = self.turn_deadline()
        if deadline is None:
            return None
        return TurnPlan(self.game_id, self.seq, seat.index, self.settings["bot_level"], deadline)

    def _is_current(self, plan: TurnPlan) -> bool:
        game = self.game
        return (
            not self.closed
            and game is not None
            and self.game_id == plan.game_id
            and self.seq == plan.seq
            and game.to_act == plan.seat
        )

    async def _bot_turn(self, plan: TurnPlan, when: float) -> None:
        await self.clock.sleep_until(when)
        game = self.game
        if game is None or not self._is_current(plan):
            return
        action = await self.bots.decide(plan.level, game.view(plan.seat), self._bot_seed(plan.seq))
        try:
            await self.call(self._bot_move, plan, action, now())
        except RoomError as exc:
            log.warning(
                "room %s: bot move for seat %s failed: %s",
                self.code,
                plan.seat,
                exc,
                extra=self._ctx(plan.seat),
            )

    def _bot_seed(self, seq: int) -> int:
        return (self.game_id or 0) * 10_007 + seq

    async def _bot_move(self, plan: TurnPlan, action: dict[str, Any], queued: float) -> None:
        game = self.game
        if game is None or not self._is_current(plan):
            return
        seat = plan.seat
        try:
            await self._act(seat, action)
            if plan.timeout and action.get("type") == "look" and game.to_act == seat:
                # A timed-out seat that had to look still owes its bid: make it now.
                view = game.view(seat)
                bid = await self.bots.decide(plan.level, view, self._bot_seed(plan.seq))
                await self._act(seat, bid)
        except ActionError as exc:
            # The refused action is not logged: it may name a card not played.
            log.error(
                "room %s: a %s by the bot of seat %s was refused (%s)",
                self.code,
                action.get("type"),
                seat,
                exc.code,
                extra=self._ctx(seat),
            )
            legal = game.legal_actions(seat)
            if not legal:
                return
            await self._act(seat, legal[-1] if legal[0].get("type") == "look" else legal[0])
        if plan.timeout:
            s = self.seats[seat]
            s.timed_out = True
            s.timeouts_in_row += 1
            if s.timeouts_in_row >= self.config.timeouts_before_away or not self.connected(seat):
                s.away = True
        self._changed()
        self.observer.action_latency("bot", now() - queued)

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
        seats = [Seat(i) for i in range(4)]
        for seat_row in stored.seats:
            if seat_row.seat in range(4):
                seats[seat_row.seat] = Seat.from_row(seat_row)
        now = clock.now()
        for seat in seats:
            seat.disconnected_at = now
        room = cls(
            room_id=row.id,
            code=row.code,
            settings=normalize_settings(row.settings),
            store=store,
            clock=clock,
            hub=hub,
            config=config,
            bots=bots,
            host_seat=row.host_seat,
            status=row.status,
            seats=seats,
            observer=observer,
        )
        if stored.game is not None:
            g = stored.game
            game = Game(Rules.from_dict(g.rules), seed=g.seed, first_dealer=g.first_dealer)
            for expected, action in enumerate(stored.actions, start=1):
                if action.seq != expected:
                    raise RuntimeError(f"game {g.id}: action {expected} missing from the log")
                game.apply(action.seat, action.action)
            room.game, room.game_id = game, g.id
            room._elapsed_at_load = stored_elapsed(stored)
        return room

    async def resume(self) -> None:
        """After a reload: finish what the crash interrupted, restart bots and clocks."""
        game = self.game
        if game is None and self.status == "playing":
            # The crash came after the game was finished but before the room was told.
            self.status = "finished"
            await self._bookkeep(
                "marking the room finished",
                lambda: self.store.update_room(self.room_id, status="finished"),
            )
        if game is None and self.status == "finished":
            await self._load_last_game()
        if game is not None and self.game_id is not None:
            if game.phase == "over" and self.status == "playing":
                await self._finish_game()
            minutes = self.settings["game_minutes"]
            if game.phase != "over" and minutes and not game.time_is_up:
                self._set_game_clock(self.clock.now() + self._game_time_left(minutes * 60.0))
        self.turn_started = self.clock.now()
        self._changed()

    async def _load_last_game(self) -> None:
        """A finished room shows its last game's final state (scores, winner, game over),
        after a restart as before it."""
        try:
            finished = await self.store.finished_games(self.room_id)
            if finished:
                game_id = finished[-1].game.id
                self.game = Game.from_record(await self.store.export_game(game_id))
                self.game_id = game_id
        except Exception:
            log.exception("room %s: its last game could not be loaded", self.code)

    def _game_time_left(self, total: float) -> float:
        # The clock ran from the game's start to its last stored action; the rest is left.
        return max(0.0, total - self._elapsed_at_load)

    _elapsed_at_load = 0.0

    async def abandon(self) -> None:
        log.info("room %s abandoned", self.code, extra=self._ctx(None))
        self.status = "abandoned"
        await self.store.update_room(self.room_id, status="abandoned")
        for conn in list(self.connections.values()):
            self._error(conn, "abandoned", "this room was closed: nobody was playing", None)
            self.hub.close(conn, CLOSE_ABANDONED, "room abandoned")
        self.connections.clear()
        self._sent.clear()
        self._set_game_clock(None)
        if self._turn_task is not None:
            self._turn_task.cancel()
        self.closed = True


def stored_elapsed(stored: StoredRoom) -> float:
    """Seconds of game clock used before a restart: from the start to the last stored action."""
    game = stored.game
    if game is None or game.started_at is None or not stored.actions:
        return 0.0
    last = stored.actions[-1].at
    if last is None:
        return 0.0
    return max(0.0, (last - game.started_at).total_seconds())
