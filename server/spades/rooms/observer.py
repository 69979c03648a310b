"""What the rooms tell whoever watches them (metrics); every hook does nothing by default.

The rooms layer knows no metrics library: the API layer subclasses `Observer` and hands
an instance to the `RoomManager`, which gives it to its rooms and its bot runner. Hooks
are called on the event loop and must not block.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

ActionSource = Literal["human", "bot"]


# A monotonic time for measuring durations (not the rooms' injectable game clock): the C
# function itself, not a wrapper around it (asked several times per action).
now: Callable[[], float] = time.perf_counter


class Observer:
    def action(self, kind: str) -> None:
        """A game action ("look", "bid", "play", "time_up") was applied and stored."""

    def action_latency(self, source: ActionSource, seconds: float) -> None:
        """From receiving an action to its new state queued to every connection."""

    def bot_decision(self, level: str, seconds: float) -> None:
        """A bot (seat, timed-out seat or hint) took this long to choose."""

    def bot_fallback(self, level: str) -> None:
        """A searching bot ran out of its time (or failed) and the basic bot answered."""

    def bot_search_cut(self, level: str) -> None:
        """A searching bot's safety cap stopped its search before its iterations were done
        (a busy server): it played its best move so far, on less search than asked for."""

    def bot_search_thin(self, level: str) -> None:
        """Of the cut searches, one stopped before it had enough sampled deals to judge by:
        it played the basic plan's move (a server with far too few bot workers)."""

    def store_append(self, seconds: float) -> None:
        """One `append_action` write of the store took this long (failed ones included)."""

    def quickplay_seated(self, seconds: float) -> None:
        """Quick play handed a table of people their seats `seconds` after its last player
        joined the queue (on the rooms' clock)."""


NO_OBSERVER = Observer()
