"""The purge of long-abandoned rooms: what a closed room leaves that nobody needs again.

A room that never finished a game is deleted with all it owns (its seats, its unfinished
games with their logs and hands, its chat). A room that finished a game stays as a
tombstone: its row (the code, by which `GET /api/rooms/{code}/history` finds its games),
its seats' names (the review page names a record's players from them) and its finished
games with their logs and hands. Those games were published (the history lists them, their
records answer anyone), so they outlive the room. The rest of a tombstone is dropped: its
chat and its host's mutes, its unfinished games (a closed room never plays on, and they
never appear in any history) and its seats' token hashes (nobody comes back to a closed
room).

Why a tombstone rather than games that outlive their room's row (a nullable `room_id`):
the room's code and seats are what make its games reachable and readable, and keeping the
row changes no schema, so no table referenced by others is rebuilt by a migration.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, delete, exists, or_, select, update
from sqlalchemy.engine import Connection

from .tables import CHAT, GAMES, ROOM_MUTES, ROOMS, SEATS, chunks


def purge_abandoned(conn: Connection, cutoff: datetime) -> int:
    """Purge the rooms abandoned before `cutoff`; the count of rooms deleted or emptied
    (a tombstone already emptied is not counted again)."""
    old = and_(ROOMS.c.status == "abandoned", ROOMS.c.updated_at < cutoff)
    finished = exists().where(GAMES.c.room_id == ROOMS.c.id, GAMES.c.finished_at.is_not(None))
    deleted = int(conn.execute(delete(ROOMS).where(old, ~finished)).rowcount)
    # Every old abandoned room left has a finished game: a tombstone. Only those that still
    # hold something to drop are touched, so a purge does not rewrite them each time.
    leftover = or_(
        exists().where(CHAT.c.room_id == ROOMS.c.id),
        exists().where(ROOM_MUTES.c.room_id == ROOMS.c.id),
        exists().where(GAMES.c.room_id == ROOMS.c.id, GAMES.c.finished_at.is_(None)),
        exists().where(SEATS.c.room_id == ROOMS.c.id, SEATS.c.token_hash.is_not(None)),
    )
    emptied = [r.id for r in conn.execute(select(ROOMS.c.id).where(old, leftover))]
    for chunk in chunks(emptied):
        conn.execute(delete(CHAT).where(CHAT.c.room_id.in_(chunk)))
        conn.execute(delete(ROOM_MUTES).where(ROOM_MUTES.c.room_id.in_(chunk)))
        # Their actions and hands go with them (ON DELETE CASCADE).
        conn.execute(delete(GAMES).where(GAMES.c.room_id.in_(chunk), GAMES.c.finished_at.is_(None)))
        conn.execute(
            update(SEATS)
            .where(SEATS.c.room_id.in_(chunk), SEATS.c.token_hash.is_not(None))
            .values(token_hash=None)
        )
    return deleted + len(emptied)
