"""Turn scheduling: who moves next and when. A bot seat (or an away human's) moves after
`bot_delay`; a present human's turn runs to the turn timer or, once they have dropped,
the grace period, and then their bot moves for them.

The plan is a value: the room works one out after every change and keeps a pending move
when the plan is the same, so people coming and going do not restart a bot's delay.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spades.engine import ActionError, Game

from .clock import Timer
from .errors import RoomError
from .observer import now
from .seats import Seat

if TYPE_CHECKING:
    from .room import Room

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
    """Holds the room's plan for the seat to act, the one timer that runs it when due, and
    the turn task it then starts (the bot's decision and move).

    The timer is lazy: a plan due later than the timer leaves it armed, and when it fires
    early it is armed again for the plan's time. A timed human turn after another (each
    action replaces the plan) then costs no timer and no task: the timer fires about once
    per turn timer, not once per action.
    """

    def __init__(self, room: Room) -> None:
        self.room = room
        self.plan: TurnPlan | None = None
        self.due: float | None = None  # when the plan's turn starts; None: started or none
        self.task: asyncio.Task[None] | None = None
        self._timer: Timer | None = None
        self._armed = math.inf  # when the timer fires

    @property
    def waiting(self) -> bool:
        """A plan waits for its time."""
        return self.plan is not None and self.due is not None

    def deadline(self) -> float | None:
        """When the seat to act loses its turn to the bot (None: no clock on this turn)."""
        room = self.room
        return turn_deadline(
            room.game,
            room.seats,
            turn_started=room.turn_started,
            turn_seconds=room.settings.turn_seconds,
            connected=room.audience.connected,  # asked only for a human's turn
            grace=room.config.grace_seconds,
        )

    def reschedule(self) -> None:
        """Plan the seat to act's turn anew; a pending move for the same plan is kept."""
        room = self.room
        if room.closed:
            self.cancel()
            return
        self.schedule(
            plan_turn(
                room.game, room.game_id, room.seats, room.settings.bot_level, room.turn_deadline()
            )
        )

    async def reschedule_later(self, seconds: float) -> None:
        """After a failed write, give the seat to act its bot or timer again, a little later."""
        room = self.room
        await room.clock.sleep_until(room.clock.now() + seconds)
        if not room.closed:
            await room.call(self._reschedule_now)

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
            when = self.room.clock.now() + bot_wait(self.room.game, self.room.config.bot_delay)
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
        self._timer = self.room.clock.call_at(when, self._fire)

    def _fire(self) -> None:
        self._timer, self._armed = None, math.inf
        plan, due = self.plan, self.due
        if plan is None or due is None:
            return
        if self.room.clock.now() < due - EARLY:  # armed for an earlier plan: wait on
            self._arm(due)
            return
        self.due = None
        self.task = asyncio.create_task(bot_turn(self.room, plan))


def _is_current(room: Room, plan: TurnPlan) -> bool:
    game = room.game
    return (
        not room.closed
        and game is not None
        and room.game_id == plan.game_id
        and game.action_count == plan.seq
        and game.to_act == plan.seat
    )


def bot_seed(room: Room, seq: int) -> int:
    return (room.game_id or 0) * 10_007 + seq


async def bot_turn(room: Room, plan: TurnPlan) -> None:
    """The planned turn, once due: the bot decides, and moves if the turn is still on."""
    game = room.game
    if game is None or not _is_current(room, plan):
        return
    action = await room.bots.decide(plan.level, game.view(plan.seat), bot_seed(room, plan.seq))
    try:
        await room.call(bot_move, room, plan, action, now())
    except RoomError as exc:
        # A store failure is logged where it happens, within the outage log budget
        # (writes.StoreFailures); said here too, it came once per retry of every room.
        log.log(
            logging.DEBUG if exc.code == "storage_error" else logging.WARNING,
            "room %s: bot move for seat %s failed: %s",
            room.code,
            plan.seat,
            exc,
            extra={"room": room.code, "seat": plan.seat},
        )


async def bot_move(room: Room, plan: TurnPlan, action: dict[str, Any], queued: float) -> None:
    """Inside the actor: the bot's move, if the turn it was planned for is still on."""
    game = room.game
    if game is None or not _is_current(room, plan):
        return
    seat = plan.seat
    try:
        await room.act(seat, action)
        game = room.game  # (a new object if the act took the game from the log)
        if (
            game is not None
            and plan.timeout
            and action.get("type") == "look"
            and game.to_act == seat
        ):
            # A timed-out seat that had to look still owes its bid: make it now.
            view = game.view(seat)
            await room.act(seat, await room.bots.decide(plan.level, view, bot_seed(room, plan.seq)))
    except ActionError as exc:
        # The refused action is not logged: it may name a card not played.
        log.error(
            "room %s: a %s by the bot of seat %s was refused (%s)",
            room.code,
            action.get("type"),
            seat,
            exc.code,
            extra={"room": room.code, "seat": seat},
        )
        game = room.game
        if game is None or not _is_current(room, plan):
            return  # the game was taken from the log meanwhile (room.act): its turn is over
        legal = game.legal_actions(seat)
        if not legal:
            return
        await room.act(seat, legal[-1] if legal[0].get("type") == "look" else legal[0])
    if plan.timeout:
        room.seats[seat].timed_out_once(
            limit=room.config.timeouts_before_away, connected=room.connected(seat)
        )
    room.changed()
    room.observer.action_latency("bot", now() - queued)
