"""Generate client/js/messages.js, the web client's copy of the message registry.

The client has no build step, so it cannot read spades.rooms.protocol itself: this writes
what it needs of it as an ES module. `python -m spades.api.clientmessages` rewrites the
file; `--check` exits 1 when it is stale (tests/api/test_client_messages.py checks too).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

from spades.rooms.protocol import GAME_ACTIONS, MESSAGES

MODULE = Path(__file__).resolve().parents[3] / "client" / "js" / "messages.js"


def _names(names: Iterable[str]) -> str:
    return json.dumps(list(names), indent=2)


def generated() -> str:
    """The module's text, from the registry (types in their declared order)."""
    moves = [name for name in MESSAGES if name in GAME_ACTIONS]
    return (
        "// Generated from the server's message registry (server/spades/rooms/protocol.py)\n"
        "// by `python -m spades.api.clientmessages`: edit the registry, not this file.\n"
        "\n"
        "// Every message type a client may send.\n"
        f"export const MESSAGE_TYPES = Object.freeze({_names(MESSAGES)});\n"
        "// The game's moves (the engine's actions).\n"
        f"export const GAME_ACTIONS = Object.freeze({_names(moves)});\n"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    new = generated()
    if "--check" in argv:
        old = MODULE.read_text(encoding="utf-8") if MODULE.is_file() else ""
        if old != new:
            print(f"{MODULE} is stale: run python -m spades.api.clientmessages", file=sys.stderr)
            return 1
        return 0
    MODULE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
