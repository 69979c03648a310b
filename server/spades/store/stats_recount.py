"""`spades db stats`: players' statistics counted again from the event log.

Every finished game with a seated player is replayed from its stored actions through the
engine, and its statistics replace what the totals held of it, one game per transaction:
the game's `game_results` rows are taken out of their players' totals and deleted, then
the game's finish statement (`player_stats.finish_game`, its stored time, winner and
scores unchanged) counts it again. Last, every player's totals are summed again from the
`game_results` rows, in one transaction that holds off finishes meanwhile. So games
finished before the statistics existed get counted, and the totals equal the log's replay
afterwards, whatever they held before. A server may run meanwhile: a game finished during
the recount is counted by its own finish, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from spades.engine import Game, RecordError
from spades.engine.record import game_record
from spades.engine.stats import COUNTERS, SeatStats, game_stats

from . import owner_writes, player_stats, reads
from .tables import GAME_RESULTS, GAME_SEATS, GAMES, PLAYER_STATS


@dataclass
class Recount:
    games: int = 0  # games counted again
    seats: int = 0  # of their seats, those with a player
    refused: int = 0  # finished games whose log does not replay to a finished game


async def recount(engine: AsyncEngine) -> Recount:
    done = Recount()
    async with engine.connect() as conn:
        found = await conn.execute(
            select(GAMES.c.id)
            .join(GAME_SEATS, GAME_SEATS.c.game_id == GAMES.c.id)
            .where(GAMES.c.finished_at.is_not(None), GAME_SEATS.c.player_id.is_not(None))
            .distinct()
            .order_by(GAMES.c.id)
        )
        ids = [int(row[0]) for row in found]
    for game_id in ids:
        async with engine.connect() as conn:
            row = await reads.game_with_room_status(conn, game_id)
            actions = await reads.game_actions(conn, game_id)
        try:
            game = Game.from_record(game_record(row.rules, row.seed, row.first_dealer, actions))
            stats = game_stats(game)
        except (RecordError, ValueError):
            done.refused += 1
            continue
        async with engine.begin() as conn:
            seats = await conn.run_sync(_recount_game, game_id, row.finished_at, game, stats)
        done.games += 1
        done.seats += seats
    async with engine.begin() as conn:
        await conn.run_sync(_sum_totals)
    return done


def _sum_totals(conn: Connection) -> None:
    """Every player's totals as the sums of their `game_results` rows. On PostgreSQL the
    table is locked first: a finish under way (its statement holds its locks from its
    start) commits before, one that comes later waits and adds to the new sums."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("LOCK TABLE player_stats IN EXCLUSIVE MODE")
    conn.execute(delete(PLAYER_STATS))
    results = GAME_RESULTS.c
    sums = select(
        results.player_id, results.mode, *(func.sum(results[name]) for name in COUNTERS)
    ).where(results.player_id.is_not(None))
    conn.execute(
        insert(PLAYER_STATS).from_select(
            ["player_id", "mode", *COUNTERS], sums.group_by(results.player_id, results.mode)
        )
    )


def _recount_game(
    conn: Connection, game_id: int, finished_at: datetime, game: Game, stats: Sequence[SeatStats]
) -> int:
    """In the caller's transaction: the game out of its players' totals, then counted
    again by its finish statement. The count of its seats with a player."""
    counted = conn.execute(select(GAME_RESULTS).where(GAME_RESULTS.c.game_id == game_id))
    for row in counted.fetchall():
        if row.player_id is None:  # the player was deleted: no totals to take it from
            continue
        less: dict[str, Any] = {
            name: PLAYER_STATS.c[name] - getattr(row, name) for name in COUNTERS
        }
        conn.execute(
            update(PLAYER_STATS)
            .where(PLAYER_STATS.c.player_id == row.player_id, PLAYER_STATS.c.mode == row.mode)
            .values(less)
        )
    conn.execute(delete(GAME_RESULTS).where(GAME_RESULTS.c.game_id == game_id))
    write = player_stats.finish_game(game_id, game.winner, list(game.scores), finished_at, stats)
    owner_writes.run(conn, write, None)
    seated = conn.execute(
        select(GAME_SEATS.c.seat).where(
            GAME_SEATS.c.game_id == game_id, GAME_SEATS.c.player_id.is_not(None)
        )
    )
    return len(seated.fetchall())
