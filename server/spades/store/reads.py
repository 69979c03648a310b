"""The store's reads, each on a connection the caller holds (`SqlStore` bounds it in time)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from .protocol import FinishedGame, HandRow, NotFound, PlayerGame, PlayerRow, StoredRoom
from .tables import (
    ACTIONS,
    CHAT,
    GAME_SEATS,
    GAMES,
    HANDS,
    PLAYERS,
    ROOMS,
    SEATS,
    UNFINISHED,
    action_row,
    chat_ms,
    chunks,
    game_row,
    player_row,
    room_row,
    seat_row,
)


async def load_rooms(conn: AsyncConnection, where: Any) -> list[StoredRoom]:
    """The rooms `where` selects, oldest first, each with its seats, its unfinished game
    (the newest), that game's log and the numbers of its stored hands."""
    rooms = [
        room_row(r)
        for r in await conn.execute(
            select(ROOMS).where(where).order_by(ROOMS.c.created_at, ROOMS.c.id)
        )
    ]
    if not rooms:
        return []
    ids = [r.id for r in rooms]
    loaded = {r.id: StoredRoom(room=r, seats=[]) for r in rooms}
    for chunk in chunks(ids):
        for s in await conn.execute(
            select(SEATS).where(SEATS.c.room_id.in_(chunk)).order_by(SEATS.c.seat)
        ):
            loaded[s.room_id].seats.append(seat_row(s))
        # The game in progress is the newest unfinished one of the room.
        for g in await conn.execute(
            select(GAMES)
            .where(GAMES.c.room_id.in_(chunk), GAMES.c.finished_at.is_(None))
            .order_by(GAMES.c.id)
        ):
            loaded[g.room_id].game = game_row(g)
    games = {s.game.id: s for s in loaded.values() if s.game is not None}
    for chunk in chunks(list(games)):
        for a in await conn.execute(
            select(ACTIONS)
            .where(ACTIONS.c.game_id.in_(chunk))
            .order_by(ACTIONS.c.game_id, ACTIONS.c.seq)
        ):
            games[a.game_id].actions.append(action_row(a))
        for h in await conn.execute(
            select(HANDS.c.game_id, HANDS.c.hand_number)
            .where(HANDS.c.game_id.in_(chunk))
            .order_by(HANDS.c.game_id, HANDS.c.hand_number)
        ):
            games[h.game_id].hands.append(h.hand_number)
    return [loaded[i] for i in ids]


async def rooms_by_id(conn: AsyncConnection, room_ids: Sequence[str]) -> dict[str, StoredRoom]:
    """`load_rooms` of the rooms named (those that exist), by id."""
    found: dict[str, StoredRoom] = {}
    for chunk in chunks(room_ids):
        for stored in await load_rooms(conn, ROOMS.c.id.in_(chunk)):
            found[stored.room.id] = stored
    return found


async def public_rooms(conn: AsyncConnection) -> list[StoredRoom]:
    """Open public rooms with their seats, oldest first (no game)."""
    rooms = [
        room_row(r)
        for r in await conn.execute(
            select(ROOMS).where(ROOMS.c.status == "open").order_by(ROOMS.c.created_at, ROOMS.c.id)
        )
    ]
    # `public` lives in the settings JSON: filtered here, the same on every database.
    listed = {r.id: StoredRoom(room=r, seats=[]) for r in rooms if r.settings.get("public")}
    for chunk in chunks(list(listed)):
        for row in await conn.execute(
            select(SEATS).where(SEATS.c.room_id.in_(chunk)).order_by(SEATS.c.seat)
        ):
            listed[row.room_id].seats.append(seat_row(row))
    return list(listed.values())


async def finished_games(conn: AsyncConnection, room_id: str) -> list[FinishedGame]:
    games = {
        g.id: FinishedGame(game=game_row(g), hands=[])
        for g in await conn.execute(
            select(GAMES)
            .where(GAMES.c.room_id == room_id, GAMES.c.finished_at.is_not(None))
            .order_by(GAMES.c.id)
        )
    }
    for chunk in chunks(list(games)):
        for h in await conn.execute(
            select(HANDS)
            .where(HANDS.c.game_id.in_(chunk))
            .order_by(HANDS.c.game_id, HANDS.c.hand_number)
        ):
            games[h.game_id].hands.append(
                HandRow(game_id=h.game_id, hand_number=h.hand_number, summary=h.summary)
            )
    return list(games.values())


async def game_times(conn: AsyncConnection, game_id: int) -> tuple[datetime, datetime | None]:
    """A game's start and its last action's time (None: no action yet). Raises NotFound."""
    started = (await conn.execute(select(GAMES.c.started_at).where(GAMES.c.id == game_id))).scalar()
    if started is None:
        raise NotFound(f"no game {game_id}")
    last = (
        await conn.execute(select(func.max(ACTIONS.c.at)).where(ACTIONS.c.game_id == game_id))
    ).scalar()
    return started, last


async def game_room(conn: AsyncConnection, game_id: int) -> StoredRoom:
    """The room of a game with its seats (no game). Raises NotFound."""
    room = (
        await conn.execute(
            select(ROOMS).join(GAMES, GAMES.c.room_id == ROOMS.c.id).where(GAMES.c.id == game_id)
        )
    ).one_or_none()
    if room is None:
        raise NotFound(f"no game {game_id}")
    seats = [
        seat_row(s)
        for s in await conn.execute(
            select(SEATS).where(SEATS.c.room_id == room.id).order_by(SEATS.c.seat)
        )
    ]
    return StoredRoom(room=room_row(room), seats=seats)


