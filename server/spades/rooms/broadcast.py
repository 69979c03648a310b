"""How a room reaches its connections: one small interface, in-process today.

A room never touches a socket. It hands each message for a connection to its `Hub`;
the in-process hub calls the connection's own non-blocking `send`. A Redis hub would
publish the same messages to the process that holds the socket (an `event` comes already
encoded as UTF-8 JSON, to be forwarded as it is).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

Message = dict[str, Any]
# A message already encoded as UTF-8 JSON (an `event`, built once per action: events.py).
Frame = bytes


class Connection(Protocol):
    """One client socket as the room sees it. `send` must not block (it queues)."""

    conn_id: int
    seat: int | None
    address: str

    def send(self, message: Message | Frame) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


Send = Callable[[Message | Frame], None]


class Hub(Protocol):
    def send(self, conn: Connection, message: Message | Frame) -> None: ...

    def sender(self, conn: Connection) -> Send:
        """The function that sends to `conn` (a room asks once per connection, then calls
        it for every event)."""
        ...

    def close(self, conn: Connection, code: int, reason: str) -> None: ...


class LocalHub:
    def send(self, conn: Connection, message: Message | Frame) -> None:
        conn.send(message)

    def sender(self, conn: Connection) -> Send:
        return conn.send

    def close(self, conn: Connection, code: int, reason: str) -> None:
        conn.close(code, reason)
