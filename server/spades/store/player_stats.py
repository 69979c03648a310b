"""Players' statistics in the store: a game's finish that counts its seats' statistics
(`finish_game`, an owner write), and a player's totals per mode (`totals`).

Exactly once per game: the statement that finishes a game inserts one `game_results` row
per seat with a player, skipping a seat whose row is there already, and adds to the
players' `player_stats` only what it inserted. A finish retried (its answer lost, a
failover, a replay of the log that ends the game again) matches the rows of the first and
adds nothing; both run in the finish's own transaction, so the totals never count a game
that is not finished, nor miss one that is.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from spades.engine.stats import COUNTERS, Counts, SeatStats

from .owner_writes import OwnerWrite
from .tables import PLAYER_STATS, utc

_COUNTERS = ", ".join(COUNTERS)
_RECORD = ", ".join(f"{name} integer" for name in ("seat", *COUNTERS))
_ADD = ", ".join(f"{name} = player_stats.{name} + excluded.{name}" for name in COUNTERS)

# $1 game, $2 finished at, $3 winner, $4 final scores (JSON), $5 the seats' statistics
# (a JSON list of objects: seat and the counters), $6 the game's mode. The value: the
# game's id, None when there is no such game.
_FINISH_CTES = (
    "WITH game AS (UPDATE games SET finished_at = $2, winner = $3, final_scores = $4::json "
    "WHERE id = $1 RETURNING id), "
    f"counted AS (INSERT INTO game_results (game_id, seat, player_id, mode, {_COUNTERS}) "
    f"SELECT game.id, r.seat, game_seats.player_id, $6, "
    + ", ".join(f"r.{name}" for name in COUNTERS)
    + f" FROM game CROSS JOIN json_to_recordset($5::json) AS r({_RECORD}) "
    "JOIN game_seats ON game_seats.game_id = game.id AND game_seats.seat = r.seat "
    "WHERE game_seats.player_id IS NOT NULL "
    f"ON CONFLICT (game_id, seat) DO NOTHING RETURNING player_id, mode, {_COUNTERS}), "
    f"totals AS (INSERT INTO player_stats (player_id, mode, {_COUNTERS}) "
    "SELECT player_id, mode, "
    + ", ".join(f"sum({name})" for name in COUNTERS)
    + f" FROM counted GROUP BY player_id, mode ON CONFLICT (player_id, mode) DO UPDATE SET {_ADD}) "
)
_FINISH = _FINISH_CTES + "SELECT id FROM game"

# SQLite has no INSERT inside WITH: the same in three statements, in one transaction.
# The totals first, from the seats not counted yet; then those seats' rows.
_SEATS = (
    "FROM json_each(?5) AS r JOIN game_seats ON game_seats.game_id = ?1 "
    "AND game_seats.seat = json_extract(r.value, '$.seat') "
    "WHERE game_seats.player_id IS NOT NULL"
)
_FINISH_SQLITE = (
    "UPDATE games SET finished_at = ?2, winner = ?3, final_scores = ?4 WHERE id = ?1 RETURNING id",
    f"INSERT INTO player_stats (player_id, mode, {_COUNTERS}) "
    "SELECT game_seats.player_id, ?6, "
    + ", ".join(f"sum(json_extract(r.value, '$.{name}'))" for name in COUNTERS)
    + f" {_SEATS} AND NOT EXISTS (SELECT 1 FROM game_results WHERE game_results.game_id = ?1 "
    "AND game_results.seat = game_seats.seat) "
    f"GROUP BY game_seats.player_id ON CONFLICT (player_id, mode) DO UPDATE SET {_ADD}",
    f"INSERT INTO game_results (game_id, seat, player_id, mode, {_COUNTERS}) "
    "SELECT ?1, game_seats.seat, game_seats.player_id, ?6, "
    + ", ".join(f"json_extract(r.value, '$.{name}')" for name in COUNTERS)
    + f" {_SEATS} ON CONFLICT (game_id, seat) DO NOTHING",
)


def finish_game(
    game_id: int,
    winner: int | None,
    scores: list[int],
    now: datetime,
    stats: Sequence[SeatStats],
) -> OwnerWrite:
    """A game's end with its seats' statistics (`engine.stats.game_stats`), each counted
    in its player's totals the first time the game is finished. Its value is the game's id,
    None when there is no such game."""
    return OwnerWrite(
        _FINISH,
        finish_args(game_id, winner, scores, now, stats),
        game_id=game_id,
        returning=True,
        sqlite=_FINISH_SQLITE,
    )


def finish_args(
    game_id: int,
    winner: int | None,
    scores: list[int],
    now: datetime,
    stats: Sequence[SeatStats],
) -> tuple[Any, ...]:
    """The parameters $1..$6 of the finish with statistics."""
    modes = {s.mode for s in stats}
    if len(modes) != 1:
        raise ValueError("a game's statistics are of its four seats, under one mode")
    seats = [{"seat": s.seat, **s.counts.to_dict()} for s in stats]
    return (
        game_id,
        utc(now),
        winner,
        orjson.dumps(list(scores)).decode(),
        orjson.dumps(seats).decode(),
        modes.pop(),
    )


async def totals(conn: AsyncConnection, player_id: str) -> dict[str, Counts]:
    """A player's statistics by mode (only the modes they finished a game in)."""
    query = select(PLAYER_STATS).where(PLAYER_STATS.c.player_id == player_id)
    return {
        row.mode: Counts(*(int(getattr(row, name)) for name in COUNTERS))
        for row in await conn.execute(query)
    }
