"""Ratings in the store (docs/rules.md "Ratings"): the finish of a rated game that also
writes its rating changes (`finish_rated_game`, an owner write), and the reads of ratings,
their history and the leaderboards.

Exactly once per game, as the statistics (player_stats.py): the finish inserts one
`rating_changes` row per rated seat, skipping a seat whose row is there already, and changes
the players' `player_ratings` only by the rows it inserted, in the finish's own transaction.

The room computes each change from the ratings it read just before the finish. Two games
of one player finishing at once on two processes both read the same rating: each adds its
own change (after - before) to the rating as it is then, so neither is lost and the result
does not depend on their order (the second game's change was computed from a rating that
did not count the first: a small error, never a lost game). Without such a race, the rating
stored is exactly the `after` computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from spades.engine.stats import SeatStats

from .owner_writes import OwnerWrite
from .player_stats import _FINISH_CTES, _FINISH_SQLITE, finish_args
from .protocol import LeaderRow, QueueFacts, RatingChangeRow, StoredRating
from .tables import PLAYER_RATINGS, PLAYERS, RATING_CHANGES, ROOMS, SEATS

_COLUMNS = "mu_before, sigma_before, mu_after, sigma_after, weight, quit"
_RECORD = (
    "seat integer, player_id text, mu_before float8, sigma_before float8, "
    "mu_after float8, sigma_after float8, weight float8, quit boolean"
)
_BEFORE_PG = (
    "(SELECT b.{0}_before FROM json_to_recordset($7::json) AS b(player_id text, "
    "{0}_before float8) WHERE b.player_id = excluded.player_id)"
)
_SIGMA_FLOOR = 0.001

# $7: the seats' changes (a JSON list of RatingChange.to_dict()).
_FINISH_RATED = (
    _FINISH_CTES
    + f", rated AS (INSERT INTO rating_changes (game_id, seat, player_id, mode, {_COLUMNS}, at) "
    "SELECT game.id, r.seat, r.player_id, $6, "
    + ", ".join(f"r.{c.strip()}" for c in _COLUMNS.split(","))
    + f", $2 FROM game CROSS JOIN json_to_recordset($7::json) AS r({_RECORD}) "
    "JOIN game_seats ON game_seats.game_id = game.id AND game_seats.seat = r.seat "
    "AND game_seats.player_id = r.player_id "
    "ON CONFLICT (game_id, seat) DO NOTHING "
    "RETURNING player_id, mode, mu_after, sigma_after), "
    "rerated AS (INSERT INTO player_ratings (player_id, mode, mu, sigma, games, version, "
    "updated_at) SELECT player_id, mode, mu_after, sigma_after, 1, 1, $2 FROM rated "
    "ON CONFLICT (player_id, mode) DO UPDATE SET "
    f"mu = player_ratings.mu + excluded.mu - {_BEFORE_PG.format('mu')}, "
    f"sigma = greatest({_SIGMA_FLOOR}, player_ratings.sigma + excluded.sigma - "
    f"{_BEFORE_PG.format('sigma')}), "
    "games = player_ratings.games + 1, version = player_ratings.version + 1, "
    "updated_at = excluded.updated_at) "
    "SELECT id FROM game"
)

_VALUE = "json_extract(r.value, '$.{0}')"
_BEFORE_SQLITE = (
    "(SELECT json_extract(b.value, '$.{0}_before') FROM json_each(?7) AS b "
    "WHERE json_extract(b.value, '$.player_id') = excluded.player_id)"
)
_RATED_SEATS = (
    "FROM json_each(?7) AS r JOIN game_seats ON game_seats.game_id = ?1 "
    f"AND game_seats.seat = {_VALUE.format('seat')} "
    f"AND game_seats.player_id = {_VALUE.format('player_id')} "
    "WHERE EXISTS (SELECT 1 FROM games WHERE games.id = ?1)"
)
# SQLite: the statistics' three statements, then the ratings (from the seats not rated
# yet), then the rows that say they were.
_FINISH_RATED_SQLITE = (
    *_FINISH_SQLITE,
    "INSERT INTO player_ratings (player_id, mode, mu, sigma, games, version, updated_at) "
    f"SELECT game_seats.player_id, ?6, {_VALUE.format('mu_after')}, "
    f"{_VALUE.format('sigma_after')}, 1, 1, ?2 {_RATED_SEATS} "
    "AND NOT EXISTS (SELECT 1 FROM rating_changes WHERE rating_changes.game_id = ?1 "
    "AND rating_changes.seat = game_seats.seat) "
    "ON CONFLICT (player_id, mode) DO UPDATE SET "
    f"mu = player_ratings.mu + excluded.mu - {_BEFORE_SQLITE.format('mu')}, "
    f"sigma = max({_SIGMA_FLOOR}, player_ratings.sigma + excluded.sigma - "
    f"{_BEFORE_SQLITE.format('sigma')}), "
    "games = player_ratings.games + 1, version = player_ratings.version + 1, "
    "updated_at = excluded.updated_at",
    f"INSERT INTO rating_changes (game_id, seat, player_id, mode, {_COLUMNS}, at) "
    "SELECT ?1, game_seats.seat, game_seats.player_id, ?6, "
    + ", ".join(_VALUE.format(c.strip()) for c in _COLUMNS.split(","))
    + f", ?2 {_RATED_SEATS} ON CONFLICT (game_id, seat) DO NOTHING",
)


def finish_rated_game(
    game_id: int,
    winner: int | None,
    scores: list[int],
    now: datetime,
    stats: Sequence[SeatStats],
    changes: Sequence[dict[str, Any]],
) -> OwnerWrite:
    """`player_stats.finish_game` with the game's rating changes (each a seat's
    `rooms.rating.RatingChange.to_dict()`), applied the first time the game is finished."""
    return OwnerWrite(
        _FINISH_RATED,
        (*finish_args(game_id, winner, scores, now, stats), orjson.dumps(list(changes)).decode()),
        game_id=game_id,
        returning=True,
        sqlite=_FINISH_RATED_SQLITE,
    )


def _rating(row: Any) -> StoredRating:
    return StoredRating(float(row.mu), float(row.sigma), int(row.games))


async def ratings(
    conn: AsyncConnection, player_ids: Sequence[str], mode: str
) -> dict[str, StoredRating]:
    """The stored ratings of `player_ids` in `mode` (a player never rated is absent)."""
    if not player_ids:
        return {}
    query = select(PLAYER_RATINGS).where(
        PLAYER_RATINGS.c.player_id.in_(list(player_ids)), PLAYER_RATINGS.c.mode == mode
    )
    return {row.player_id: _rating(row) for row in await conn.execute(query)}


async def player_ratings(conn: AsyncConnection, player_id: str) -> dict[str, StoredRating]:
    """A player's ratings by mode (only the modes they were rated in)."""
    query = select(PLAYER_RATINGS).where(PLAYER_RATINGS.c.player_id == player_id)
    return {row.mode: _rating(row) for row in await conn.execute(query)}


