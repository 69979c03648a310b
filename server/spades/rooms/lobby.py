"""Rooms as strangers see them from the database: the lobby's entries and a game's players.

The store hands back plain rows (`StoredRoom`); how a room is presented (bot names, open
seats, whether its code may be shown) is decided here, the same way the live rooms do.
"""

from __future__ import annotations

from typing import Any

from spades.store.protocol import PlayerGame, StoredRoom

from .seats import Seat
from .settings import RoomSettings

# A room stored before `public` was a setting was public.
_PUBLIC = RoomSettings.model_fields["public"].default

SEATS = range(4)


def lobby_entry(stored: StoredRoom) -> dict[str, Any]:
    """A room as the lobby lists it (Room.summary() without `invite_url`, which depends on
    the address the server is reached at)."""
    room = stored.room
    seats = {row.seat: Seat.from_row(row) for row in stored.seats}
    names = {i: s.name for i, s in seats.items() if s.kind != "empty"}
    kinds = {i: s.kind for i, s in seats.items()}
    host = room.host_seat
    return {
        "id": room.id,
        "code": room.code,
        "status": room.status,
        "settings": room.settings,
        "host": names.get(host) if host is not None else None,
        "seats": [{"seat": i, "name": names.get(i), "kind": kinds.get(i, "empty")} for i in SEATS],
        "open_seats": [i for i in SEATS if kinds.get(i, "empty") == "empty"],
    }


def lobby_entries(rooms: list[StoredRoom], limit: int | None = None) -> list[dict[str, Any]]:
    """The lobby from the store's open public rooms (`Store.public_rooms`): those with a
    free seat, in the store's order, at most `limit`."""
    listed = []
    for stored in rooms:
        entry = lobby_entry(stored)
        if entry["open_seats"]:
            listed.append(entry)
            if limit is not None and len(listed) >= limit:
                break
    return listed


def game_players(stored: StoredRoom) -> dict[str, Any]:
    """Who sits in a game's room now (`Store.game_room`), for the review page's names:
    `{"room": code or None, "players": [{"seat", "name", "kind"}] * 4}`."""
    seats = {s.seat: s for s in stored.seats}
    players = []
    for i in SEATS:
        s = seats.get(i)
        kind = "empty" if s is None else ("bot" if s.bot_level else "human")
        name = None if s is None else (s.name or ("Bot" if s.bot_level else None))
        players.append({"seat": i, "name": name, "kind": kind})
    # A private room's code is its only key: a record (anyone may read it by the game's
    # number) never names one. A public room is named whatever its status now: its host
    # opened it to strangers (the lobby lists it while it has a free seat), and anyone may
    # watch it.
    public = is_public(stored.room.settings)
    return {"room": stored.room.code if public else None, "players": players}


def is_public(settings: dict[str, Any] | None) -> bool:
    return bool((settings or {}).get("public", _PUBLIC))


def without_names(record_players: dict[str, Any]) -> dict[str, Any]:
    """`game_players` for someone who did not sit in a private room's game: the seats and
    their kinds, no person's name (a bot's is nobody's)."""
    players = [
        {**p, "name": None} if p["kind"] == "human" else p for p in record_players["players"]
    ]
    return {**record_players, "players": players}


def my_room(stored: StoredRoom, player_id: str) -> dict[str, Any] | None:
    """A live room with a seat of the player, as "Return to your game" lists it (None when
    the seat is no longer theirs)."""
    mine = [s.seat for s in stored.seats if s.player_id == player_id and s.token_hash]
    if not mine:
        return None
    entry = lobby_entry(stored)
    del entry["open_seats"]
    return {**entry, "seat": mine[0]}


def played_game(game: PlayerGame, *, names: bool) -> dict[str, Any]:
    """A finished game on a player's page. `names`: the viewer may see who sat there (a
    public room, or a viewer who sat in the game); else the seats go unnamed and a private
    room's code is not shown."""
    public = is_public(game.room_settings)
    shown = names or public
    return {
        "game_id": game.game_id,
        "room": game.room_code if public else None,
        "seat": game.seat,
        "winner": game.winner,
        "scores": game.final_scores,
        "mode": game.rules.get("mode"),
        "target": game.rules.get("target"),
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "players": [
            {"seat": p["seat"], "name": p["name"] if shown else None} for p in game.players
        ],
    }
