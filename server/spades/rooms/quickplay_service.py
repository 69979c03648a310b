"""Quick play: players queue for a mode and target, and every process looks for four of
similar rating (the window widening with the wait) and seats them in a new rated room.

Each process runs one matcher (`run`): every `tick` seconds, and at once after a join, it
reads each queue, picks groups (`quickplay.find_groups`), claims each group in the queue
(atomic: a group another process claimed first is skipped), makes its room here, and
hands the seats over through the queue, from which each player's next poll, on whichever
process, takes theirs. A poll may wait for the seat (`wait`): the queue tells every
process which players were just seated (`QuickPlayQueue.watch`), and their waiting polls
answer at once. The queue is `quickplay_local.LocalQueue` (one process) or
`spades.cluster.quickplay.RedisQueue` (a cluster).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from spades.codes import ErrorCode
from spades.store.protocol import QueueFacts, StoreError

from .errors import RoomError
from .manager import RoomManager
from .matchrating import RatingLookup, matched_by
from .quickplay import (
    MODES,
    Entry,
    Group,
    Left,
    QuickPlayConfig,
    QuickPlayQueue,
    QuickPlayRefused,
    Seated,
    Waiting,
    find_groups,
    queue_name,
    room_settings,
    seat_order,
)
from .settings import clean_name, distinct_name

log = logging.getLogger(__name__)

STOP_WAIT = 5.0  # seconds the stop waits for the matcher's tasks to end


class _Listening:
    """The polls of one player waiting here, and what ends them (their seat was made)."""

    __slots__ = ("polls", "seated")

    def __init__(self) -> None:
        self.polls = 0
        self.seated = asyncio.Event()


class QuickPlay:
    def __init__(
        self,
        queue: QuickPlayQueue,
        manager: RoomManager,
        config: QuickPlayConfig,
        *,
        rating: RatingLookup | None = None,
    ) -> None:
        self.queue = queue
        self.manager = manager
        self.config = config
        self.clock = manager.clock
        # Where a player's rating for matching comes from (matchrating.py): the store's,
        # read with the join's other checks, unless a lookup is given (a test's).
        self.rating: RatingLookup | None = rating
        self.tables = 0  # tables seated by this process
        self._wake = asyncio.Event()
        self._joined: set[str] = set()  # queues joined here since the matcher last looked
        self._tasks: list[asyncio.Task[None]] = []
        self._seating: set[asyncio.Task[int]] = set()  # tables being made
        # The polls waiting here for their player's seat, by player.
        self._polls: dict[str, _Listening] = {}
        self._closing = False

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self.run(), name="quickplay"),
            loop.create_task(self.queue.watch(self.seated), name="quickplay-seated"),
        ]

    def seated(self, players: Sequence[str]) -> None:
        """Seats were made for `players` (by any process): their waiting polls answer now."""
        for player_id in players:
            listening = self._polls.get(player_id)
            if listening is not None:
                listening.seated.set()

    def close_polls(self) -> None:
        """The server is stopping: every waiting poll answers now, and none waits again."""
        self._closing = True
        for listening in self._polls.values():
            listening.seated.set()

    async def stop(self) -> None:
        # A table left half made: its group is held until its deadline, then waits again.
        self.close_polls()
        tasks = [*self._tasks, *self._seating]
        for task in tasks:
            task.cancel()
        # (A cancellation the Redis client swallowed while connecting is not waited for.)
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_WAIT)
        self._tasks = []

    # --- the players' requests ---------------------------------------------------------

    async def join(
        self, player_id: str, name: str, mode: str, target: int, bots_after: int | None
    ) -> Waiting | Seated:
        if mode not in MODES:
            raise QuickPlayRefused(
                f"no quick play mode {mode[:20]!r}: {' or '.join(MODES)}",
                ErrorCode.UNKNOWN_MODE,
                422,
            )
        targets = self.config.targets
        if target not in targets:
            raise QuickPlayRefused(
                f"quick play plays to one of {', '.join(map(str, targets))}",
                ErrorCode.NOT_A_PRESET,
                422,
            )
        name = clean_name(name, self.manager.config.name_length)
        facts = await self.manager.store.queue_facts(player_id, mode)  # (one read)
        self._not_in_rated_game(facts)
        self._not_just_after_quitting(facts)
        if self.rating is not None:
            rating = await self.rating(player_id, mode)
        else:
            rating = matched_by(facts.rating)
        now = self.clock.now()
        bots_at = None if bots_after is None else now + bots_after
        entry = Entry(player_id, name, queue_name(mode, target), rating, now, bots_at)
        if not await self.queue.join(entry, now):
            # A seat made for the player and not handed to them yet (their poll's answer
            # was lost): this answer hands it over. Else they wait already.
            state = await self.queue.poll(player_id, now)
            if isinstance(state, Seated):
                return state
            raise QuickPlayRefused(
                "you are in quick play already; leave it first",
                ErrorCode.ALREADY_QUEUED,
                409,
            )
        self._joined.add(entry.queue)
        self._wake.set()
        # Seated already (another process matched the player meanwhile): the seat is
        # handed out in this answer, as a poll would.
        state = await self.queue.poll(player_id, now)
        if state is None:  # dropped this instant (cannot expire so soon): not queued
            raise self.not_queued()
        return state

    @staticmethod
    def _not_in_rated_game(facts: QueueFacts) -> None:
        if facts.rated_games:
            raise QuickPlayRefused(
                f"you have a seat in room {facts.rated_games[0]}, a rated game being played: "
                "finish it (or leave its seat) first",
                ErrorCode.IN_RATED_GAME,
                409,
            )

    def _not_just_after_quitting(self, facts: QueueFacts) -> None:
        """Fair play: a player who left a rated game before its end (the bot finished it
        for them) waits `quit_wait` seconds from that game's end before queueing again."""
        if self.config.quit_wait <= 0:
            return
        quit_at = facts.last_quit
        if quit_at is None:
            return
        left = quit_at.timestamp() + self.config.quit_wait - self.clock.now()
        if left > 0:
            until = datetime.fromtimestamp(quit_at.timestamp() + self.config.quit_wait, UTC)
            raise QuickPlayRefused(
                "you left a rated game before its end: quick play takes you again at "
                f"{until:%H:%M:%S} UTC (in {math.ceil(left)} s)",
                ErrorCode.QUIT_WAIT,
                429,
                retry_after=math.ceil(left),
            )

    async def poll(self, player_id: str, wait: float = 0.0) -> Waiting | Seated:
        """The player's state; while they wait, up to `wait` seconds (at most
        `config.max_wait`) until their seat is made."""
        wait = min(max(0.0, wait), self.config.max_wait)
        if wait <= 0 or self._closing:
            return await self._poll_now(player_id)
        # Listening before the first look: a seat made in between is not missed.
        listening = self._polls.get(player_id)
        if listening is None:
            listening = self._polls[player_id] = _Listening()
        listening.polls += 1
        try:
            state = await self._poll_now(player_id)
            if isinstance(state, Seated):
                return state
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await listening.seated.wait()
            return await self._poll_now(player_id)
        finally:
            listening.polls -= 1
            if not listening.polls and self._polls.get(player_id) is listening:
                del self._polls[player_id]

    async def _poll_now(self, player_id: str) -> Waiting | Seated:
        state = await self.queue.poll(player_id, self.clock.now())
        if state is None:
            raise self.not_queued()
        return state

    async def leave(self, player_id: str) -> Waiting | Seated | Left:
        state = await self.queue.leave(player_id, self.clock.now())
        if state is None:
            raise self.not_queued()
        return state

    @staticmethod
    def not_queued() -> QuickPlayRefused:
        return QuickPlayRefused(
            "you are not waiting in quick play (left, dropped after no poll, or seated)",
            ErrorCode.NOT_QUEUED,
            404,
        )

    # --- the matcher ---------------------------------------------------------------------

    async def run(self) -> None:
        failing = False  # said once when matching starts failing, and once when it is back
        next_tick = self.clock.now()
        while True:
            await self._nap(next_tick)
            # Every queue each tick (the windows widen, bots come due); between ticks, only
            # the queues joined since the last look (a join wants a look at once).
            queues: Sequence[str]
            if self.clock.now() >= next_tick:
                queues, next_tick = self.config.queues, self.clock.now() + self.config.tick
                self._joined.clear()
            else:
                queues = sorted(self._joined)
                self._joined.clear()
            try:
                for queue in queues:
                    await self.match_queue(queue)
            except Exception:
                if not failing:
                    log.exception("quick play: matching failed (tried again every tick)")
                failing = True
            else:
                if failing:
                    log.info("quick play: matching works again")
                failing = False

    async def _nap(self, until: float) -> None:
        """Until `until` (the next tick), or a join (which wants a look at once)."""
        if not self._wake.is_set():
            sleeper = asyncio.ensure_future(self.clock.sleep_until(until))
            waker = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeper.cancel()
                waker.cancel()
        self._wake.clear()

    async def match_all(self) -> int:
        seated = 0
        for queue in self.config.queues:
            seated += await self.match_queue(queue)
        return seated

    async def match_queue(self, queue: str) -> int:
        """Claim what can be seated in `queue` now and start making those tables (each in
        a task of its own, so one slow write does not hold up the next table); returns how
        many groups were claimed."""
        now = self.clock.now()
        entries = await self.queue.waiting(queue, now)
        claimed = 0
        loop = asyncio.get_running_loop()
        for found in find_groups(entries, now, self.config.policy):
            if self.manager.draining:
                break  # this process makes no rooms now: the others seat them
            group = replace(found, group_id=secrets.token_urlsafe(12))
            if await self.queue.claim(group, now + self.config.seating):
                claimed += 1
                task = loop.create_task(self._seat(group), name="quickplay-seat")
                self._seating.add(task)
                task.add_done_callback(self._seated)
        return claimed

    def _seated(self, task: asyncio.Task[int]) -> None:
        self._seating.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("quick play: seating failed", exc_info=task.exception())

    async def _seat(self, group: Group) -> int:
        mode, _, target = group.queue.partition(":")
        order = seat_order(group, mode)
        limit = self.manager.config.name_length
        names: list[str] = []
        for entry in order:
            names.append(distinct_name(entry.name, names, limit))
        players: list[tuple[str, str] | None] = [
            (name, entry.player_id) for name, entry in zip(names, order, strict=True)
        ]
        players += [None] * (4 - len(players))
        rated = not group.bots
        settings = room_settings(
            mode, int(target), rated=rated, turn_seconds=self.config.turn_seconds
        )
        try:
            room, tokens, dealt = await self.manager.create_table(players, settings)
        except (RoomError, StoreError, OSError) as exc:
            log.warning("quick play: a table could not be made (%s); queued again", exc)
            await self.queue.release(group.group_id)
            return 0
        seats = {}
        for index, entry in enumerate(order):
            token = tokens[index]
            assert token is not None
            seats[entry.player_id] = Seated(room.code, index, token, rated)
        # The seats are handed over while the deal is stored: a player's hello is queued in
        # the room after the deal, so nobody sees the table before its cards.
        if not await self.queue.deliver(group.group_id, seats):
            # Too late: the group lapsed and its players wait again. Nobody has this room.
            log.warning("quick play: table %s made too late; closed", room.code)
            await self._close(room.code, dealt)
            return 0
        self.tables += 1
        if not group.bots:
            last = max(e.joined for e in group.players)
            self.manager.observer.quickplay_seated(self.clock.now() - last)
        try:
            await dealt
        except (RoomError, StoreError, OSError) as exc:
            # The deal could not be stored: the table is closed, and its players' sockets
            # are told so (their page says the room closed; Play now takes them again).
            log.warning("quick play: table %s could not be dealt (%s); closed", room.code, exc)
            await self._close(room.code, None)
            return 0
        log.info("quick play: table %s seated (%s)", room.code, group.queue)
        return 1

    async def _close(self, code: str, dealt: asyncio.Future[Any] | None) -> None:
        if dealt is not None:
            with contextlib.suppress(Exception):
                await dealt
        await self.manager.close_table(code, "this table could not be set: press Play now again")
