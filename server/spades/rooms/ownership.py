"""Who owns a room: the interface the manager asks, and the single-process answer.

One process alone owns every room (`LocalOwnership`). In a cluster a room is owned by one
process at a time through a lease that carries a fencing number; the owner passes that
number with every write (`FencedStore`), and the store refuses a write whose number is older
than the room's latest. The lease itself lives in `spades.cluster` (Redis); rooms only see
this interface.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from spades.codes import ErrorCode
from spades.store.protocol import FencedOut

from .errors import RoomError

log = logging.getLogger(__name__)

# The close code that tells a client "this room moved to another process: reconnect now".


class OwnedElsewhere(RoomError):
    """The room is live on another process (`owner`); ask it, do not load the room here."""

    def __init__(self, owner: str, room_id: str) -> None:
        super().__init__(f"room {room_id} is owned by {owner}", code=ErrorCode.OWNED_ELSEWHERE)
        self.owner = owner
        self.room_id = room_id


class Ownership(Protocol):
    """Leases on rooms. `claim` returns the fencing number, or None when another holds it."""

    node_id: str
    # True: this process owns every room of the store (reload them all at start).
    owns_everything: bool

    async def claim(self, room_id: str) -> int | None: ...

    async def release(self, room_id: str) -> None: ...

    async def fence_at_least(self, room_id: str, number: int) -> None:
        """The next claim's number must be above `number` (the store's, for this room)."""
        ...

    async def hand_over(self, room_id: str, node: str) -> None:
        """Pass a held lease straight to `node` (a newer fencing number, so nothing written
        here counts any more), so no third process can claim the room in between."""
        ...

    async def owner_of(self, room_id: str) -> str | None: ...

    def on_lost(self, callback: Callable[[str], None]) -> None:
        """`callback(room_id)` when a held lease is lost (expired or taken)."""
        ...


class LocalOwnership:
    """One process: every room is ours, no fencing number is needed."""

    node_id = "local"
    owns_everything = True

    async def claim(self, room_id: str) -> int | None:
        return 0

    async def release(self, room_id: str) -> None:
        return None

    async def fence_at_least(self, room_id: str, number: int) -> None:
        return None

    async def hand_over(self, room_id: str, node: str) -> None:
        return None

    async def owner_of(self, room_id: str) -> str | None:
        return self.node_id

    def on_lost(self, callback: Callable[[str], None]) -> None:
        return None


# The owner writes of the Store protocol: each takes `fence=` in a cluster.
FENCED_WRITES = (
    "update_room",
    "set_seat",
    "start_game",
    "append_action",
    "finish_hand",
    "finish_game",
    "add_chat",
    "set_room_mute",
    "resume_game_clock",
)


class FencedStore:
    """A room's view of the store in a cluster: every owner write carries the room's fence.

    When the store answers FencedOut, `fenced(room_id)` is called once (the manager drops
    the room at once) and the error goes on to the room like any failed write.
    """

    def __init__(self, store: Any, room_id: str, fence: int, fenced: Callable[[str], None]) -> None:
        self._store = store
        self.room_id = room_id
        self.fence = fence
        self._fenced = fenced
        self._told = False

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if name not in FENCED_WRITES:
            return attr

        async def fenced_write(*args: Any, **kwargs: Any) -> Any:
            try:
                return await attr(*args, fence=self.fence, **kwargs)
            except FencedOut:
                if not self._told:
                    self._told = True
                    log.warning(
                        "room %s: fenced out (fence %d): another process owns it",
                        self.room_id,
                        self.fence,
                        extra={"room": self.room_id},
                    )
                    self._fenced(self.room_id)
                raise

        return fenced_write
