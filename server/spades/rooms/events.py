"""Send what happened, not what is: after an accepted action, each connection that holds the
state just before it gets a small `event` instead of a whole `state` (docs/protocol.md).

An event carries the action, the public view keys that changed (taken from the spectator's
view, so it holds no hand), the clocks, and for the seats the action concerned (the one that
acted, the one whose turn it was, the one whose turn it is) those of that seat's own keys
(`Game.own_view`: hand, blind_nil_open, legal) that changed, in `you`, to that seat only.
Its text is built once per action; each connection's frame is that text plus its own
cached pieces.

A whole state goes instead when the event would not follow: a new game or hand, a phase
that changed, a `room` that changed, more than one action since the last broadcast, or a
connection that was not sent the state just before (it said hello meanwhile).
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

from .audience import Audience
from .broadcast import Connection
from .match import Match
from .views import Views

log = logging.getLogger(__name__)

# The view keys that differ between seats: never in an event's `view`.
OWN_KEYS = frozenset(("seat", "hand", "blind_nil_open", "legal"))


class Events:
    """One room's memory of its last broadcast: what the next event is a change from."""

    def __init__(self, audience: Audience, views: Views, match: Match) -> None:
        self.audience = audience
        self.views = views
        self.match = match
        # (game id, hand number, phase, seq) the last broadcast showed, its `room` (as a
        # spectator sees it) and its public view; None: the next broadcast sends states.
        self.key: tuple[int | None, int, str, int] | None = None
        self.room: dict[str, Any] | None = None
        self.public: dict[str, Any] | None = None
        # Each seat's own keys as its connections hold them, for seats an event has concerned
        # since the last broadcast of states (after which every connection holds them whole).
        self.own: dict[int, dict[str, Any]] = {}
        self.public_keys: tuple[str, ...] | None = None

    def forget(self) -> None:
        """Send every connection a whole state next."""
        self.key = None

    def room_shown(self, shared: dict[str, Any]) -> None:
        """Every connection was just shown `shared` as the `room` (in whole states sent
        outside `broadcast`, as a hello's to the others): the next event's base. Otherwise
        an action that set the room back as it was before (a seat timed out again) would
        compare equal with the older room and go out as an event the room change misses."""
        if self.key is not None:
            self.room = shared

    def broadcast(self, origin: Connection | None, ref: Any, turn_deadline: float | None) -> None:
        """Each connection its event, or its state where an event would not follow."""
        match, views = self.match, self.views
        game, game_id = match.game, match.game_id
        shared = views.room_dict(None)
        clock = views.clock_dict(turn_deadline)
        if game is None:
            self.key = None
            self.audience.broadcast(game_id, views.state_builder(clock, shared), origin, ref)
            return
        seq = game.action_count
        key = (game_id, game.hand_number, game.phase, seq)
        last, last_room, last_public = self.key, self.room, self.public
        public = game.view(None)
        self.key, self.room, self.public = key, shared, public
        if (
            last is None
            or last_public is None
            or last[3] != seq - 1
            or last[2] != key[2]
            or last[1] != key[1]
            or last[0] != key[0]
            or (last_room is not shared and last_room != shared)
        ):
            self.own.clear()
            self.audience.broadcast(game_id, views.state_builder(clock, shared), origin, ref)
            return
        last_action = game.last_action
        assert last_action is not None  # seq is at least 1 here
        acted, action = last_action
        body = orjson.dumps(
            {
                "type": "event",
                "seq": seq,
                "game_id": game_id,
                "action": {"seat": acted, **action},
                "view": self._changed_keys(last_public, public),
                "clock": clock,
            }
        )[:-1]
        own: dict[int | None, bytes] = {}  # each concerned seat's `you` part
        frames: dict[int | None, bytes] = {}  # the frames of seats with a `you` part
        for seat in (acted, last_public["to_act"], public["to_act"]):
            if seat is not None and seat not in own:
                # Its own keys that changed since its connections were last sent them.
                now, held = game.own_view(seat), self.own.get(seat)
                self.own[seat] = now
                if held is None:
                    diff = now
                else:
                    diff = {}
                    for k, v in now.items():  # (a plain loop: it runs for every action)
                        if held[k] != v:
                            diff[k] = v
                part = own[seat] = b',"you":' + orjson.dumps(diff) if diff else b""
                if part:
                    frames[seat] = body + part + b',"ref":null}'
        origin_frame = None
        if origin is not None and ref is not None:
            seat = origin.seat
            part = own.get(seat, b"") if seat is not None else b""
            origin_frame = body + part + b',"ref":' + orjson.dumps(ref) + b"}"
        no_ref = body + b',"ref":null}'
        audience = self.audience
        behind = audience.send_events(game_id, seq, public, frames, no_ref, origin, origin_frame)
        if behind:  # whole states, for the connections an event would not follow
            states = views.state_builder(clock, shared)
            for conn in behind:
                try:
                    audience.send_state(
                        conn, game_id, states(conn.seat), ref if conn is origin else None
                    )
                except Exception:
                    # As Audience.broadcast: the others are served all the same.
                    log.exception("sending a state to connection %s failed", conn.conn_id)
                    audience.forget(conn)

    def _changed_keys(self, last: dict[str, Any], public: dict[str, Any]) -> dict[str, Any]:
        """The public view keys whose values changed. Unchanged bulky keys (rules, tricks,
        history) are the very objects of the last view (Game.view shares them), so most
        keys cost an identity check."""
        keys = self.public_keys
        if keys is None:  # the keys of every public view (Game.view makes the same ones)
            keys = self.public_keys = tuple(k for k in public if k not in OWN_KEYS)
        changed = {}
        for k in keys:  # (a plain loop: it runs for every action)
            v = public[k]
            was = last[k]  # every view has the same keys
            if was is not v and was != v:
                changed[k] = v
        return changed
