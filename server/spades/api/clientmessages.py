"""Generate the copies of the client message registry that cannot import it.

The web client has no build step, so it cannot read spades.rooms.protocol itself: it gets
what it needs as an ES module, client/js/messages.js. docs/protocol.md gets the table of
rate costs. `python -m spades.api.docgen` writes both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from spades.rooms.protocol import GAME_ACTIONS, MESSAGES
from spades.rooms.settings import CHAT_LENGTH, NAME_LENGTH

from .doc_sections import COMMAND, replace_section
from .limits import FRAME_COST, KIB_COST

SECTION = "MESSAGE COSTS"


def _names(names: Iterable[str]) -> str:
    return json.dumps(list(names), indent=2)


def _number(value: float) -> str:
    return f"{value:g}"


def generated() -> str:
    """The module's text, from the registry (types in their declared order)."""
    moves = [name for name in MESSAGES if name in GAME_ACTIONS]
    return (
        "// Generated from the server's message registry (server/spades/rooms/protocol.py)\n"
        f"// by `{COMMAND}`: edit the registry, not this file.\n"
        "\n"
        "// Every message type a client may send.\n"
        f"export const MESSAGE_TYPES = Object.freeze({_names(MESSAGES)});\n"
        "// The game's moves (the engine's actions).\n"
        f"export const GAME_ACTIONS = Object.freeze({_names(moves)});\n"
        "// The longest display name (`sit`) and chat text (`chat`) the server takes.\n"
        f"export const NAME_LENGTH = {NAME_LENGTH};\n"
        f"export const CHAT_LENGTH = {CHAT_LENGTH};\n"
    )


def cost_table() -> str:
    """The rate costs of docs/protocol.md, cheapest first (then in declared order)."""
    rows = sorted(MESSAGES.values(), key=lambda t: t.cost)
    lines = ["| message | costs |", "|---|---|"]
    lines += [f"| `{t.name}` | {_number(t.cost)} |" for t in rows]
    lines.append(f"| a frame that is not a message | {_number(FRAME_COST)} |")
    return (
        "\n".join(lines)
        + f"\n\nand {_number(KIB_COST)} more per KiB of the frame. Anything that makes the "
        "server build and send states, or run a bot search, costs more than a `ping`.\n"
    )


def render(text: str) -> str:
    """docs/protocol.md's text with the cost table brought up to date."""
    return replace_section(text, SECTION, f"\n{cost_table()}")
