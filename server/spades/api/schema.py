"""The JSON Schema section of docs/protocol.md, from the wire models (written by
`python -m spades.api.docgen`)."""

from __future__ import annotations

import json

from pydantic import TypeAdapter

from .doc_sections import replace_section
from .models import (
    CLIENT_MESSAGE,
    SERVER_MESSAGE,
    CreateRoom,
    Credentials,
    Joined,
    JoinRoom,
    Leaderboard,
    MyRooms,
    NewPassword,
    NewPlayer,
    PasskeyAdded,
    PasskeyAnswer,
    PasskeyOptions,
    Password,
    PlayerCreated,
    PlayerGames,
    PlayerOut,
    PlayerRatings,
    PlayerStats,
    QuickPlayJoin,
    QuickPlayState,
    RoomCreated,
    RoomHistory,
    RoomList,
    RoomOut,
    SignIn,
    UpdateMe,
)

SECTION = "SCHEMA"


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
        ("PATCH /api/me body", UpdateMe),
        ("GET /api/me/rooms", MyRooms),
        ("GET /api/players/{id}/games", PlayerGames),
        ("GET /api/players/{id}/stats and GET /api/me/stats", PlayerStats),
        ("GET /api/players/{id}/ratings", PlayerRatings),
        ("GET /api/leaderboard", Leaderboard),
        ("POST /api/account body (claim an account)", Credentials),
        ("POST /api/session body (sign in)", SignIn),
        ("POST /api/account/password body", NewPassword),
        ("DELETE /api/account body", Password),
        ("Passkey options (both `.../options` routes)", PasskeyOptions),
        ("POST /api/account/passkeys and /api/session/passkey body", PasskeyAnswer),
        ("Passkey added", PasskeyAdded),
        ("POST /api/quickplay body", QuickPlayJoin),
        ("Quick play state (POST, GET and DELETE /api/quickplay)", QuickPlayState),
    ):
        parts.append(_block(title, TypeAdapter(model).json_schema()))
    return "\n".join(parts)


def render(text: str) -> str:
    """docs/protocol.md's text with the schema section as the models have it now."""
    return replace_section(text, SECTION, f"\n{generated()}")
