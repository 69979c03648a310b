"""What the rooms need of the server's configuration, as plain values.

The api layer builds it from `spades.config.Settings` (`RoomConfig.pick(settings)`), so
this layer reads no environment and imports nothing above it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal


@dataclass(frozen=True)
class RoomConfig:
    public_url: str  # where invite links point; empty = from the request
    bot_delay: float  # seconds a bot waits before it moves
    bot_workers: Literal["thread", "process"]
    strong_bot_budget: float  # seconds a searching bot may think
    grace_seconds: float  # a disconnected player's turn waits this long for them
    abandon_after: float  # close a room with no connected human after this long
    sweep_seconds: float  # how often idle rooms are checked
    purge_after_days: float  # delete abandoned rooms after this long (0 = keep)
    timeouts_before_away: int
    chat_length: int
    name_length: int
    bot_processes: int = 0  # processes for searching bots; 0 = the machine's cores
    strong_iterations: int = 0  # rollouts per strong decision; 0 = the bot's default
    max_rooms: int = 0  # rooms this process holds at once before refusing new ones; 0 = no cap
    spectators_per_room: int = 0  # spectators one room lets in at once; 0 = no cap

    @classmethod
    def pick(cls, source: Any) -> RoomConfig:
        """These fields, read off any object that has them (the server's Settings)."""
        return cls(**{f.name: getattr(source, f.name) for f in fields(cls)})
