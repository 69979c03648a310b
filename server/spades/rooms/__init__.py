"""Rooms: actors that run tables, their clocks, seat tokens, bot seats and broadcasts.

asyncio only; no web framework here. The API layer hands connections and messages in.
"""

from .bots import BotRunner
from .broadcast import Connection, Hub, LocalHub
from .clock import Clock, ManualClock, SystemClock
from .config import RoomConfig
from .errors import (
    BadPlayer,
    BadRequest,
    BadToken,
    HostOnly,
    NotSeated,
    RoomError,
    RoomFull,
    RoomMoved,
    RoomNotFound,
    ServerFull,
    WrongStatus,
)
from .manager import RoomManager
from .observer import Observer
from .ownership import LocalOwnership, OwnedElsewhere, Ownership
from .room import Room
from .seats import Seat
from .settings import BOT_LEVELS, RoomSettings, RuleOptions, settings_schema

__all__ = [
    "BOT_LEVELS",
    "BadPlayer",
    "BadRequest",
    "BadToken",
    "BotRunner",
    "Clock",
    "Connection",
    "HostOnly",
    "Hub",
    "LocalHub",
    "LocalOwnership",
    "ManualClock",
    "NotSeated",
    "Observer",
    "OwnedElsewhere",
    "Ownership",
    "Room",
    "RoomConfig",
    "RoomError",
    "RoomFull",
    "RoomManager",
    "RoomMoved",
    "RoomNotFound",
    "RoomSettings",
    "RuleOptions",
    "Seat",
    "ServerFull",
    "SystemClock",
    "WrongStatus",
    "settings_schema",
]
