"""The game's life in one room: deal, apply and store each action, end hands and games,
catch up with the log when it is ahead, and finish what a restart interrupted.

Every accepted action gets the next sequence number and is appended to the store before
anything is shown (write-ahead). Once it is stored nothing may stop the room: the hand and
game bookkeeping that follows is retried when it fails (writes.Bookkeeping).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from spades.codes import ErrorCode
from spades.engine import Game, Rules
from spades.engine.stats import game_stats
from spades.store.protocol import (
    ActionRow,
    FencedOut,
    HandRow,
    RoomStatus,
    SequenceError,
    Store,
    StoredRoom,
)

from .clock import Clock
from .errors import RoomError, RoomMoved
from .gameclock import GameClock
from .observer import Observer, now
from .rating import Rating
from .ratings_io import rated_seats, rating_changes, show_changes
from .recovery import replay, stored_elapsed
from .table import Table
from .writes import Bookkeeping, store_failures, write_first

log = logging.getLogger(__name__)

MOVE_COUNTED = 30.0  # seconds since the last action a room move counts on the clocks, at most


class Match:
    """The room's current (or last) game and its status. `on_store_failure` is told when an
    action could not be stored (the seat to act gets its bot or timer again later);
    `on_caught_up` when the game was taken from the log (every connection needs a whole
    state next)."""

    def __init__(
        self,
        table: Table,
        *,
        status: RoomStatus,
        store: Store,
        clock: Clock,
        observer: Observer,
        bookkeeping: Bookkeeping,
        game_clock: GameClock,
        on_store_failure: Callable[[], None],
        on_caught_up: Callable[[], None],
        grace: float = 0.0,
    ) -> None:
        self.table = table
        self.code = table.code
        self.status: RoomStatus = status
        self.store = store
        self.clock = clock
        self.observer = observer
        self.bookkeeping = bookkeeping
        self.game_clock = game_clock
        self._on_store_failure = on_store_failure
        self._on_caught_up = on_caught_up
        self.game: Game | None = None
        self.game_id: int | None = None
        # The seat that started the game being played (`start` or `play_again`): the others'
        # clients can say who. Not stored: after a restart it is not known (None).
        self.started_by: int | None = None
        # Seats that asked to play again after a game: the next starts once every person
        # seated and here has asked (a bot, or someone gone, never holds it up).
        self.again: set[int] = set()
        self.turn_started = clock.now()
        self.elapsed_at_load = 0.0  # game clock used before a restart
        # Claimed from another process of a cluster (manager.py): the time since the last
        # action is the game's, not an outage's (up to MOVE_COUNTED s): no clock refunds it.
        self.moved = False
        self.last_at: float | None = None  # epoch s of the last stored action (or start)
        self.hands_at_load: list[int] = []  # hand rows stored for the game when it was loaded
        self.unsent = False  # an action was stored and not yet shown
        # The seats' actions of this game made by their person and by the bot for them
        # (the weight of a rated seat); those of the log replayed after a reload count as
        # the person's. `grace`: a person gone this long at the game's end left it.
        self.moves = [[0, 0] for _ in range(4)]
        self.grace = grace

    @property
    def seq(self) -> int:
        return self.game.action_count if self.game is not None else 0

    def in_progress(self) -> bool:
        return self.game is not None and self.game.phase != "over"

    def _ctx(self, seat: int | None, game_id: int | None = None) -> dict[str, Any]:
        if game_id is None:
            return {"room": self.code, "seat": seat}
        return {"room": self.code, "seat": seat, "game_id": game_id}

    # --- a game's start and end ----------------------------------------------------------

    async def previous_stored(self) -> None:
        """Before a new game: the last game's end (its hands, its result, the room's
        status) must be stored, or refuse with `storage_error` and nothing changed. A
        reload takes a room's newest unfinished game as the one being played, so a game
        started while the last one's `finish_game` still waits for a retry would leave the
        last one unfinished for ever (its record refused, absent from the history) after
        a crash."""
        if self.bookkeeping.pending:
            await self.bookkeeping.flush()
        if self.bookkeeping.pending:
            raise RoomError(
                "the last game's end could not be saved yet; try again",
                code=ErrorCode.STORAGE_ERROR,
            )

    async def start(self) -> None:
        """Deal a new game (the seats are filled). Stored before anything is shown."""
        table = self.table
        rules: Rules = table.settings.rules_value()
        game = Game.new(rules)
        game_id = await write_first(
            self.code,
            self.store.start_game(table.room_id, rules.to_dict(), game.first_dealer, game.seed),
        )
        self.game, self.game_id = game, game_id
        self.again = set()
        table.rating_changes = ()
        self.moves = [[0, 0] for _ in range(4)]
        log.info("room %s: game %s started", self.code, game_id, extra=self._ctx(None))
        if self.status != "playing":
            self.status = "playing"
            await self.bookkeeping.write(
                "marking the room playing",
                lambda: self.store.update_room(table.room_id, status="playing"),
            )
        for seat in table.seats:
            seat.reset_flags()
        started = self.clock.now()
        self.turn_started = started
        minutes = table.settings.game_minutes
        self.game_clock.set(game_id, started + 60 * minutes if minutes else None)

    async def finish(self) -> None:
        game, game_id = self.game, self.game_id
        assert game is not None and game_id is not None
        winner, scores = game.winner, list(game.scores)
        stats = game_stats(game)  # each seat's, counted for its player with the game's end
        room_id = self.table.room_id
        self.status = "finished"
        self.game_clock.set(None, None)
        rated = rated_seats(self.table, self.moves, self.clock.now(), self.grace)
        mode = game.rules.mode

        async def write() -> None:
            # Rated: the changes from the ratings as they are just before the finish (read
            # again by a retry; the finish applies them once per game, the store says how).
            changes: list[dict[str, Any]] | None = None
            current: dict[str, Rating] = {}
            if rated:
                changes, current = await rating_changes(self.store, mode, rated, scores, winner)
            await self.store.finish_game(game_id, winner, scores, stats=stats, ratings=changes)
            if changes:
                show_changes(self.table, changes, current)

        await self.bookkeeping.write(f"finishing game {game_id}", write)
        await self.bookkeeping.write(
            "marking the room finished",
            lambda: self.store.update_room(room_id, status="finished"),
        )
        log.info(
            "room %s: game %s over, winner %s",
            self.code,
            game_id,
            winner,
            extra=self._ctx(None, game_id),
        )

    # --- one action ------------------------------------------------------------------------

    async def act(
        self,
        seat: int | None,
        action: dict[str, Any],
        *,
        caught_up: bool = False,
        by_bot: bool = False,
    ) -> dict[str, Any]:
        """Apply and store; then record hand and game ends. Raises ActionError or RoomError
        with nothing changed; once the action is stored, raises nothing.

        `caught_up`: the game was just taken from the log (an append in doubt had committed
        after all); this is the action's second and last try. `by_bot`: the seat's bot
        made it (for a person: their turn ran out, or they are gone)."""
        game, game_id = self.game, self.game_id
        assert game is not None and game_id is not None
        hands_before = len(game.history)
        recorded = game.apply(seat, action)
        seq = game.action_count
        started = now()
        try:
            # No time of its own: the store stamps the row with its batch's commit time.
            await self.store.append_action(ActionRow(game_id, seq, seat, recorded))
        except Exception as exc:
            self.observer.store_append(now() - started)
            if await self._not_stored(exc, game, game_id, hands_before, caught_up):
                return await self.act(seat, action, caught_up=True, by_bot=by_bot)
            store_failures.log(
                log,
                self.code,
                "room %s: storing action %s of game %s failed",
                self.code,
                seq,
                game_id,
                extra=self._ctx(seat, game_id),
            )
            self._on_store_failure()
            raise RoomError("the action could not be saved", code=ErrorCode.STORAGE_ERROR) from exc
        self.unsent = True
        if seat is not None:
            self.moves[seat][by_bot] += 1
        self.observer.store_append(now() - started)
        self.observer.action(recorded["type"])
        if recorded["type"] in ("bid", "play"):
            self.turn_started = self.clock.now()
        if len(game.history) != hands_before:  # (no slice per action)
            for entry in game.history[hands_before:]:
                await self._store_hand(game_id, entry)
        if game.phase == "over":
            await self.finish()
        return recorded

    async def _not_stored(
        self, exc: Exception, game: Game, game_id: int, hands_before: int, caught_up: bool
    ) -> bool:
        """An append failed: take the action back. True when the log turned out to be ahead
        and the game was taken from it (the action may be tried once more on it)."""
        # Not stored, so it never happened: rebuild the game without it.
        record = game.to_record()
        record["actions"] = record["actions"][:-1]
        self.game = Game.from_record(record)
        if isinstance(exc, FencedOut):
            # FencedStore has said so (a warning, once).
            raise RoomMoved("the room moved to another process: reconnect") from exc
        # A seq taken means the log is ahead of this game: an earlier append this room was
        # told had failed (a timeout: in doubt) committed after all. The log is the truth:
        # take the game from it, show it, and try the action on it once.
        return (
            isinstance(exc, SequenceError)
            and not caught_up
            and await self._catch_up_with_log(game_id, hands_before)
        )

    async def _store_hand(self, game_id: int, entry: dict[str, Any]) -> None:
        row = HandRow(game_id, entry["hand"], entry)
        await self.bookkeeping.write(
            f"storing hand {row.hand_number} of game {game_id}",
            lambda: self.store.finish_hand(row),
        )

    async def store_missing_hands(self, game_id: int, game: Game, stored: list[int]) -> None:
        """Store the rows of the game's finished hands that are not among `stored`."""
        have = set(stored)
        for entry in game.history:
            if entry["hand"] not in have:
                await self._store_hand(game_id, entry)

    async def _catch_up_with_log(self, game_id: int, hands_before: int) -> bool:
        """Replace the game by the one its stored log holds; store the hands and the game's
        end the logged actions brought, and have every connection sent the whole state.
        False (nothing changed) when the log cannot be read now."""
        try:
            stored = await self.store.load_room(self.table.room_id)
            if stored.game is None or stored.game.id != game_id:
                raise RuntimeError(f"game {game_id} is no longer the room's unfinished game")
            game = replay(stored)
            stored_hands = stored.hands
        except Exception:
            log.exception(
                "room %s: reading game %s from the log failed",
                self.code,
                game_id,
                extra=self._ctx(None, game_id),
            )
            return False
        log.warning(
            "room %s: game %s was behind its log (an append in doubt was stored): "
            "%s actions held, %s logged",
            self.code,
            game_id,
            self.seq,
            game.action_count,
            extra=self._ctx(None, game_id),
        )
        self.game = game
        self._on_caught_up()
        self.unsent = True  # shown after this command, whatever it turns out to be
        self.turn_started = self.clock.now()
        # The hands the late actions ended (not those this room stored or still retries).
        kept = [e["hand"] for e in game.history[:hands_before]]
        await self.store_missing_hands(game_id, game, kept + stored_hands)
        if game.phase == "over":
            await self.finish()
        return True

    def time_up_pending(self, game_id: int) -> bool:
        """The game clock of game `game_id` ran out and that game is still on."""
        game = self.game
        return not (
            self.game_id != game_id or game is None or game.phase == "over" or game.time_is_up
        )

    # --- after a restart -------------------------------------------------------------------

    def load(self, stored: StoredRoom) -> None:
        """Take the stored unfinished game (if any), its logged actions replayed."""
        if stored.game is not None:
            self.game, self.game_id = replay(stored), stored.game.id
            self.moves = [[0, 0] for _ in range(4)]
            for row in stored.actions:
                if row.seat is not None and row.seat in range(4):
                    self.moves[row.seat][0] += 1
            self.hands_at_load = list(stored.hands)
            self.elapsed_at_load = stored_elapsed(stored)
            last = stored.actions[-1].at if stored.actions else stored.game.started_at
            self.last_at = None if last is None else last.timestamp()

    async def resume(self) -> None:
        """Inside the actor, after a reload: finish what the crash interrupted and start the
        game clock again. A finished room shows its last game's final state."""
        game, room_id = self.game, self.table.room_id
        if game is None and self.status == "playing":
            # The crash came after the game was finished but before the room was told.
            self.status = "finished"
            await self.bookkeeping.write(
                "marking the room finished",
                lambda: self.store.update_room(room_id, status="finished"),
            )
        if game is None and self.status == "finished":
            await self._load_last_game()
        counted = self._counted()
        if game is not None and self.game_id is not None:
            # Hands the log ended whose rows the crash did not let the old process store.
            await self.store_missing_hands(self.game_id, game, self.hands_at_load)
            if game.phase == "over" and self.status == "playing":
                await self.finish()
            minutes = self.table.settings.game_minutes
            if game.phase != "over" and minutes and not game.time_is_up:
                await self._resume_game_clock(self.game_id, minutes, counted)
        self.turn_started = self.clock.now() - counted

    def _counted(self) -> float:
        """Seconds since the last action that still count on the clocks: none after a
        restart (the server was down), the time since it when the room moved between the
        processes of a cluster (a failover, a drain: seconds), at most MOVE_COUNTED (longer
        is the whole cluster down, an outage again)."""
        if not self.moved or self.last_at is None:
            return 0.0
        return min(max(0.0, self.clock.now() - self.last_at), MOVE_COUNTED)

    async def _resume_game_clock(self, game_id: int, minutes: int, counted: float) -> None:
        # The clock ran from the game's start to its last stored action; the rest is left.
        # The store moves the game's start past the outage, so that a later restart does
        # not count this one's downtime as time played.
        try:
            used = await self.store.resume_game_clock(game_id, counted=counted)
        except Exception:
            log.exception("room %s: the game clock's start could not be moved", self.code)
            used = self.elapsed_at_load + counted
        left = max(0.0, minutes * 60.0 - used)
        self.game_clock.set(game_id, self.clock.now() + left)

    async def _load_last_game(self) -> None:
        try:
            finished = await self.store.finished_games(self.table.room_id)
            if finished:
                game_id = finished[-1].game.id
                self.game = Game.from_record(await self.store.export_game(game_id))
                self.game_id = game_id
        except Exception:
            log.exception("room %s: its last game could not be loaded", self.code)
