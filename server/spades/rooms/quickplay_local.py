"""Quick play's queue in this process's memory: the queue of a single process (SQLite, no
Redis), where every player polls the one process that matches them.

Nothing of it is stored: a restart forgets who waited, and their clients, told "not
queued" on their next poll, queue again (the web client does so by itself). A cluster
never uses it (`spades.cluster.quickplay` keeps the queue in Redis). The same rules as
there: see `quickplay.QuickPlayQueue`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .quickplay import SEAT_AGAIN, TARGETS, Entry, Group, Left, Seated, Waiting, queues_of

SEAT_KEPT = 600.0  # seconds a seat made for a player waits to be handed to them


@dataclass(slots=True)
class _Kept:
    seat: Seated
    until: float
    handed: bool = False


@dataclass(slots=True)
class _Held:
    group: Group
    deadline: float


@dataclass(slots=True)
class LocalQueue:
    expire: float
    seat_kept: float = SEAT_KEPT
    targets: tuple[int, ...] = TARGETS
    seat_again: float = SEAT_AGAIN
    entries: dict[str, Entry] = field(default_factory=dict)  # waiting or being seated
    seen: dict[str, float] = field(default_factory=dict)
    queues: dict[str, dict[str, Entry]] = field(default_factory=dict)  # waiting, per queue
    held: dict[str, _Held] = field(default_factory=dict)  # group id: players being seated
    seating: dict[str, str] = field(default_factory=dict)  # player: group id
    seats: dict[str, _Kept] = field(default_factory=dict)  # player: their seat
    notify: Callable[[Sequence[str]], None] | None = None

    def _queue(self, name: str) -> dict[str, Entry]:
        return self.queues.setdefault(name, {})

    def _kept(self, player_id: str, now: float) -> _Kept | None:
        kept = self.seats.get(player_id)
        if kept is not None and kept.until < now:
            del self.seats[player_id]
            return None
        return kept

    def _hand(self, kept: _Kept, now: float) -> Seated:
        """Hand the seat out; it is handed again to the same player for `seat_again`."""
        if not kept.handed:
            kept.handed = True
            kept.until = min(kept.until, now + self.seat_again)
        return kept.seat

    async def join(self, entry: Entry, now: float) -> bool:
        pid = entry.player_id
        kept = self._kept(pid, now)
        if pid in self.entries or (kept is not None and not kept.handed):
            return False
        if kept is not None:  # handed already: the player has moved on
            del self.seats[pid]
        self.entries[pid] = entry
        self.seen[pid] = now
        self._queue(entry.queue)[pid] = entry
        return True

    def _waiting(self, entry: Entry) -> Waiting:
        mode = entry.queue.partition(":")[0]
        return Waiting(
            queue=entry.queue,
            joined=entry.joined,
            bots_at=entry.bots_at,
            waiting=len(self._queue(entry.queue)),
            waiting_mode=sum(len(self._queue(q)) for q in queues_of(mode, self.targets)),
            seating=entry.player_id in self.seating,
        )

    async def poll(self, player_id: str, now: float) -> Waiting | Seated | None:
        kept = self._kept(player_id, now)
        if kept is not None:
            return self._hand(kept, now)
        entry = self.entries.get(player_id)
        if entry is None:
            return None
        self.seen[player_id] = now
        return self._waiting(entry)

    async def leave(self, player_id: str, now: float) -> Waiting | Seated | Left | None:
        kept = self._kept(player_id, now)
        if kept is not None:
            return self._hand(kept, now)
        entry = self.entries.get(player_id)
        if entry is None:
            return None
        if player_id in self.seating:
            return self._waiting(entry)
        self._drop(entry)
        return "left"

    def _drop(self, entry: Entry) -> None:
        pid = entry.player_id
        self.entries.pop(pid, None)
        self.seen.pop(pid, None)
        self._queue(entry.queue).pop(pid, None)

    async def waiting(self, queue: str, now: float) -> list[Entry]:
        for pid, kept in list(self.seats.items()):
            if kept.until < now:  # never fetched (its player closed the page), or long ago
                del self.seats[pid]
        for group_id, held in list(self.held.items()):
            if held.group.queue == queue and held.deadline < now:
                await self.release(group_id)
        waiting = self._queue(queue)
        for entry in list(waiting.values()):
            if self.seen.get(entry.player_id, now) < now - self.expire:
                self._drop(entry)
        return list(waiting.values())

    async def claim(self, group: Group, deadline: float) -> bool:
        waiting = self._queue(group.queue)
        if any(e.player_id not in waiting for e in group.players):
            return False
        self.held[group.group_id] = _Held(group, deadline)
        for entry in group.players:
            del waiting[entry.player_id]
            self.seating[entry.player_id] = group.group_id
        return True

    async def deliver(self, group_id: str, seats: dict[str, Seated]) -> bool:
        held = self.held.pop(group_id, None)
        if held is None:
            return False
        until = held.deadline + self.seat_kept
        for entry in held.group.players:
            pid = entry.player_id
            self.seating.pop(pid, None)
            self._drop(entry)
            if pid in seats:
                self.seats[pid] = _Kept(seats[pid], until)
        if self.notify is not None:
            self.notify(list(seats))
        return True

    async def watch(self, notify: Callable[[Sequence[str]], None]) -> None:
        self.notify = notify  # told by `deliver`, in this process (the only one)
        try:
            await asyncio.Event().wait()  # until cancelled
        finally:
            self.notify = None

    async def release(self, group_id: str) -> None:
        held = self.held.pop(group_id, None)
        if held is None:
            return
        for entry in held.group.players:
            if self.seating.get(entry.player_id) == group_id:
                del self.seating[entry.player_id]
                if entry.player_id in self.entries:
                    self._queue(entry.queue)[entry.player_id] = entry
