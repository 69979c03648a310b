"""Quick play's queue in this process's memory: the queue of a single process (SQLite, no
Redis), where every player polls the one process that matches them.

Nothing of it is stored: a restart forgets who waited, and their clients, told "not
queued" on their next poll, queue again (the client does so by itself). A cluster never
uses it (`spades.cluster.quickplay` keeps the queue in Redis).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .quickplay import Entry, Group, Left, Seated, Waiting, queues_of

SEAT_KEPT = 600.0  # seconds a seat made for a player waits to be handed to them


@dataclass(slots=True)
class _Held:
    group: Group
    deadline: float


@dataclass(slots=True)
class LocalQueue:
    expire: float
    seat_kept: float = SEAT_KEPT
    entries: dict[str, Entry] = field(default_factory=dict)  # waiting or being seated
    seen: dict[str, float] = field(default_factory=dict)
    held: dict[str, _Held] = field(default_factory=dict)  # group id: players being seated
    seating: dict[str, str] = field(default_factory=dict)  # player: group id
    seats: dict[str, tuple[Seated, float]] = field(default_factory=dict)  # player: seat, until

    def _seat_for(self, player_id: str, now: float | None) -> Seated | None:
        kept = self.seats.get(player_id)
        if kept is None:
            return None
        if now is not None and kept[1] < now:
            del self.seats[player_id]
            return None
        return kept[0]

    async def join(self, entry: Entry, now: float) -> bool:
        pid = entry.player_id
        if pid in self.entries or self._seat_for(pid, now) is not None:
            return False
        self.entries[pid] = entry
        self.seen[pid] = now
        return True

    def _waiting_in(self, queue: str) -> int:
        return sum(1 for p, e in self.entries.items() if e.queue == queue and p not in self.seating)

    def _waiting(self, entry: Entry) -> Waiting:
        mode = entry.queue.partition(":")[0]
        return Waiting(
            queue=entry.queue,
            joined=entry.joined,
            bots_at=entry.bots_at,
            waiting=self._waiting_in(entry.queue),
            waiting_mode=sum(self._waiting_in(q) for q in queues_of(mode)),
            seating=entry.player_id in self.seating,
        )

    async def poll(self, player_id: str, now: float) -> Waiting | Seated | None:
        seat = self._seat_for(player_id, now)
        if seat is not None:
            del self.seats[player_id]
            return seat
        entry = self.entries.get(player_id)
        if entry is None:
            return None
        self.seen[player_id] = now
        return self._waiting(entry)

    async def leave(self, player_id: str) -> Waiting | Seated | Left | None:
        seat = self.seats.pop(player_id, None)
        if seat is not None:
            return seat[0]
        entry = self.entries.get(player_id)
        if entry is None:
            return None
        if player_id in self.seating:
            return self._waiting(entry)
        self._drop(player_id)
        return "left"

    def _drop(self, player_id: str) -> None:
        self.entries.pop(player_id, None)
        self.seen.pop(player_id, None)

    async def waiting(self, queue: str, now: float) -> list[Entry]:
        for pid, (_seat, until) in list(self.seats.items()):
            if until < now:  # never fetched: its player closed the page
                del self.seats[pid]
        for group_id, held in list(self.held.items()):
            if held.group.queue == queue and held.deadline < now:
                await self.release(group_id)
        for pid, entry in list(self.entries.items()):
            stale = self.seen.get(pid, now) < now - self.expire
            if entry.queue == queue and pid not in self.seating and stale:
                self._drop(pid)
        return [e for p, e in self.entries.items() if e.queue == queue and p not in self.seating]

    async def claim(self, group: Group, deadline: float) -> bool:
        pids = [e.player_id for e in group.players]
        if any(p not in self.entries or p in self.seating for p in pids):
            return False
        self.held[group.group_id] = _Held(group, deadline)
        for pid in pids:
            self.seating[pid] = group.group_id
        return True

    async def deliver(self, group_id: str, seats: dict[str, Seated]) -> bool:
        held = self.held.pop(group_id, None)
        if held is None:
            return False
        until = held.deadline + self.seat_kept
        for entry in held.group.players:
            pid = entry.player_id
            self.seating.pop(pid, None)
            self._drop(pid)
            if pid in seats:
                self.seats[pid] = (seats[pid], until)
        return True

    async def release(self, group_id: str) -> None:
        held = self.held.pop(group_id, None)
        if held is not None:
            for entry in held.group.players:
                self.seating.pop(entry.player_id, None)
