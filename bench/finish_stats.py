"""The cost of a game's finish with players' statistics, and without.

    python -m bench.finish_stats [--games 200] [--runs 3] [--pg URL] [--no-pg] [--fence]

For each database (a fresh SQLite file with its writer process; PostgreSQL in a throwaway
database when the server answers, on its fast path: the finish as one statement on the
driver connection), `--games` games are dealt in rooms whose four seats have players (the
most a finish counts), then finished one after another, each awaited as a room awaits
its finish: half plainly (`finish_game` as before statistics), half with the four seats'
statistics (`finish_game(stats=...)`: the per-game rows and the players' totals in the
same statement), interleaved so that both meet the same disk and the same load. Printed:
the time per finish, min / median / max over `--runs` runs, for each kind, and the
difference. `--fence` finishes as a cluster owner does (each room claimed with a fencing
number; the finish runs in a SQLAlchemy transaction after the fence check).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy.engine import make_url

from bench.store import DEFAULT_PG, pg_admin
from spades.engine.stats import Counts, SeatStats
from spades.store import PlayerRow, RoomRow, SeatRow, open_store, upgrade
from spades.store.sql import SqlStore

STATS = tuple(
    SeatStats(
        seat,
        "partnership",
        Counts(
            games=1,
            won=seat % 2,
            hands=8,
            contracts_bid=7,
            contracts_made=5,
            sets=2,
            nils_bid=1,
            nils_made=1,
            bags=6,
            points=480,
        ),
    )
    for seat in range(4)
)


async def deal(store: SqlStore, games: int, fence: int | None) -> list[int]:
    """`games` games, each in a room of four players (players shared across rooms, as
    regulars play many games)."""
    prefix = secrets.token_hex(4)
    players = [f"{prefix}p{n}" for n in range(16)]
    for pid in players:
        await store.create_player(PlayerRow(id=pid, secret_hash="bench"))
    ids = []
    for g in range(games):
        room_id = f"{prefix}-{g}"
        seated = [players[(g * 4 + s) % len(players)] for s in range(4)]
        seats = [SeatRow(room_id, s, name="P", player_id=pid) for s, pid in enumerate(seated)]
        await store.create_room(RoomRow(id=room_id, code=room_id.upper(), settings={}), seats)
        if fence is not None:
            await store.claim_room(room_id, fence)
        ids.append(await store.start_game(room_id, {}, 0, "bench", fence=fence))
    return ids


async def one_run(store: SqlStore, games: int, fence: int | None) -> tuple[float, float]:
    """Mean ms per finish: (plain, with statistics)."""
    ids = await deal(store, games, fence)
    spent = {False: 0.0, True: 0.0}
    for n, game_id in enumerate(ids):
        with_stats = n % 2 == 1
        started = time.perf_counter()
        await store.finish_game(
            game_id, 0, [500, 300], stats=STATS if with_stats else None, fence=fence
        )
        spent[with_stats] += time.perf_counter() - started
    half = games / 2
    return spent[False] / half * 1000, spent[True] / half * 1000


def spread(values: list[float]) -> str:
    return f"{min(values):6.3f} / {statistics.median(values):6.3f} / {max(values):6.3f}"


async def bench_url(url: str, label: str, games: int, runs: int, fence: int | None) -> None:
    store = await open_store(url)
    try:
        plain, counted = [], []
        for _ in range(runs):
            a, b = await one_run(store, games, fence)
            plain.append(a)
            counted.append(b)
        extra = [b - a for a, b in zip(plain, counted, strict=True)]
        name = label + ("/fenced" if fence is not None else "")
        print(f"{name:<18} ms per finish, min / median / max of {runs}:")
        print(f"  {'without statistics':<20} {spread(plain)}")
        print(f"  {'with statistics':<20} {spread(counted)}")
        print(f"  {'difference':<20} {spread(extra)}", flush=True)
    finally:
        await store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.finish_stats", description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games finished per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL admin URL")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    parser.add_argument("--fence", action="store_true", help="finish as a cluster owner")
    parser.add_argument("--sqlite-dir", help="folder for the SQLite file (default: a temp dir)")
    args = parser.parse_args(argv)
    games = max(2, args.games - args.games % 2)
    fence = 1 if args.fence else None
    print(f"finish bench: {games} games per run (four players each), {args.runs} runs")
    with tempfile.TemporaryDirectory(dir=args.sqlite_dir) as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        upgrade(url)
        asyncio.run(bench_url(url, "sqlite", games, args.runs, fence))
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
        asyncio.run(bench_url(url, "postgresql", games, args.runs, fence))
    finally:
        asyncio.run(pg_admin(args.pg, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    return 0


if __name__ == "__main__":
    sys.exit(main())
