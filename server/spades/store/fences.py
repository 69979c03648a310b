"""Fencing: a cluster owner's write carries its room's fencing number, checked (and the
room's raised to it) in the write's own transaction, so a deposed owner stores nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection

from .protocol import ActionRow, FencedOut, NotFound, StoreError
from .tables import GAMES, ROOMS, chunks

# Rooms locked by one read of a fenced batch on PostgreSQL (the group commit's bound).
MAX_LOCKS = 1000


def fence_room(conn: Connection, room_id: str, fence: int | None) -> None:
    """Check `fence` against the room's in the caller's transaction (raising the room's to
    it when it is newer), or refuse the write: FencedOut, or NotFound for no such room."""
    if fence is None:
        return
    rows = lock_fences(conn, select(ROOMS.c.id, ROOMS.c.fence).where(ROOMS.c.id == room_id))
    current = {str(room): int(f) for room, f in rows}
    if room_id not in current:
        raise NotFound(f"no room {room_id!r}")
    stored = current[room_id]
    if raise_fences(conn, current, {(room_id, fence)}):
        raise FencedOut(
            f"room {room_id!r} has a newer owner (fence {stored} >= {fence})", current=stored
        )


def claim_fences(conn: Connection, claims: Sequence[tuple[str, int]]) -> list[StoreError | None]:
    """A new owner's numbers for many rooms in the caller's transaction: one locking read
    and one update for the lot (a burst of failovers claims hundreds of rooms). Each
    claim's outcome in order: None (its number is the room's now), FencedOut or NotFound.
    A claim is refused unless its number is above the room's (0, a single process's,
    excepted); a room named twice must have a higher number the second time. An equal
    number is the current owner's, which a claim must fence out (after Redis lost its
    counters they start again from 1 and came back up to the owner's own number)."""
    size = 500 if conn.dialect.name == "sqlite" else MAX_LOCKS
    ids = sorted({room for room, _ in claims})
    current: dict[str, int] = {}
    for chunk in chunks(ids, size):
        query = select(ROOMS.c.id, ROOMS.c.fence).where(ROOMS.c.id.in_(chunk))
        current.update((str(room), int(f)) for room, f in lock_fences(conn, query))
    outcomes: list[StoreError | None] = []
    raised: dict[str, int] = {}
    for room, fence in claims:
        stored = current.get(room)
        if stored is None:
            outcomes.append(NotFound(f"no room {room!r}"))
        elif fence < stored or (fence > 0 and fence == stored):
            message = f"room {room!r} has a newer owner (fence {stored} >= {fence})"
            outcomes.append(FencedOut(message, current=stored))
        else:
            outcomes.append(None)
            if fence > stored:
                current[room] = raised[room] = fence
    if raised:
        conn.execute(
            update(ROOMS).where(ROOMS.c.id == bindparam("room")).values(fence=bindparam("f")),
            [{"room": room, "f": f} for room, f in sorted(raised.items())],
        )
    return outcomes


def fence_game(conn: Connection, game_id: int, fence: int | None) -> None:
    if fence is None:
        return
    room_id = conn.execute(select(GAMES.c.room_id).where(GAMES.c.id == game_id)).scalar()
    if room_id is None:
        raise NotFound(f"no game {game_id}")
    fence_room(conn, room_id, fence)


def lock_fences(conn: Connection, query: Any) -> list[Any]:
    """Run `query` (of rooms, with other tables maybe), locking those rooms' rows in id
    order until the transaction ends.

    On PostgreSQL a claim (an UPDATE of the row) and a write holding this lock wait for
    each other, and the lock read sees the latest committed fence, so whichever commits
    second sees the other. Taking the locks in one order (by room id) means two processes'
    batches cannot deadlock. SQLite has one writer at a time and no row locks.
    """
    return list(conn.execute(query.order_by(ROOMS.c.id).with_for_update(of=ROOMS, key_share=True)))


def raise_fences(
    conn: Connection, current: dict[str, int], claims: set[tuple[str, int]]
) -> set[tuple[str, int]]:
    """The claims (room, fence) older than their room's fence; the rooms' fences are raised
    to the newest of the others."""
    refused = {(room, f) for room, f in claims if f < current[room]}
    newest: dict[str, int] = {}
    for room, f in claims:
        if f > current[room] and f > newest.get(room, -1):
            newest[room] = f
    if newest:
        conn.execute(
            update(ROOMS).where(ROOMS.c.id == bindparam("room")).values(fence=bindparam("f")),
            [{"room": room, "f": f} for room, f in sorted(newest.items())],
        )
        current.update(newest)
    return refused


def _lock_rooms_of(conn: Connection, games: list[int]) -> tuple[dict[int, str], dict[str, int]]:
    """Each game's room and each such room's fence, those rooms locked (`lock_fences`)."""
    # One locking read for the whole batch on PostgreSQL (so the locks come in one order);
    # SQLite takes the ids in slices under its parameter limit.
    size = 500 if conn.dialect.name == "sqlite" else MAX_LOCKS
    room_of: dict[int, str] = {}
    current: dict[str, int] = {}
    for chunk in chunks(games, size):
        query = (
            select(ROOMS.c.id, ROOMS.c.fence, GAMES.c.id)
            .select_from(GAMES.join(ROOMS, ROOMS.c.id == GAMES.c.room_id))
            .where(GAMES.c.id.in_(chunk))
        )
        for room, fence, game in lock_fences(conn, query):
            room_of[int(game)] = str(room)
            current[str(room)] = int(fence)
    return room_of, current


def with_fences(
    conn: Connection,
    rows: list[ActionRow],
    fences: list[int | None] | None,
    append: Callable[[list[ActionRow]], list[StoreError | None]],
) -> list[StoreError | None]:
    """Refuse the rows whose fence is older than their room's, then `append` the others.

    Rows of an unknown game are passed on (the append refuses them as NotFound).
    """
    if not fences or all(f is None for f in fences):
        return append(rows) if rows else []
    claims = {(r.game_id, f) for r, f in zip(rows, fences, strict=True) if f is not None}
    room_of, current = _lock_rooms_of(conn, sorted({g for g, _ in claims}))
    refused_rooms = raise_fences(
        conn, current, {(room_of[g], f) for g, f in claims if g in room_of}
    )
    outcomes: list[StoreError | None] = [None] * len(rows)
    kept: list[int] = []
    for i, (r, f) in enumerate(zip(rows, fences, strict=True)):
        room = room_of.get(r.game_id)
        if f is not None and room is not None and (room, f) in refused_rooms:
            outcomes[i] = FencedOut(f"game {r.game_id}: its room has a newer owner than {f}")
        else:
            kept.append(i)
    if kept:
        for i, outcome in zip(kept, append([rows[i] for i in kept]), strict=True):
            outcomes[i] = outcome
    return outcomes
