"""Storage: the `Store` protocol (what the rooms layer uses) and its SQL implementation.

`open_store(url)` opens the SQL store; `upgrade(url)` migrates the database to the newest
schema. SQLAlchemy and Alembic load only when those are first used, so importing
`spades.store.protocol` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .protocol import (
    ActionRow,
    ChallengeRow,
    CodeTaken,
    FencedOut,
    FinishedGame,
    GameInProgress,
    GameRow,
    HandRow,
    NotFound,
    PasskeyRow,
    PasskeyTaken,
    PlayerGame,
    PlayerRow,
    PlayerTaken,
    RoomRow,
    RoomStatus,
    SeatRow,
    SequenceError,
    SessionRow,
    StorageUnavailable,
    Store,
    StoredRoom,
    StoreError,
    UsernameTaken,
)

if TYPE_CHECKING:
    from .migrate import current_revision, downgrade, upgrade
    from .sql import SqlStore, open_store

_LAZY = {
    "SqlStore": "sql",
    "open_store": "sql",
    "upgrade": "migrate",
    "downgrade": "migrate",
    "current_revision": "migrate",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = [
    "ActionRow",
    "ChallengeRow",
    "CodeTaken",
    "FencedOut",
    "FinishedGame",
    "GameInProgress",
    "GameRow",
    "HandRow",
    "NotFound",
    "PasskeyRow",
    "PasskeyTaken",
    "PlayerGame",
    "PlayerRow",
    "PlayerTaken",
    "RoomRow",
    "RoomStatus",
    "SeatRow",
    "SequenceError",
    "SessionRow",
    "SqlStore",
    "StorageUnavailable",
    "Store",
    "StoreError",
    "StoredRoom",
    "UsernameTaken",
    "current_revision",
    "downgrade",
    "open_store",
    "upgrade",
]
