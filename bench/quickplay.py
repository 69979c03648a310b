"""Quick play on a cluster: players queue over a spread of time on N processes (each player
on one process, alternately, straight to it) and poll until seated; every player must be
seated, and the wait from "enough players queued" to "seated" is measured.

    python -m bench.quickplay [--players 2000] [--spread 60] [--processes 2] [--repeat 3]

Every player has the default rating, so each table is four players in the order they
queued: a table's "enough" is the time its fourth player's join was answered, and each of
its players' wait ends with the poll that hands them their seat. Each poll waits for the
seat (`?wait=`, as the web client's do) and the next is sent at once; `--wait 0` polls
every `--poll` seconds instead (the figure then includes up to that much polling delay).
Tables are left alone once seated (no turn timer). Each simulated player has its own
kept-alive connection, on a small HTTP client of its own (bench/rawhttp.py: httpx cost the
client process ten times the CPU, and a starved client's own delays were most of the figure
on a loaded machine). Beside the client's figure, the servers' own
(`spades_quickplay_seat_wait_seconds`: a table's last join to its seats handed over, no
client in it). Prints one JSON line per run, then the min / median / max over the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from typing import Any

import httpx

from bench.cluster import ClusterServer, percentiles, raise_file_limit
from bench.procs import http_client
from bench.rawhttp import Closed, Connection

HEADER = "X-Spades-Player"


async def make_players(http: httpx.AsyncClient, urls: list[str], count: int) -> list[str]:
    limit = asyncio.Semaphore(32)

    async def one(i: int) -> str:
        async with limit:
            for attempt in range(3):  # (a kept-alive connection closed under the request)
                try:
                    response = await http.post(
                        f"{urls[i % len(urls)]}/api/players", json={"name": f"P{i}"}
                    )
                    break
                except httpx.TransportError:
                    if attempt == 2:
                        raise
            response.raise_for_status()
            return str(response.json()["credential"])

    return list(await asyncio.gather(*(one(i) for i in range(count))))


RETRIED: set[str] = set()  # players one of whose joins was answered "queued already"
REQUESTS = [0]  # requests sent, retries included
FAILED: list[str] = []  # the first few players not seated, and why


class NotSeated(Exception):
    pass


async def play_now(url: str, credential: str, poll: float, wait: float) -> tuple[float, float, str]:
    """Queue, poll until seated, on a connection of the player's own (as a browser has):
    (join answered at, seated at, room code)."""
    conn = Connection(url, {HEADER: credential})
    try:
        REQUESTS[0] += 1
        status, state = await conn.request(
            "POST", "/api/quickplay", {"mode": "partnership", "target": 300}
        )
        joined = time.monotonic()
        if status == 409:  # queued by a first try whose answer was lost
            RETRIED.add(credential)
            state = {"status": "waiting"}
        elif status != 200:
            raise NotSeated(f"join: {status} {state}")
        path = f"/api/quickplay?wait={wait}" if wait > 0 else "/api/quickplay"
        while state["status"] != "matched":
            if wait <= 0:
                await asyncio.sleep(poll)
            REQUESTS[0] += 1
            status, state = await conn.request("GET", path)
            if status != 200:  # (a seat is handed again: a 404 here is a real loss)
                raise NotSeated(f"poll: {status} {state}")
        return joined, time.monotonic(), str(state["code"])
    finally:
        await conn.close()


def seat_wait_histogram(texts: list[str]) -> dict[str, Any]:
    """The servers' own figure, summed over the processes: `spades_quickplay_seat_wait_seconds`
    (a table's last join to its seats handed over), as the share of tables within 1 s and
    the bucket bounds that hold the p50 and the p99."""
    buckets: dict[float, float] = {}
    for text in texts:
        for line in text.splitlines():
            if line.startswith("spades_quickplay_seat_wait_seconds_bucket"):
                bound = line.split('le="', 1)[1].split('"', 1)[0]
                key = float("inf") if bound == "+Inf" else float(bound)
                buckets[key] = buckets.get(key, 0.0) + float(line.rsplit(" ", 1)[1])
    total = buckets.get(float("inf"), 0.0)
    if not total:
        return {"tables": 0}

    def bucket_of(q: float) -> float:
        return min(b for b, n in buckets.items() if n >= q * total)

    return {
        "tables": int(total),
        "within_1s": round(buckets.get(1.0, 0.0) / total, 4),
        "p50_at_most_s": bucket_of(0.5),
        "p99_at_most_s": bucket_of(0.99),
    }


async def run_once(args: argparse.Namespace) -> dict[str, Any]:
    extra = {
        "SPADES_QUICKPLAY_TURN_SECONDS": "0",
        "SPADES_GRACE_SECONDS": "100000",
        "SPADES_QUICKPLAY_TICK": "0.5",
    }
    cluster = ClusterServer(args.processes, extra=extra)
    REQUESTS[0] = 0
    RETRIED.clear()
    FAILED.clear()
    load_before = os.getloadavg()[0]
    try:
        await cluster.wait_ready()
        urls = [node.url for node in cluster.nodes]
        async with http_client(60) as http:
            credentials = await make_players(http, urls, args.players)
        cluster.cpu_percent()
        cpu_started = time.process_time()
        start = time.monotonic()
        gap = args.spread / max(1, args.players)

        async def player(i: int) -> tuple[float, float, str] | None:
            await asyncio.sleep(max(0.0, start + i * gap - time.monotonic()))
            try:  # a player not seated in `--give-up` seconds counts as not seated
                return await asyncio.wait_for(
                    play_now(urls[i % len(urls)], credentials[i], args.poll, args.wait),
                    args.give_up,
                )
            except (TimeoutError, NotSeated, Closed, OSError) as exc:
                if len(FAILED) < 5:
                    FAILED.append(repr(exc)[:300])
                return None

        found = await asyncio.gather(*(player(i) for i in range(args.players)))
        results = [r for r in found if r is not None]
        took = time.monotonic() - start
        client_cpu = time.process_time() - cpu_started
        cpu = cluster.cpu_percent()
        async with http_client(30) as http:
            texts = [(await http.get(f"{url}/metrics")).text for url in urls]
    finally:
        cluster.stop()
    tables: dict[str, list[tuple[float, float]]] = {}
    for joined, seated, code in results:
        tables.setdefault(code, []).append((joined, seated))
    waits = []
    for seats in tables.values():
        enough = max(joined for joined, _ in seats)
        waits += [max(0.0, seated - enough) for _, seated in seats]
    return {
        "players": args.players,
        "seated": len(results),
        "tables": len(tables),
        "full_tables": sum(1 for seats in tables.values() if len(seats) == 4),
        "requests": REQUESTS[0],
        "not_seated_why": list(FAILED),
        "joins_answered_queued_already": len(RETRIED),
        "seconds": round(took, 1),
        "wait_ms": percentiles(waits),
        "servers_seat_wait": seat_wait_histogram(texts),
        "cpu_percent_sum": round(cpu, 1),
        "client_cpu_percent": round(100 * client_cpu / max(took, 1e-9), 1),
        "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Quick play on a cluster: all seated, waits.")
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--spread", type=float, default=60.0, help="seconds the joins span")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--wait", type=float, default=30.0, help="seconds a poll may wait (the server cuts it)"
    )
    parser.add_argument(
        "--poll", type=float, default=0.25, help="with --wait 0: seconds between polls"
    )
    parser.add_argument("--give-up", type=float, default=60.0, help="seconds a player waits")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    args.players -= args.players % 4  # whole tables
    raise_file_limit()
    runs = []
    for _ in range(max(1, args.repeat)):
        result = asyncio.run(run_once(args))
        print(json.dumps(result), flush=True)
        runs.append(result)
    p99 = [r["wait_ms"]["p99"] for r in runs]
    p50 = [r["wait_ms"]["p50"] for r in runs]
    summary = {
        "repeat": len(runs),
        "all_seated": all(r["seated"] == r["players"] == 4 * r["full_tables"] for r in runs),
        "wait_p50_ms": [min(p50), statistics.median(p50), max(p50)],
        "wait_p99_ms": [min(p99), statistics.median(p99), max(p99)],
        "servers_within_1s": [r["servers_seat_wait"].get("within_1s") for r in runs],
    }
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
