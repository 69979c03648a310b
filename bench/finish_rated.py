"""The cost of a rated game's finish over an unrated one (both with statistics).

    python -m bench.finish_rated [--games 200] [--runs 3] [--pg URL] [--no-pg]

For each database (SQLite with its writer process; PostgreSQL in a throwaway database when
it answers), `--games` games of four players are dealt and finished one after another as a
room finishes them, interleaved: half unrated (`finish_game(stats=...)`), half rated (as
`rooms.match.Match.finish` does: `rooms.ratings_io.rating_changes`, which reads the players'
ratings and rates the game, then `finish_game(stats=..., ratings=...)`, then
`ratings_io.show_changes`, what the room shows of it). Printed per finish, min / median /
max over `--runs` runs: the wall time awaited, and this process's CPU time (the room
process's: a SQLite writer process's or PostgreSQL's own CPU is not in it), for each kind
and the difference.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy.engine import make_url

from bench.finish_stats import STATS, deal, spread
from bench.store import DEFAULT_PG, pg_admin
from spades.rooms.rating import RatedSeat
from spades.rooms.ratings_io import rating_changes, show_changes
from spades.rooms.seats import Seat
from spades.rooms.settings import RoomSettings
from spades.rooms.table import Table
from spades.store import open_store, upgrade
from spades.store.sql import SqlStore


async def finish_rated(store: SqlStore, game_id: int) -> None:
    players = await store.game_seat_players(game_id)
    seats = [RatedSeat(s, p) for s, p in enumerate(players) if p is not None]
    table = Table(
        room_id="BENCH",
        code="BENCH",
        invite_url="/r/BENCH",
        settings=RoomSettings.parse({"rated": True}),
        seats=[Seat(i) for i in range(4)],
        host_seat=0,
    )
    started_wall, started_cpu = time.perf_counter(), time.process_time()
    changes, current = await rating_changes(store, "partnership", seats, [500, 300], 0)
    await store.finish_game(game_id, 0, [500, 300], stats=STATS, ratings=changes)
    show_changes(table, changes, current)
    TIMES[True][0] += time.perf_counter() - started_wall
    TIMES[True][1] += time.process_time() - started_cpu


TIMES = {False: [0.0, 0.0], True: [0.0, 0.0]}


async def one_run(store: SqlStore, games: int) -> tuple[float, float, float, float]:
    """Mean ms per finish: wall unrated, wall rated, CPU unrated, CPU rated."""
    ids = await deal(store, games, None)
    TIMES[False], TIMES[True] = [0.0, 0.0], [0.0, 0.0]
    for n, game_id in enumerate(ids):
        if n % 2:
            await finish_rated(store, game_id)
            continue
        wall, cpu = time.perf_counter(), time.process_time()
        await store.finish_game(game_id, 0, [500, 300], stats=STATS)
        TIMES[False][0] += time.perf_counter() - wall
        TIMES[False][1] += time.process_time() - cpu
    half = games / 2 / 1000
    return (
        TIMES[False][0] / half,
        TIMES[True][0] / half,
        TIMES[False][1] / half,
        TIMES[True][1] / half,
    )


async def bench_url(url: str, label: str, games: int, runs: int) -> None:
    store = await open_store(url)
    try:
        results = [await one_run(store, games) for _ in range(runs)]
        cols = list(zip(*results, strict=True))
        print(f"{label:<12} ms per finish, min / median / max of {runs}:")
        for name, values in (
            ("wall, unrated", cols[0]),
            ("wall, rated", cols[1]),
            ("wall, difference", [b - a for a, b in zip(cols[0], cols[1], strict=True)]),
            ("CPU, unrated", cols[2]),
            ("CPU, rated", cols[3]),
            ("CPU, difference", [b - a for a, b in zip(cols[2], cols[3], strict=True)]),
        ):
            print(f"  {name:<18} {spread(list(values))}", flush=True)
    finally:
        await store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.finish_rated", description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games finished per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL admin URL")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    args = parser.parse_args(argv)
    games = max(2, args.games - args.games % 2)
    print(f"rated finish bench: {games} games per run (four players each), {args.runs} runs")
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        upgrade(url)
        asyncio.run(bench_url(url, "sqlite", games, args.runs))
    if args.no_pg:
        return 0
    try:
        asyncio.run(pg_admin(args.pg, "SELECT 1"))
    except Exception as exc:
        print(f"postgresql skipped: unreachable at {make_url(args.pg)!r} ({exc!r})")
        return 0
    name = f"spades_bench_{secrets.token_hex(4)}"
    asyncio.run(pg_admin(args.pg, f'CREATE DATABASE "{name}"'))
    try:
        url = make_url(args.pg).set(database=name).render_as_string(hide_password=False)
        upgrade(url)
        asyncio.run(bench_url(url, "postgresql", games, args.runs))
    finally:
        asyncio.run(pg_admin(args.pg, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    return 0


if __name__ == "__main__":
    sys.exit(main())