async def history(conn: AsyncConnection, player_id: str, limit: int) -> list[RatingChangeRow]:
    """A player's last `limit` rating changes, oldest first."""
    c = RATING_CHANGES.c
    query = (
        select(RATING_CHANGES)
        .where(c.player_id == player_id)
        .order_by(c.at.desc(), c.game_id.desc())
        .limit(limit)
    )
    rows = [
        RatingChangeRow(
            game_id=row.game_id,
            mode=row.mode,
            at=row.at,
            mu_before=row.mu_before,
            sigma_before=row.sigma_before,
            mu_after=row.mu_after,
            sigma_after=row.sigma_after,
            weight=row.weight,
            quit=bool(row.quit),
        )
        for row in await conn.execute(query)
    ]
    return rows[::-1]


async def last_quit(conn: AsyncConnection, player_id: str) -> datetime | None:
    """The end of the last rated game the player quit (left before its end)."""
    c = RATING_CHANGES.c
    query = select(func.max(c.at)).where(c.player_id == player_id, c.quit.is_(True))
    at: datetime | None = (await conn.execute(query)).scalar_one_or_none()
    return at


async def queue_facts(conn: AsyncConnection, player_id: str, mode: str) -> QueueFacts:
    """`Store.queue_facts`: three queries on one connection (one checkout, not three)."""
    playing = select(ROOMS.c.code, ROOMS.c.settings).where(
        ROOMS.c.status == "playing",
        ROOMS.c.id.in_(select(SEATS.c.room_id).where(SEATS.c.player_id == player_id)),
    )
    rated = [row.code for row in await conn.execute(playing) if (row.settings or {}).get("rated")]
    found = await ratings(conn, [player_id], mode)
    return QueueFacts(rated, await last_quit(conn, player_id), found.get(player_id))


def _ordinal() -> Any:
    return PLAYER_RATINGS.c.mu - 3 * PLAYER_RATINGS.c.sigma


def _ranked(mode: str, min_games: int) -> Any:
    r = PLAYER_RATINGS.c
    return and_(r.mode == mode, r.games >= min_games, PLAYERS.c.deleted_at.is_(None))


async def leaderboard(
    conn: AsyncConnection, mode: str, min_games: int, offset: int, limit: int
) -> tuple[int, list[LeaderRow]]:
    """How many players are ranked in `mode` (at least `min_games` rated games, account
    not deleted), and the page of them from `offset`, best first (ties by id)."""
    r = PLAYER_RATINGS.c
    joined = PLAYER_RATINGS.join(PLAYERS, PLAYERS.c.id == r.player_id)
    where = _ranked(mode, min_games)
    total = (await conn.execute(select(func.count()).select_from(joined).where(where))).scalar()
    query = (
        select(r.player_id, r.mu, r.sigma, r.games, PLAYERS.c.name, PLAYERS.c.public)
        .select_from(joined)
        .where(where)
        .order_by(_ordinal().desc(), r.player_id)
        .offset(offset)
        .limit(limit)
    )
    rows = [
        LeaderRow(
            rank=offset + i + 1,
            player_id=row.player_id,
            name=row.name,
            public=bool(row.public),
            rating=_rating(row),
        )
        for i, row in enumerate(await conn.execute(query))
    ]
    return int(total or 0), rows


async def rank(conn: AsyncConnection, player_id: str, mode: str, min_games: int) -> int | None:
    """`player_id`'s place on `mode`'s leaderboard (None: not ranked)."""
    r = PLAYER_RATINGS.c
    own = (
        await conn.execute(
            select(r.mu, r.sigma, r.games).where(r.player_id == player_id, r.mode == mode)
        )
    ).first()
    if own is None or own.games < min_games:
        return None
    mine = own.mu - 3 * own.sigma
    joined = PLAYER_RATINGS.join(PLAYERS, PLAYERS.c.id == r.player_id)
    better = (
        await conn.execute(
            select(func.count())
            .select_from(joined)
            .where(
                _ranked(mode, min_games),
                r.player_id != player_id,
                (_ordinal() > mine) | ((_ordinal() == mine) & (r.player_id < player_id)),
            )
        )
    ).scalar()
    return int(better or 0) + 1
