"""A room's chat: its rate across all its connections, and the spectators' names in it."""

from __future__ import annotations

from collections import deque
from typing import Any, Literal, get_args

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
# The recent messages a connection is sent when it says hello (the store's default), and
# how long the room keeps them without reading them again. The room's owner writes its
# chat, so what it keeps stays right; the age bounds what it could miss (a deleted
# account's name, replaced in the store while the room ran on another process).
RECENT_CHAT = 50
RECENT_CHAT_KEPT = 60.0
Chats = list[dict[str, Any]]  # a room's recent chat, as hello sends it


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
        # The recent messages, as hello sends them, and when they were read from the store
        # (None: to read): a reconnect storm's hellos must not each read the chat table.
        self.recent: Chats | None = None
        self.recent_read_at = 0.0

    def kept_recent(self, now: float) -> Chats | None:
        """The recent messages kept here, or None when they are to be read again."""
        if self.recent is None or now - self.recent_read_at >= RECENT_CHAT_KEPT:
            return None
        return self.recent

    def keep_recent(self, messages: Chats, now: float) -> None:
        self.recent, self.recent_read_at = messages[-RECENT_CHAT:], now

    def said(self, message: dict[str, Any]) -> None:
        """A message stored and sent: kept with the recent ones (when they are kept)."""
        if self.recent is not None:
            self.recent = [*self.recent[1 - RECENT_CHAT :], message]

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
