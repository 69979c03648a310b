"""A room's connections and what each was last sent, so a state carries only what changed.

Messages leave through the `Hub` (broadcast.py). This part keeps, per connection, the
game, `room` and view of the last state it was sent; the next state leaves out an unchanged
`room` and the bulky view keys whose values are unchanged (docs/protocol.md, `state`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .broadcast import Connection, Hub, Message, Send

log = logging.getLogger(__name__)

# View keys a state carries only when their value differs from the last state the
# connection was sent: the bulky parts, which change a few times a hand at most.
SENT_ON_CHANGE = ("rules", "tricks", "last_trick", "commitment", "history")

# WebSocket close codes the room uses (4000-4999 are free for applications).

StateFor = Callable[[int | None], Message]  # the whole state for a seat (None: spectator)


class Audience:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.connections: dict[int, Connection] = {}
        self._sent: dict[int, tuple[int | None, Message, dict[str, Any] | None]] = {}
        self._seq: dict[int, int] = {}  # the seq of the last state or event each was sent
        self._senders: dict[int, Send] = {}  # the hub's function for each connection

    def add(self, conn: Connection) -> None:
        self.connections[conn.conn_id] = conn
        self._senders[conn.conn_id] = self.hub.sender(conn)
        self.forget(conn)  # its next state is whole

    def remove(self, conn: Connection) -> bool:
        """False when it was not here."""
        self.forget(conn)
        self._senders.pop(conn.conn_id, None)
        return self.connections.pop(conn.conn_id, None) is not None

    def forget(self, conn: Connection) -> None:
        """Send `conn` a whole state next time."""
        self._sent.pop(conn.conn_id, None)
        self._seq.pop(conn.conn_id, None)

    def __contains__(self, conn: Connection) -> bool:
        return conn.conn_id in self.connections

    def online(self) -> set[int | None]:
        return {c.seat for c in self.connections.values()}

    def connected(self, seat: int) -> bool:
        # A plain loop: asked once per action, and cheaper than `any()` of a generator.
        for c in self.connections.values():  # noqa: SIM110
            if c.seat == seat:
                return True
        return False

    def send(self, conn: Connection, message: Message) -> None:
        self.hub.send(conn, message)

    def error(self, conn: Connection, code: str, message: str, ref: Any) -> None:
        self.send(conn, {"type": "error", "code": code, "message": message, "ref": ref})

    def send_all(self, message: Message) -> None:
        for conn in list(self.connections.values()):
            self.send(conn, message)

    def close(self, conn: Connection, code: int, reason: str) -> None:
        self.hub.close(conn, code, reason)

    def close_all(self, error: str, text: str, code: int, reason: str) -> None:
        for conn in list(self.connections.values()):
            self.error(conn, error, text, None)
            self.close(conn, code, reason)
        self.connections.clear()
        self._senders.clear()
        self._sent.clear()
        self._seq.clear()

    def send_state(
        self, conn: Connection, game_id: int | None, state: Message, ref: Any = None
    ) -> None:
        message = self._only_changes(conn, game_id, state)
        self._seq[conn.conn_id] = state["seq"]
        if ref is not None:
            message = {**message, "ref": ref}
        self.send(conn, message)

    def send_events(
        self,
        game_id: int | None,
        seq: int,
        public: dict[str, Any],
        frames: dict[int | None, bytes],
        default: bytes,
        origin: Connection | None = None,
        origin_frame: bytes | None = None,
    ) -> list[Connection]:
        """An event's encoded frame to each connection that holds the state of action
        `seq - 1` of game `game_id` (the event applies to it, events.py): `origin_frame` to
        `origin` (when given), else its seat's frame in `frames`, else `default`. Those
        connections then hold the public view keys of `public` (the next state leaves out
        those unchanged since), their `room` unchanged. Returns the others, which need a
        whole state. One loop for every connection, the bookkeeping inline: it runs for
        every socket of every action."""
        sent, seqs, senders = self._sent, self._seq, self._senders
        behind: list[Connection] = []
        before = seq - 1
        for conn in list(self.connections.values()):
            conn_id = conn.conn_id
            last = sent.get(conn_id)
            if last is None or last[0] != game_id or seqs.get(conn_id) != before:
                behind.append(conn)
                continue
            if conn is origin and origin_frame is not None:
                frame = origin_frame
            else:
                frame = frames.get(conn.seat, default)
            sent[conn_id] = (game_id, last[1], public)
            seqs[conn_id] = seq
            try:
                senders[conn_id](frame)
            except Exception:
                # As `broadcast`: the others are served all the same.
                log.exception("sending an event to connection %s failed", conn_id)
                self.forget(conn)
        return behind

    def broadcast(
        self,
        game_id: int | None,
        state_for: StateFor,
        origin: Connection | None = None,
        ref: Any = None,
        *,
        skip: Connection | None = None,
    ) -> None:
        """Each connection its seat's state; the one that asked (`origin`) gets its `ref`.
        A connection whose send fails is logged and forgotten (sent whole next time); the
        others are served all the same."""
        for conn in list(self.connections.values()):
            if conn is skip:
                continue
            try:
                self.send_state(
                    conn, game_id, state_for(conn.seat), ref if conn is origin else None
                )
            except Exception:
                log.exception("sending a state to connection %s failed", conn.conn_id)
                self.forget(conn)

    def _only_changes(self, conn: Connection, game_id: int | None, message: Message) -> Message:
        """`message` without what `conn` already holds. The first state after a hello, and
        the first of each game, are whole."""
        room, view = message["room"], message["view"]
        last = self._sent.get(conn.conn_id)
        self._sent[conn.conn_id] = (game_id, room, view)
        if last is None or last[0] != game_id:
            return message
        _, last_room, last_view = last
        out = dict(message)
        if room == last_room:
            del out["room"]
        if view is not None and last_view is not None:
            trimmed = None
            for key in SENT_ON_CHANGE:
                if view[key] == last_view[key]:
                    if trimmed is None:
                        trimmed = dict(view)
                    del trimmed[key]
            if trimmed is not None:
                out["view"] = trimmed
        return out