async def game_with_room_status(conn: AsyncConnection, game_id: int) -> Any:
    """A game's row with its room's status (`room_status`). Raises NotFound."""
    game = (
        await conn.execute(
            select(GAMES, ROOMS.c.status.label("room_status"))
            .join(ROOMS, ROOMS.c.id == GAMES.c.room_id)
            .where(GAMES.c.id == game_id)
        )
    ).one_or_none()
    if game is None:
        raise NotFound(f"no game {game_id}")
    return game


async def game_actions(conn: AsyncConnection, game_id: int) -> list[tuple[int | None, Any]]:
    """A game's log as (seat, action), in order."""
    actions = await conn.execute(
        select(ACTIONS.c.seat, ACTIONS.c.action)
        .where(ACTIONS.c.game_id == game_id)
        .order_by(ACTIONS.c.seq)
    )
    return [(a.seat, a.action) for a in actions]


async def recent_chats(
    conn: AsyncConnection, room_ids: Sequence[str], limit: int
) -> dict[str, list[dict[str, Any]]]:
    """Each room's last `limit` messages, oldest first: {seat, name, text, at (epoch ms)};
    one query per chunk of rooms (every room named is in the answer)."""
    found: dict[str, list[dict[str, Any]]] = {room_id: [] for room_id in room_ids}
    for chunk in chunks(room_ids):
        newest = func.row_number().over(partition_by=CHAT.c.room_id, order_by=CHAT.c.id.desc())
        ranked = select(CHAT, newest.label("newest")).where(CHAT.c.room_id.in_(chunk)).subquery()
        query = select(ranked).where(ranked.c.newest <= limit).order_by(ranked.c.id)
        for r in await conn.execute(query):
            found[r.room_id].append(_said(r))
    return found


def _said(r: Any) -> dict[str, Any]:
    return {"seat": r.seat, "name": r.name, "text": r.text, "at": chat_ms(r.at)}


# --- players ---------------------------------------------------------------------------


async def player(conn: AsyncConnection, player_id: str) -> PlayerRow:
    """A player's row. Raises NotFound."""
    found = (await conn.execute(select(PLAYERS).where(PLAYERS.c.id == player_id))).one_or_none()
    if found is None:
        raise NotFound(f"no player {player_id!r}")
    return player_row(found)


async def player_rooms(conn: AsyncConnection, player_id: str) -> list[StoredRoom]:
    """The unfinished rooms with a seat of the player, with their seats, newest first."""
    rooms = [
        room_row(r)
        for r in await conn.execute(
            select(ROOMS)
            .where(
                ROOMS.c.status.in_(UNFINISHED),
                ROOMS.c.id.in_(select(SEATS.c.room_id).where(SEATS.c.player_id == player_id)),
            )
            .order_by(ROOMS.c.created_at.desc(), ROOMS.c.id)
        )
    ]
    found = {r.id: StoredRoom(room=r, seats=[]) for r in rooms}
    for chunk in chunks(list(found)):
        for row in await conn.execute(
            select(SEATS).where(SEATS.c.room_id.in_(chunk)).order_by(SEATS.c.seat)
        ):
            found[row.room_id].seats.append(seat_row(row))
    return list(found.values())


async def player_games(
    conn: AsyncConnection, player_id: str, before: int | None, limit: int
) -> list[PlayerGame]:
    """The finished games the player was dealt into, newest first, ids below `before`."""
    where = [GAME_SEATS.c.player_id == player_id, GAMES.c.finished_at.is_not(None)]
    if before is not None:
        where.append(GAMES.c.id < before)
    rows = list(
        await conn.execute(
            select(GAMES, GAME_SEATS.c.seat, ROOMS.c.code, ROOMS.c.settings.label("room_settings"))
            .join(GAME_SEATS, GAME_SEATS.c.game_id == GAMES.c.id)
            .join(ROOMS, ROOMS.c.id == GAMES.c.room_id)
            .where(*where)
            .order_by(GAMES.c.id.desc())
            .limit(limit)
        )
    )
    seated: dict[int, list[dict[str, Any]]] = {r.id: [] for r in rows}
    for chunk in chunks(list(seated)):
        for s in await conn.execute(
            select(GAME_SEATS)
            .where(GAME_SEATS.c.game_id.in_(chunk))
            .order_by(GAME_SEATS.c.game_id, GAME_SEATS.c.seat)
        ):
            seated[s.game_id].append({"seat": s.seat, "name": s.name, "player_id": s.player_id})
    return [
        PlayerGame(
            game_id=r.id,
            room_code=r.code,
            room_settings=r.room_settings or {},
            seat=r.seat,
            winner=r.winner,
            final_scores=r.final_scores,
            rules=r.rules,
            started_at=r.started_at,
            finished_at=r.finished_at,
            players=seated[r.id],
        )
        for r in rows
    ]


async def game_seat_players(conn: AsyncConnection, game_id: int) -> list[str | None]:
    """Each seat's player when the game was dealt, in seat order (empty: none recorded)."""
    rows = await conn.execute(
        select(GAME_SEATS.c.seat, GAME_SEATS.c.player_id)
        .where(GAME_SEATS.c.game_id == game_id)
        .order_by(GAME_SEATS.c.seat)
    )
    return [r.player_id for r in rows]
