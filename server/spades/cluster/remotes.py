"""Owner side of the relay: the sockets other processes (edges) hold for this one's rooms.

The owner treats the pair (edge, the edge's connection id) as a connection of the room
(`RemoteConnection`). It must learn when such a socket is gone, whatever became of the
edge's `detach`: a PUBLISH that reaches no subscriber (this process's subscription was
being made again after a Redis restart, a `CLIENT KILL TYPE pubsub`, an output-buffer cut)
is no error and is lost, and a dead edge sends nothing at all. A ghost left behind keeps its
seat "connected", so the grace period never starts and an untimed game waits for ever; a
ghost spectator takes a place under the room's cap.

So every edge sends each owner it relays to a heartbeat every `HEARTBEAT` seconds listing
the connections it still holds for that owner (links.py). The messages of one edge reach
the owner in the order they were sent (one publisher per process, one channel), so:

- a connection the owner knows that a heartbeat does not list is gone (its detach was
  lost, or is on its way): it leaves its room at once, as a local socket that closed;
- a connection a heartbeat lists that the owner does not know (its attach was lost) is
  closed with `RECONNECT`: the client reconnects and says hello again;
- a connection no heartbeat has listed for `EXPIRE_AFTER` heartbeats (its edge died, or
  cannot reach this process) is closed with `RECONNECT` and leaves its room.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

import orjson

from spades.codes import CloseCode
from spades.rooms import Room

EXPIRE_AFTER = 4  # heartbeats missed before a relayed connection is taken as gone


def heartbeat_every(ttl: float) -> float:
    """Seconds between an edge's heartbeats: a quarter of the lease ttl, at most 1 s."""
    return min(1.0, ttl / 4)


class Poster(Protocol):
    """What a relayed connection needs of the relay: sending, and side tasks."""

    def post(
        self,
        node: str,
        message: dict[str, Any],
        *,
        deaf: Callable[[], None] | None = None,
        retry: bool = False,
    ) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None: ...


_remote_ids = iter(range(1 << 40, 1 << 62))  # far from the ids of local sockets


class RemoteConnection:
    """A socket held by another process, as a room of this one sees it."""

    def __init__(
        self, remotes: Remotes, edge: str, edge_conn: int, address: str, room: Room
    ) -> None:
        self.remotes = remotes
        self.edge = edge
        self.edge_conn = edge_conn
        self.conn_id = next(_remote_ids)
        self.seat: int | None = None
        self.address = address
        self.closed = False
        self.room = room
        self.seen = time.monotonic()  # when its edge last said it holds the socket

    def send(self, message: dict[str, Any] | bytes) -> None:
        if not self.closed:
            # An event comes encoded already: embedded as it is.
            body = orjson.Fragment(message) if isinstance(message, bytes) else message
            self.remotes.poster.post(
                self.edge, {"t": "s", "c": self.edge_conn, "m": body}, deaf=self.lost
            )

    def lost(self) -> None:
        """A message for the socket was not delivered: nobody listens on the edge's channel
        (its process died), or the publish failed (Redis away, if only for a moment). The
        socket missed a state, so it must not go on silently from here: the edge is told to
        close it with `RECONNECT` (the client reconnects and gets a whole state; a dead edge
        hears nothing, which is fine), and the room forgets it."""
        self.close(CloseCode.RECONNECT, "the room moved: reconnect")

    def close(self, code: int, reason: str) -> None:
        """Closed by the owner (its room, a failure, a lost message): the edge is told to
        close the socket, and the room forgets the connection (a no-op when the room
        itself closed it)."""
        if not self.closed:
            self.closed = True
            self.remotes.poster.post(
                self.edge,
                {"t": "x", "c": self.edge_conn, "code": code, "reason": reason},
                retry=True,
            )
            self.remotes.drop(self)


class Remotes:
    """The relayed connections of this process's rooms, by edge and the edge's id."""

    def __init__(self, poster: Poster) -> None:
        self.poster = poster
        self.by_edge: dict[str, dict[int, RemoteConnection]] = {}
        self.expired = 0  # connections no heartbeat listed in time, for the logs and tests
        self.unlisted = 0  # connections a heartbeat no longer listed

    def __len__(self) -> int:
        return sum(len(conns) for conns in self.by_edge.values())

    def get(self, edge: str, edge_conn: int) -> RemoteConnection | None:
        conns = self.by_edge.get(edge)
        return None if conns is None else conns.get(edge_conn)

    def of_room(self, room: Room) -> bool:
        return any(r.room is room for conns in self.by_edge.values() for r in conns.values())

    def attach(self, edge: str, edge_conn: int, address: str, room: Room) -> RemoteConnection:
        remote = RemoteConnection(self, edge, edge_conn, address, room)
        self.by_edge.setdefault(edge, {})[edge_conn] = remote
        return remote

    def forget(self, remote: RemoteConnection) -> None:
        conns = self.by_edge.get(remote.edge)
        if conns is not None and conns.get(remote.edge_conn) is remote:
            del conns[remote.edge_conn]
            if not conns:
                del self.by_edge[remote.edge]

    def drop(self, remote: RemoteConnection) -> None:
        """Forget the connection, and take it out of its room (its seat's grace period
        starts, as for a local socket that closed)."""
        self.forget(remote)
        remote.closed = True
        room = remote.room
        if not room.closed:
            self.poster.spawn(_detach(room, remote))

    def gone(self, edge: str, edge_conn: int) -> None:
        """The edge's `detach`: the socket closed."""
        remote = self.get(edge, edge_conn)
        if remote is not None:
            self.drop(remote)

    def heard(self, edge: str, listed: list[int]) -> list[int]:
        """An edge's heartbeat: the connections it holds for this process. Those it no
        longer lists leave their rooms; the ids it lists that are unknown here are
        returned (their attach was lost: the edge is told to close them)."""
        now = time.monotonic()
        known = self.by_edge.get(edge, {})
        wanted = set(listed)
        for edge_conn, remote in list(known.items()):
            if edge_conn in wanted:
                remote.seen = now
            else:
                self.unlisted += 1
                self.drop(remote)
        return [c for c in wanted if c not in known]

    def touch(self, now: float) -> None:
        """Count every connection as heard from `now` (this process was paused)."""
        for conns in self.by_edge.values():
            for remote in conns.values():
                remote.seen = max(remote.seen, now)

    def expire(self, older_than: float) -> int:
        """Close the connections no heartbeat listed since `older_than` (monotonic)."""
        stale = [
            remote
            for conns in self.by_edge.values()
            for remote in conns.values()
            if remote.seen < older_than
        ]
        for remote in stale:
            self.expired += 1
            remote.close(CloseCode.RECONNECT, "the room moved: reconnect")
        return len(stale)

    def all(self) -> list[RemoteConnection]:
        return [r for conns in self.by_edge.values() for r in conns.values()]


async def _detach(room: Room, remote: RemoteConnection) -> None:
    try:
        await room.call(room.detach, remote)
    except Exception:  # the room closed meanwhile: nothing to leave
        return
