"""Generate the JSON Schema section of docs/protocol.md from the wire models.

`python -m spades.api.schema` rewrites the section; `--check` exits 1 when it is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import TypeAdapter

from .models import (
    CLIENT_MESSAGE,
    SERVER_MESSAGE,
    CreateRoom,
    Joined,
    JoinRoom,
    MyRooms,
    NewPlayer,
    PlayerCreated,
    PlayerGames,
    PlayerOut,
    RenamePlayer,
    RoomCreated,
    RoomHistory,
    RoomList,
    RoomOut,
)

BEGIN = "<!-- BEGIN GENERATED SCHEMA (python -m spades.api.schema) -->"
END = "<!-- END GENERATED SCHEMA -->"
DOC = Path(__file__).resolve().parents[3] / "docs" / "protocol.md"


def _block(title: str, schema: object) -> str:
    body = json.dumps(schema, indent=2, sort_keys=True)
    return f"### {title}\n\n```json\n{body}\n```\n"


def generated() -> str:
    parts = [
        _block("Client → server messages", CLIENT_MESSAGE.json_schema()),
        _block("Server → client messages", SERVER_MESSAGE.json_schema()),
    ]
    for title, model in (
        ("POST /api/rooms and /api/solo body", CreateRoom),
        ("Room created", RoomCreated),
        ("POST /api/rooms/{code}/join body", JoinRoom),
        ("Joined", Joined),
        ("ROOM (GET /api/rooms/{code}, and `room` of every state)", RoomOut),
        ("GET /api/rooms", RoomList),
        ("GET /api/rooms/{code}/history", RoomHistory),
        ("POST /api/players body", NewPlayer),
        ("Player created", PlayerCreated),
        ("GET /api/me (and PATCH /api/me's answer)", PlayerOut),
        ("PATCH /api/me body", RenamePlayer),
        ("GET /api/me/rooms", MyRooms),
        ("GET /api/players/{id}/games", PlayerGames),
    ):
        parts.append(_block(title, TypeAdapter(model).json_schema()))
    return "\n".join(parts)


def render(text: str) -> str:
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n\n{generated()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = DOC.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"{DOC}: markers missing", file=sys.stderr)
        return 2
    new = render(text)
    if "--check" in argv:
        if new != text:
            print(f"{DOC} is stale: run python -m spades.api.schema", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
