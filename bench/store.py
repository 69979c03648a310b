"""Store append benchmark: appended actions/s and append latency (p50/p99).

    python -m bench.store [--rooms 1,10,50,200] [--appends 3000] [--think-ms 0]
                          [--pg URL] [--no-pg]

For each database (a fresh SQLite file in a temporary folder; PostgreSQL in a throwaway
database when the server answers) and each room count, the rooms share `--appends`
appends: each room appends its share in sequence, awaiting each append as a room actor
does (stored before broadcast), all rooms at once. `--no-group` commits every append on
its own, for comparison (rows labelled `sqlite/1`). With `--think-ms T` a room waits a
random 0..2T ms between its actions (seeded), so appends arrive unevenly as in play.
Throughput is total appends / wall time; latency is per append call, from the call to
its durable return. `--fence` appends as a cluster owner does: each room is claimed with
a fencing number and every append carries it (checked in the append's transaction).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from spades.store import ActionRow, RoomRow, SeatRow, open_store, upgrade
from spades.store.sql import SqlStore

DEFAULT_PG = os.environ.get(
    "SPADES_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)


@dataclass
class Result:
    database: str
    rooms: int
    appends: int
    seconds: float
    latencies: list[float]
    commits: int

    @property
    def rate(self) -> float:
        return self.appends / self.seconds

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000

    def line(self) -> str:
        return (
            f"{self.database:<10} rooms={self.rooms:<4} appends={self.appends:<6} "
            f"{self.rate:9.0f} appends/s   p50 {self.percentile(0.50):6.2f} ms   "
            f"p99 {self.percentile(0.99):6.2f} ms   "
            f"{self.appends / max(1, self.commits):5.1f} appends/commit"
        )


async def run_rooms(
    store: SqlStore, label: str, rooms: int, actions: int, think_ms: float, fence: int | None
) -> Result:
    prefix = secrets.token_hex(4)
    games = []
    for r in range(rooms):
        room_id = f"bench-{prefix}-{r}"
        await store.create_room(
            RoomRow(id=room_id, code=f"B{prefix}{r}", settings={"bench": True}),
            [SeatRow(room_id, s, bot_level="random") for s in range(4)],
        )
        games.append(await store.start_game(room_id, {"mode": "partnership"}, 0, "bench"))
        if fence is not None:
            await store.claim_room(room_id, fence)
    latencies: list[float] = []

    async def room(game_id: int) -> None:
        rng = random.Random(game_id)
        for seq in range(1, actions + 1):
            if think_ms:
                await asyncio.sleep(rng.uniform(0, 2 * think_ms) / 1000)
            action = {"type": "play", "card": "QS"} if seq > 4 else {"type": "bid", "bid": 3}
            started = time.perf_counter()
            await store.append_action(ActionRow(game_id, seq, seq % 4, action), fence=fence)
            latencies.append(time.perf_counter() - started)

    commits = store.commits
    started = time.perf_counter()
    await asyncio.gather(*(room(g) for g in games))
    seconds = time.perf_counter() - started
    return Result(label, rooms, rooms * actions, seconds, latencies, store.commits - commits)


async def bench_url(
    url: str,
    label: str,
    room_counts: list[int],
    appends: int,
    think_ms: float,
    group: bool,
    fence: int | None = None,
) -> list[Result]:
    store = await open_store(url)
    if not group:
        store.max_batch = 1
        label += "/1"
    if fence is not None:
        label += "/f"
    try:
        results = []
        for rooms in room_counts:
            actions = max(10, -(-appends // rooms))
            result = await run_rooms(store, label, rooms, actions, think_ms, fence)
            print(result.line(), flush=True)
            results.append(result)
        return results
    finally:
        await store.close()


async def pg_admin(url: str, sql: str) -> None:
    import asyncpg

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn, timeout=3)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.store", description=__doc__)
    parser.add_argument("--rooms", default="1,10,50,200", help="room counts, comma-separated")
    parser.add_argument("--appends", type=int, default=3000, help="appends per run (all rooms)")
    parser.add_argument("--think-ms", type=float, default=0, help="mean pause between actions")
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL admin URL")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    parser.add_argument(
        "--no-group",
        action="store_true",
        help="one commit per append (group commit off), for comparison",
    )
    parser.add_argument(
        "--fence", action="store_true", help="claim each room and fence every append"
    )
    parser.add_argument("--sqlite-dir", help="folder for the SQLite file (default: a temp dir)")
    args = parser.parse_args(argv)
    room_counts = [int(n) for n in args.rooms.split(",") if n]
    group = not args.no_group
    fence = 1 if args.fence else None

    print(
        f"store append bench: {args.appends} appends per run, rooms {room_counts}, "
        f"think {args.think_ms:g} ms, group commit {'on' if group else 'off'}"
    )
    with tempfile.TemporaryDirectory(dir=args.sqlite_dir) as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        upgrade(url)
        asyncio.run(
            bench_url(url, "sqlite", room_counts, args.appends, args.think_ms, group, fence)
        )

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
        asyncio.run(
            bench_url(url, "postgresql", room_counts, args.appends, args.think_ms, group, fence)
        )
    finally:
        asyncio.run(pg_admin(args.pg, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    return 0


if __name__ == "__main__":
    sys.exit(main())
