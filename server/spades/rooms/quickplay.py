"""Quick play's parts that hold no state: who waits, what a waiting player is told, how
four players of similar rating are picked, and the queue's interface.

The queue itself lives where every process of a deployment sees it: in Redis for a
cluster (`spades.cluster.quickplay`), in this process's memory for a single process
(`quickplay_local.py`). Both keep the same rules: a player waits at most once; an entry
not refreshed by its player's poll within `expire` seconds is dropped; a group being
seated is held for `seating` seconds, after which (its process died) its players wait
again with the time they had; a seat is handed to its player once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Literal, Protocol

from spades.codes import ErrorCode

from .errors import RoomError
from .settings import PRESETS, RoomSettings

MODES: tuple[str, ...] = ("partnership", "individual")
TARGETS: tuple[int, ...] = PRESETS["target"]
MIN_BOTS_AFTER = 5  # seconds: the shortest wait a player may pick before bots fill in
MAX_BOTS_AFTER = 600


# How long a seat already handed to its player is handed again to the same player (their
# answer lost, their page reloaded): a seat is never lost with the answer that carried it.
SEAT_AGAIN = 120.0


def queue_name(mode: str, target: int) -> str:
    return f"{mode}:{target}"


def queues_of(mode: str, targets: tuple[int, ...] = TARGETS) -> list[str]:
    return [queue_name(mode, target) for target in targets]


def all_queues(targets: tuple[int, ...] = TARGETS) -> tuple[str, ...]:
    """Every queue: one per mode and target."""
    return tuple(q for mode in MODES for q in queues_of(mode, targets))


class QuickPlayRefused(RoomError):
    """A quick play request refused, with its HTTP status; nothing changed."""

    status = 409

    def __init__(
        self, message: str, code: ErrorCode, status: int, *, retry_after: int | None = None
    ) -> None:
        super().__init__(message, code)
        self.status = status
        self.retry_after = retry_after  # seconds, for a Retry-After header


@dataclass(frozen=True, slots=True)
class Policy:
    """How wide the rating window is: `window` points at once, `widen` more per second
    waited. A group of four is made when its ratings' spread fits every member's window."""

    window: float
    widen: float

    def window_after(self, waited: float) -> float:
        return self.window + self.widen * max(0.0, waited)


@dataclass(frozen=True, slots=True)
class QuickPlayConfig:
    window: float  # rating points, at once
    widen: float  # rating points more per second waited
    expire: float  # seconds an entry lives without its player's poll
    seating: float  # seconds a process has to seat a group before it waits again
    tick: float  # seconds between two looks for matches (each process)
    turn_seconds: int  # the turn timer of a quick play room
    quit_wait: float = 600.0  # seconds a player who quit a rated game waits to queue again
    targets: tuple[int, ...] = TARGETS  # the targets quick play offers

    @property
    def policy(self) -> Policy:
        return Policy(self.window, self.widen)

    @property
    def queues(self) -> tuple[str, ...]:
        return all_queues(self.targets)

    @property
    def max_wait(self) -> float:
        """The longest a poll waits for a seat (GET /api/quickplay?wait=), in seconds: half
        the expiry, so that the polls of a player who waits still keep their place."""
        return self.expire / 2


@dataclass(frozen=True, slots=True)
class Entry:
    """One waiting player."""

    player_id: str
    name: str
    queue: str
    rating: float
    joined: float
    bots_at: float | None  # when bots may fill the table for them (None: never)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Entry:
        return cls(**json.loads(text))


@dataclass(frozen=True, slots=True)
class Group:
    """Players taken from the queue together: four to seat, or one with three bots."""

    group_id: str
    queue: str
    players: tuple[Entry, ...]
    bots: bool


@dataclass(frozen=True, slots=True)
class Seated:
    """A seat handed to a matched player: the room, the seat and its token."""

    code: str
    seat: int
    token: str
    rated: bool

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Seated:
        return cls(**json.loads(text))


@dataclass(frozen=True, slots=True)
class Waiting:
    """What a waiting player is told."""

    queue: str
    joined: float
    bots_at: float | None
    waiting: int  # players waiting for this mode and target (the player included)
    waiting_mode: int  # players waiting for this mode, any target
    seating: bool  # a table is being set for this player now


Left = Literal["left"]


class QuickPlayQueue(Protocol):
    """The queue, shared by every process that serves the same players."""

    async def join(self, entry: Entry, now: float) -> bool:
        """Queue `entry`; False (nothing changed) when its player waits already, is being
        seated, or has a seat not yet handed to them. A seat handed already is forgotten:
        its player has moved on."""
        ...

    async def poll(self, player_id: str, now: float) -> Waiting | Seated | None:
        """The player's state, refreshing their entry (the heartbeat). A seat made for the
        player is handed out, and again to the same player for `SEAT_AGAIN` seconds after
        (an answer lost on its way, a page reloaded). None: not queued."""
        ...

    async def leave(self, player_id: str, now: float) -> Waiting | Seated | Left | None:
        """Leave: "left"; a seat already made is handed out instead; while a table is being
        set the player cannot leave (Waiting with `seating`). None: not queued."""
        ...

    async def watch(self, notify: Callable[[Sequence[str]], None]) -> None:
        """Call `notify` with the players whose seats were just made (by any process),
        until cancelled: a poll that waits is answered at once."""
        ...

    async def waiting(self, queue: str, now: float) -> list[Entry]:
        """Who waits in `queue` now, after dropping entries not refreshed within `expire`
        and putting back the players of groups not seated within `seating`."""
        ...

    async def claim(self, group: Group, deadline: float) -> bool:
        """Take the group's players out of the queue at once, if every one still waits;
        held until `deadline`. False: nothing changed."""
        ...

    async def deliver(self, group_id: str, seats: dict[str, Seated]) -> bool:
        """Hand the seats to the group's players, if the group is still held (False: it
        lapsed and its players wait again; the caller closes the room it made)."""
        ...

    async def release(self, group_id: str) -> None:
        """The group could not be seated: its players wait again, with the time they had."""
        ...


def find_groups(entries: list[Entry], now: float, policy: Policy) -> list[Group]:
    """Groups to seat: four players whose ratings' spread fits each one's window (closest
    ratings first), then each player left whose wait for bots is over, alone. Ids are
    given by the caller (`group_id` is empty here)."""
    ranked = sorted(entries, key=lambda e: (e.rating, e.joined, e.player_id))
    groups: list[Group] = []
    taken: set[str] = set()
    i = 0
    while i + 4 <= len(ranked):
        four = ranked[i : i + 4]
        spread = four[-1].rating - four[0].rating
        if spread <= min(policy.window_after(now - e.joined) for e in four):
            groups.append(Group("", four[0].queue, tuple(four), bots=False))
            taken.update(e.player_id for e in four)
            i += 4
        else:
            i += 1
    for entry in sorted(entries, key=lambda e: e.joined):
        if entry.player_id not in taken and entry.bots_at is not None and entry.bots_at <= now:
            groups.append(Group("", entry.queue, (entry,), bots=True))
    return groups


def seat_order(group: Group, mode: str) -> list[Entry]:
    """The players by seat. Partnership: the best and the lowest rated against the two in
    between (seats 0 and 2 are partners), so both sides are about even."""
    players = sorted(group.players, key=lambda e: (e.rating, e.joined))
    if mode == "partnership" and len(players) == 4:
        low, mid1, mid2, high = players
        return [high, mid1, low, mid2]
    return sorted(group.players, key=lambda e: e.joined)


def room_settings(mode: str, target: int, *, rated: bool, turn_seconds: int) -> RoomSettings:
    """A quick play room's settings: the mode and target asked for, rated (unless bots
    fill it), not listed in the lobby (its seats are taken)."""
    return RoomSettings.parse(
        {
            "mode": mode,
            "target": target,
            "rated": rated,
            "public": False,
            "turn_seconds": turn_seconds,
        }
    )
