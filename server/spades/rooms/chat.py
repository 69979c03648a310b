"""A room's chat: its rate across all its connections, and the spectators' names in it."""

from __future__ import annotations

from collections import deque
from typing import Literal, get_args

from spades.codes import ErrorCode

from .errors import RoomError
from .moderation import RoomMutes

# A room's chat, all its connections together: at most this many messages in this many
# seconds. Each socket's own rate limit still lets many sockets fill a room's log (and
# everyone's screen) at speed; a conversation at a card table never comes near this.
CHAT_PER_WINDOW = 20
CHAT_WINDOW = 10.0
# Spectators together have at most this many of them, so that watchers cannot crowd the
# players out of their own table's chat.
SPECTATOR_CHAT_PER_WINDOW = 10
# Quick chat: the phrases and emotes a player may send with one click (the client has the
# words and pictures for each). Counted as chat; spectators see them but send none.
QuickPhrase = Literal[
    "nice", "good_game", "oops", "thinking", "well_played", "thanks", "sorry", "hurry",
    "thumbs_up", "laugh", "wow", "sweat",
]  # fmt: skip
QUICK_PHRASES: tuple[str, ...] = get_args(QuickPhrase)


class Chat:
    def __init__(self) -> None:
        self.times: deque[float] = deque()  # when the room's recent chat was accepted
        self.spectator_times: deque[float] = deque()  # the spectators' share of it
        # Connection id -> N of "Spectator N", for the spectators here (a number is never
        # given twice in a room: `named` counts them).
        self.numbers: dict[int, int] = {}
        self.named = 0
        self.mutes = RoomMutes()  # who the host muted here (`mute`)
        # Connection id -> (the `player` credential its chat named, that player's id): a
        # credential is checked once per connection, not at every message.
        self.speakers: dict[int, tuple[str, str]] = {}

    def admit(self, spectator: bool, now: float) -> None:
        """Count a message said at `now`, or refuse it when the room's chat is busy."""
        times, watchers = self.times, self.spectator_times
        while times and now - times[0] >= CHAT_WINDOW:
            times.popleft()
        while watchers and now - watchers[0] >= CHAT_WINDOW:
            watchers.popleft()
        if len(times) >= CHAT_PER_WINDOW or (
            spectator and len(watchers) >= SPECTATOR_CHAT_PER_WINDOW
        ):
            raise RoomError("the room's chat is busy; wait a few seconds", code=ErrorCode.CHAT_BUSY)
        times.append(now)
        if spectator:
            watchers.append(now)

    def spectator_name(self, conn_id: int) -> str:
        """Spectators are numbered in the order they first speak (per connection)."""
        numbers = self.numbers
        if conn_id not in numbers:
            self.named += 1
            numbers[conn_id] = self.named
        return f"Spectator {numbers[conn_id]}"

    def forget(self, conn_id: int) -> None:
        self.numbers.pop(conn_id, None)
        self.speakers.pop(conn_id, None)
