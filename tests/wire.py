"""What a client does with each `state` (keep what the message left out from the one before)
and with each `event` (apply it to the state it follows)."""

from __future__ import annotations

from typing import Any


def merge_state(held: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """A state as a client holds it: `room`, and any view key, that the message left out keep
    their values from the state before (docs/protocol.md, `state`)."""
    if held is None:
        return message
    view = message["view"]
    if view is not None and held["view"] is not None:
        view = {**held["view"], **view}
    return {**message, "room": message.get("room", held["room"]), "view": view}


def follows(held: dict[str, Any] | None, event: dict[str, Any]) -> bool:
    """Whether `event` applies to the state held: same game, the very next action."""
    return (
        held is not None
        and held["view"] is not None
        and held["room"]["game_id"] == event["game_id"]
        and held["seq"] == event["seq"] - 1
    )


def apply_event(held: dict[str, Any] | None, event: dict[str, Any]) -> dict[str, Any]:
    """The state a client holds after `event` (docs/protocol.md, `event`): the held view with
    the event's `view` keys and, when present, its own `you` keys. The event must follow."""
    assert held is not None and follows(held, event), (
        f"event {event['seq']} of game {event['game_id']} does not follow the state held"
    )
    view = {**held["view"], **event["view"], **event.get("you", {})}
    return {
        "type": "state",
        "seq": event["seq"],
        "room": held["room"],
        "view": view,
        "clock": event["clock"],
        "ref": event["ref"],
    }


def receive(held: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """A `state` or `event` as the state a client holds after it."""
    if message["type"] == "event":
        return apply_event(held, message)
    return merge_state(held, message)
