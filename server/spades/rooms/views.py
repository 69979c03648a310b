"""What a room shows: its `room` part, its lobby summary, its clocks and each seat's state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .audience import Audience
from .broadcast import Message
from .clock import Clock
from .config import RoomConfig
from .gameclock import GameClock
from .match import Match
from .seats import host_away_until
from .table import Table

_SEAT_KEYS = (
    "seat",
    "name",
    "kind",
    "bot_level",
    "connected",
    "away",
    "timed_out",
    "rating",
    "provisional",
)
# The spectators a room's `room` counts, at most: "10" reads "ten or more". A count that
# changes makes a new `room`, sent to every connection: past ten, a crowd coming and going
# costs the players nothing.
SPECTATORS_SHOWN = 10


class Views:
    def __init__(
        self,
        table: Table,
        match: Match,
        audience: Audience,
        *,
        game_clock: GameClock,
        clock: Clock,
        config: RoomConfig,
    ) -> None:
        self.table = table
        self.match = match
        self.audience = audience
        self.game_clock = game_clock
        self.clock = clock
        self.config = config
        self._memo: tuple[tuple[Any, ...], dict[str, Any]] | None = None

    def room_dict(self, you: int | None = None) -> dict[str, Any]:
        # Plain loops, no comprehensions: this runs once per action, and a comprehension is
        # a function made and called.
        table, match = self.table, self.match
        online = set()
        watchers = 0
        for c in self.audience.connections.values():
            online.add(c.seat)
            if c.seat is None:
                watchers += 1
        seats = []
        # A rated room's seats show their players' ratings (none elsewhere).
        ratings = table.ratings if table.settings.rated else None
        for s in table.seats:
            rating = None
            if ratings and s.player_id is not None and s.kind == "human":
                rating = ratings.get(s.player_id)
            seats.append(
                (
                    s.index,
                    s.name,
                    s.kind,
                    s.bot_level,
                    s.kind == "bot" or s.index in online,
                    s.away,
                    s.timed_out,
                    None if rating is None else rating.shown,
                    rating is not None and rating.provisional,
                )
            )
        # The host dropped: when the host's role passes to a player who is here (at the end
        # of the grace period), so nobody waits without knowing why.
        host_back_by = None
        host_seat = table.host_seat
        if host_seat is not None and host_seat not in online:
            until = host_away_until(table.seats[host_seat], self.config.grace_seconds)
            host_back_by = None if until is None else round(until * 1000)
        # Everything the dict is made of, and it is made from this alone (so the two cannot
        # drift).
        key = (
            table.room_id,
            table.code,
            match.status,
            host_seat,
            table.settings_dict,
            seats,
            match.game_id,
            table.invite_url,
            match.started_by,
            tuple(sorted(match.again)),
            host_back_by,
            min(watchers, SPECTATORS_SHOWN),
            table.rating_changes,
        )
        if you is not None:
            return _room_dict(key, you)
        # Every broadcast makes the spectator's `room` and compares it with the last one:
        # while nothing in it changed, the same (read-only) dict is given again, and that
        # compare is an identity check.
        memo = self._memo
        if memo is not None and memo[0] == key:
            return memo[1]
        made = _room_dict(key, None)
        self._memo = (key, made)
        return made

    def summary(self) -> dict[str, Any]:
        """The room as the lobby lists it."""
        table = self.table
        seats = table.seats
        host = table.host_seat
        return {
            "id": table.room_id,
            "code": table.code,
            "status": self.match.status,
            "settings": table.settings_dict,
            "host": seats[host].name if host is not None else None,
            "seats": [{"seat": s.index, "name": s.name, "kind": s.kind} for s in seats],
            "open_seats": [s.index for s in seats if s.kind == "empty"],
            "invite_url": table.invite_url,
        }

    def clock_dict(self, turn_deadline: float | None) -> dict[str, Any]:
        # epoch_ms inline (this runs once per action)
        game = self.game_clock.deadline
        return {
            "turn_deadline": None if turn_deadline is None else round(turn_deadline * 1000),
            "game_deadline": None if game is None else round(game * 1000),
            "now": round(self.clock.now() * 1000),
        }

    def state_builder(
        self, clock: dict[str, Any], shared: dict[str, Any] | None = None
    ) -> Callable[[int | None], Message]:
        """A function giving each seat's whole state message, each built once: the `room`
        part (made here unless given) and `clock` are shared by every seat of one broadcast."""
        cache: dict[int | None, Message] = {}
        shared = self.room_dict(None) if shared is None else shared
        game, seq = self.match.game, self.match.seq

        def state_for(seat: int | None) -> Message:
            message = cache.get(seat)
            if message is None:
                message = cache[seat] = {
                    "type": "state",
                    "seq": seq,
                    "room": {**shared, "you": seat},
                    "view": None if game is None else game.view(seat),
                    "clock": clock,
                    "ref": None,
                }
            return message

        return state_for


def _room_dict(key: tuple[Any, ...], you: int | None) -> dict[str, Any]:
    (
        room_id,
        code,
        status,
        host_seat,
        settings,
        seats,
        game_id,
        invite_url,
        started_by,
        again,
        host_back_by,
        spectators,
        rating_changes,
    ) = key
    return {
        "id": room_id,
        "code": code,
        "status": status,
        "host_seat": host_seat,
        "you": you,
        "settings": settings,
        "seats": [dict(zip(_SEAT_KEYS, seat, strict=True)) for seat in seats],
        "game_id": game_id,
        "invite_url": invite_url,
        "started_by": started_by,
        "again": list(again),
        "host_back_by": host_back_by,
        "spectators": spectators,
        "rating_changes": [
            {"seat": seat, "before": before, "after": after}
            for seat, before, after in rating_changes
        ],
    }
