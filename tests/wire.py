"""What a client does with each `state`: keep what the message left out from the one before."""

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
