"""What bench.load and bench.cluster both need to run servers: a free port, an HTTP client,
a throwaway PostgreSQL database, and the CPU a server process (and its children) used.

Its own module so that neither of the two imports the other for these.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

HOST = "127.0.0.1"
PG_ADMIN = os.environ.get(
    "SPADES_BENCH_PG_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def http_client(timeout: float) -> httpx.AsyncClient:
    """An HTTP client for the benches. The server (uvicorn) closes a keep-alive connection
    after 5 s of quiet, and httpx by default keeps one for 5 s too: on a loaded machine a
    POST could go out on a connection the server was closing, and fail with a ReadError
    (httpx retries no POST). Dropping idle connections after 2 s leaves the server's side
    a wide margin."""
    return httpx.AsyncClient(timeout=timeout, limits=httpx.Limits(keepalive_expiry=2.0))


def pg_admin(sql: str) -> None:
    """Run one statement (CREATE or DROP DATABASE) as PG_ADMIN."""
    import asyncpg
    from sqlalchemy.engine import make_url

    async def run() -> None:
        dsn = make_url(PG_ADMIN).set(drivername="postgresql").render_as_string(False)
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    # In a thread of its own: callers may be inside an event loop already.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run()).result()


class ChildrenCpu:
    """CPU a process's children (its store's writer process) use: they work for the
    server, so the figures report it beside the server's own."""

    def __init__(self) -> None:
        self._last: tuple[float, dict[int, float]] = (time.monotonic(), {})

    def percent(self, parent: int) -> float | None:
        """CPU % of one core used since the last call; a child that appeared meanwhile
        counts from its start. None when there is no child."""
        now, seen = time.monotonic(), {}
        path = f"/proc/{parent}/task/{parent}/children"
        with contextlib.suppress(OSError), open(path) as fh:
            for pid in fh.read().split():
                with contextlib.suppress(OSError):
                    seen[int(pid)] = proc_cpu_seconds(int(pid))
        then, before = self._last
        self._last = (now, seen)
        if not seen:
            return None
        used = sum(cpu - before.get(pid, 0.0) for pid, cpu in seen.items())
        return 100.0 * used / max(now - then, 1e-9)


def proc_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc."""
    return sum(proc_cpu_split(pid))


def proc_cpu_split(pid: int) -> tuple[float, float]:
    """User and system (kernel) CPU seconds of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as fh:
        parts = fh.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(parts[11]) / ticks, int(parts[12]) / ticks
