"""Turn scheduling: who moves next and when. A bot seat (or an away human's) moves after
`bot_delay`; a present human's turn runs to the turn timer or, once they have dropped,
the grace period, and then their bot moves for them.

After every change the room asks the scheduler for the turn deadline (`refresh`), shows
it, and has the scheduler plan the turn (`plan_next`). The plan is a value: a pending move
is kept when the plan is the same, so people coming and going do not restart a bot's delay.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spades.codes import ErrorCode
from spades.engine import ActionError, Game

from .actor import Actor
from .bots import BotRunner
from .clock import Clock, Timer
from .config import RoomConfig
from .errors import RoomError
from .match import Match
from .observer import Observer, now
from .seats import Seat
from .table import Table

log = logging.getLogger(__name__)

# A timer may fire this much before its time (the loop's timers count milliseconds, on
# its own clock): the turn then starts, rather than the timer being armed again.
EARLY = 0.002


@dataclass(frozen=True)
class TurnPlan:
    """What waits for the seat to act: its bot, or, with a `deadline`, the turn timer
    whose expiry lets the bot move for a human. Keyed on the game's id and sequence number,
    so a plan made for a turn that has passed does nothing."""

    game_id: int
    seq: int
    seat: int
    level: str
    deadline: float | None = None

    @property
    def timeout(self) -> bool:
        return self.deadline is not None


def turn_deadline(
    game: Game | None,
    seats: Sequence[Seat],
    *,
    turn_started: float,
    turn_seconds: int,
    connected: bool | Callable[[int], bool],
    grace: float,
) -> float | None:
    """When the seat to act loses its turn to the bot (None: no clock on this turn).
    `connected`: whether the seat to act has a connection (or a function of the seat that
    tells, asked only when it matters)."""
    if game is None or game.phase == "over" or game.to_act is None:
        return None
    seat = seats[game.to_act]
    if seat.kind != "human" or seat.away:
        return None
    deadline = turn_started + turn_seconds if turn_seconds else None
    if not isinstance(connected, bool):
        connected = connected(seat.index)
    if not connected:
        gone = max(turn_started, seat.disconnected_at or turn_started)
        deadline = gone + grace if deadline is None else min(deadline, gone + grace)
    return deadline


def bot_wait(game: Game | None, delay: float) -> float:
    """How long a bot waits before it moves: `delay`, twice that when it leads after a
    finished trick. The finished trick stays on the table until the next card, so everyone
    has time to see who took it (at the default delay, 1.6 s rather than 0.8 s)."""
    if game is not None and game.phase == "playing" and game.play.played and not game.play.trick:
        return 2 * delay
    return delay


def plan_turn(
    game: Game | None,
    game_id: int | None,
    seats: Sequence[Seat],
    bot_level: str,
    deadline: float | None,
) -> TurnPlan | None:
    if game is None or game_id is None or game.phase == "over" or game.to_act is None:
        return None
    seat = seats[game.to_act]
    seq = game.action_count
    if seat.kind != "human" or seat.away:
        return TurnPlan(game_id, seq, seat.index, seat.bot_level or bot_level)
    if deadline is None:
        return None
    return TurnPlan(game_id, seq, seat.index, bot_level, deadline)


class TurnScheduler:
    """Holds the room's turn deadline, its plan for the seat to act, the one timer that runs
    the plan when due, and the turn task it then starts (the bot's decision and move).

    The timer is lazy: a plan due later than the timer leaves it armed, and when it fires
    early it is armed again for the plan's time. A timed human turn after another (each
    action replaces the plan) then costs no timer and no task: the timer fires about once
    per turn timer, not once per action.

    `connected(seat)` says whether a seat has a connection; `changed()` shows the room's
    new state and plans the next turn (after a bot's move).
    """

    def __init__(
        self,
        table: Table,
        match: Match,
        *,
        connected: Callable[[int], bool],
        changed: Callable[[], None],
        actor: Actor,
        bots: BotRunner,
        clock: Clock,
        config: RoomConfig,
        observer: Observer,
    ) -> None:
        self.table = table
        self.match = match
        self._connected = connected
        self._changed = changed
        self.actor = actor
        self.bots = bots
        self.clock = clock
        self.config = config
        self.observer = observer
        # When the seat to act loses its turn to the bot (None: no clock on this turn), as
        # of the last `refresh`.
        self.deadline: float | None = None
        self.plan: TurnPlan | None = None
        self.due: float | None = None  # when the plan's turn starts; None: started or none
        self.task: asyncio.Task[None] | None = None
        self._timer: Timer | None = None
        self._armed = math.inf  # when the timer fires

    @property
    def waiting(self) -> bool:
        """A plan waits for its time."""
        return self.plan is not None and self.due is not None

    def refresh(self) -> float | None:
        """Work out the turn deadline anew (after a change), keep it and return it."""
        match = self.match
        deadline = self.deadline = turn_deadline(
            match.game,
            self.table.seats,
            turn_started=match.turn_started,
            turn_seconds=self.table.settings.turn_seconds,
            connected=self._connected,  # asked only for a human's turn
            grace=self.config.grace_seconds,
        )
        return deadline

    def plan_next(self) -> None:
        """Plan the seat to act's turn by the deadline of the last `refresh`; a pending move
        for the same plan is kept."""
        if self.actor.closed:
            self.cancel()
            return
        match, table = self.match, self.table
        self.schedule(
            plan_turn(
                match.game, match.game_id, table.seats, table.settings.bot_level, self.deadline
            )
        )

    def reschedule(self) -> None:
        """Plan the seat to act's turn anew, its deadline worked out again."""
        self.refresh()
        self.plan_next()

    async def reschedule_later(self, seconds: float) -> None:
        """After a failed write, give the seat to act its bot or timer again, a little later."""
        await self.clock.sleep_until(self.clock.now() + seconds)
        if not self.actor.closed:
            await self.actor.call(self._reschedule_now)

    async def _reschedule_now(self) -> None:
        self.reschedule()

    def schedule(self, plan: TurnPlan | None) -> None:
        if plan is not None and plan == self.plan:
            task = self.task
            if self.due is not None or (task is not None and not task.done()):
                return
        self._drop_task()
        self.plan = plan
        if plan is None:
            self.due = None  # an armed timer finds nothing to do
            return
        when = plan.deadline
        if when is None:
            when = self.clock.now() + bot_wait(self.match.game, self.config.bot_delay)
        self.due = when
        if self._timer is None or self._armed > when:
            self._arm(when)

    def cancel(self) -> None:
        self._drop_task()
        self.plan = self.due = None
        timer, self._timer, self._armed = self._timer, None, math.inf
        if timer is not None:
            timer.cancel()

    def _drop_task(self) -> None:
        task, self.task = self.task, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._armed = when
        self._timer = self.clock.call_at(when, self._fire)

    def _fire(self) -> None:
        self._timer, self._armed = None, math.inf
        plan, due = self.plan, self.due
        if plan is None or due is None:
            return
        if self.clock.now() < due - EARLY:  # armed for an earlier plan: wait on
            self._arm(due)
            return
        self.due = None
        self.task = asyncio.create_task(self._bot_turn(plan))

    # --- the bot's turn --------------------------------------------------------------------

    def _is_current(self, plan: TurnPlan) -> bool:
        match = self.match
        game = match.game
        return (
            not self.actor.closed
            and game is not None
            and match.game_id == plan.game_id
            and game.action_count == plan.seq
            and game.to_act == plan.seat
        )

    def _seed(self, seq: int) -> int:
        return bot_seed(self.match.game_id, seq)

    async def _bot_turn(self, plan: TurnPlan) -> None:
        """The planned turn, once due: the bot decides, and moves if the turn is still on."""
        game = self.match.game
        if game is None or not self._is_current(plan):
            return
        action = await self.bots.decide(plan.level, game.view(plan.seat), self._seed(plan.seq))
        try:
            await self.actor.call(self._bot_move, plan, action, now())
        except RoomError as exc:
            # A store failure is logged where it happens, within the outage log budget
            # (writes.StoreFailures), not again here for every retry of every room.
            code = self.table.code
            log.log(
                logging.DEBUG if exc.code == ErrorCode.STORAGE_ERROR else logging.WARNING,
                "room %s: bot move for seat %s failed: %s",
                code,
                plan.seat,
                exc,
                extra={"room": code, "seat": plan.seat},
            )

    async def _bot_move(self, plan: TurnPlan, action: dict[str, Any], queued: float) -> None:
        """Inside the actor: the bot's move, if the turn it was planned for is still on."""
        match = self.match
        if match.game is None or not self._is_current(plan):
            return
        seat = plan.seat
        try:
            await match.act(seat, action, by_bot=True)
            game = match.game  # (a new object if the act took the game from the log)
            if (
                game is not None
                and plan.timeout
                and action.get("type") == "look"
                and game.to_act == seat
            ):
                # A timed-out seat that had to look still owes its bid: make it now.
                view = game.view(seat)
                await match.act(
                    seat,
                    await self.bots.decide(plan.level, view, self._seed(plan.seq)),
                    by_bot=True,
                )
        except ActionError as exc:
            if not await self._refused(plan, action, exc):
                return
        if plan.timeout:
            self.table.seats[seat].timed_out_once(
                limit=self.config.timeouts_before_away, connected=self._connected(seat)
            )
        self._changed()
        self.observer.action_latency("bot", now() - queued)

    async def _refused(self, plan: TurnPlan, action: dict[str, Any], exc: ActionError) -> bool:
        """The engine refused the bot's move: make a legal one instead. False when the turn
        is over or there is nothing to do."""
        seat, code = plan.seat, self.table.code
        # The refused action is not logged: it may name a card not played.
        log.error(
            "room %s: a %s by the bot of seat %s was refused (%s)",
            code,
            action.get("type"),
            seat,
            exc.code,
            extra={"room": code, "seat": seat},
        )
        game = self.match.game
        if game is None or not self._is_current(plan):
            return False  # the game was taken from the log meanwhile (act): its turn is over
        legal = game.legal_actions(seat)
        if not legal:
            return False
        await self.match.act(
            seat, legal[-1] if legal[0].get("type") == "look" else legal[0], by_bot=True
        )
        return True


def bot_seed(game_id: int | None, seq: int) -> int:
    return (game_id or 0) * 10_007 + seq
