"""The cost of the sanction check each sit, chat and quick chat now pays (a read of the
sanctions in force; `rooms.moderation.check`).

    python -m bench.sanction_check [--checks 500] [--runs 3] [--pg URL] [--no-pg]

For each database (a fresh SQLite file; PostgreSQL in a throwaway database when the server
answers), with 50 player sanctions and 20 address ranges in force (more than a small
site's), `--checks` checks are awaited one after another for a player who is not
sanctioned, from an address in no range: the common case, which must stay cheap. Printed:
the time per check, min / median / max over `--runs` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.engine import make_url

from bench.store import DEFAULT_PG, pg_admin
from spades.rooms.moderation import check
from spades.store import PlayerRow, open_store, upgrade
from spades.store.protocol import SanctionRow


async def bench_url(url: str, label: str, checks: int, runs: int) -> None:
    store = await open_store(url)
    try:
        ends = datetime.now(UTC) + timedelta(hours=1)
        for n in range(50):
            await store.create_player(PlayerRow(id=f"bad{n}", secret_hash="bench"))
            row = SanctionRow(kind="ban", reason="bench", ends_at=ends, player_id=f"bad{n}")
            await store.add_sanction(row)
        for n in range(20):
            net = SanctionRow(kind="ban", reason="bench", ends_at=ends, network=f"10.{n}.0.0/16")
            await store.add_sanction(net)
        await store.create_player(PlayerRow(id="good", secret_hash="bench"))
        per_check = []
        for _ in range(runs):
            started = time.perf_counter()
            for _ in range(checks):
                await check(store, "good", "192.0.2.7", chat=True)
            per_check.append((time.perf_counter() - started) / checks * 1000)
        spread = f"{min(per_check):.3f} / {statistics.median(per_check):.3f} / {max(per_check):.3f}"
        print(f"{label:<12} ms per check, min / median / max of {runs}: {spread}", flush=True)
    finally:
        await store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sanction_check", description=__doc__)
    parser.add_argument("--checks", type=int, default=500, help="checks per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL admin URL")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    args = parser.parse_args(argv)
    print(f"sanction check bench: {args.checks} checks per run, {args.runs} runs")
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        upgrade(url)
        asyncio.run(bench_url(url, "sqlite", args.checks, args.runs))
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
        asyncio.run(bench_url(url, "postgresql", args.checks, args.runs))
    finally:
        asyncio.run(pg_admin(args.pg, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    return 0


if __name__ == "__main__":
    sys.exit(main())
