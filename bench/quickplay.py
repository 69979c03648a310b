"""Quick play on a cluster: players queue over a spread of time on N processes (each player
on one process, alternately, straight to it) and poll until seated; every player must be
seated, and the wait from "enough players queued" to "seated" is measured.

    python -m bench.quickplay [--players 2000] [--spread 60] [--processes 2] [--repeat 3]

Every player has the default rating, so each table is four players in the order they
queued: a table's "enough" is the time its fourth player's join was answered, and each of
its players' wait ends with the poll that hands them their seat. Each poll waits for the
seat (`?wait=`, as the web client's do) and the next is sent at once; `--wait 0` polls
every `--poll` seconds instead (the figure then includes up to that much polling delay).
Tables are left alone once seated (no turn timer). Prints one JSON line per run, then the
min / median / max over the runs.
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


RETRIED: set[str] = set()  # players one of whose requests was sent again


async def ask(http: httpx.AsyncClient, method: str, url: str, **kw: Any) -> httpx.Response:
    """One request, sent again when a kept-alive connection was closed under it."""
    for attempt in range(3):
        try:
            return await http.request(method, url, **kw)
        except httpx.TransportError:
            RETRIED.add(kw["headers"][HEADER])
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


class LostAnswer(Exception):
    pass


REQUESTS = [0]  # requests sent, retries included


async def play_now(
    http: httpx.AsyncClient, url: str, credential: str, poll: float, wait: float
) -> tuple[float, float, str]:
    """Queue, poll until seated: (join answered at, seated at, room code)."""
    headers = {HEADER: credential}
    body = {"mode": "partnership", "target": 300}
    REQUESTS[0] += 1
    response = await ask(http, "POST", f"{url}/api/quickplay", json=body, headers=headers)
    if response.status_code != 409:  # (409: queued by a first try whose answer was lost)
        response.raise_for_status()
    joined = time.monotonic()
    state = response.json() if response.status_code == 200 else {"status": "waiting"}
    params = {"wait": wait} if wait > 0 else None
    while state["status"] != "matched":
        if not params:
            await asyncio.sleep(poll)
        REQUESTS[0] += 1
        response = await ask(http, "GET", f"{url}/api/quickplay", headers=headers, params=params)
        if response.status_code == 404 and credential in RETRIED:
            raise LostAnswer  # (a seat is handed again: this is a real loss)
        response.raise_for_status()
        state = response.json()
    return joined, time.monotonic(), str(state["code"])


async def run_once(args: argparse.Namespace) -> dict[str, Any]:
    extra = {
        "SPADES_QUICKPLAY_TURN_SECONDS": "0",
        "SPADES_GRACE_SECONDS": "100000",
        "SPADES_QUICKPLAY_TICK": "0.5",
    }
    cluster = ClusterServer(args.processes, extra=extra)
    REQUESTS[0] = 0
    load_before = os.getloadavg()[0]
    try:
        await cluster.wait_ready()
        urls = [node.url for node in cluster.nodes]
        # As many connections as players (a browser has its own): a poll that waits holds
        # its connection, and a pool smaller than the players waiting would queue the joins
        # behind their polls. (The server closes a connection idle for 5 s: never reused so
        # late.)
        limits = httpx.Limits(
            max_connections=None, max_keepalive_connections=None, keepalive_expiry=2.0
        )
        async with httpx.AsyncClient(timeout=60, limits=limits) as http:
            credentials = await make_players(http, urls, args.players)
            cluster.cpu_percent()
            start = time.monotonic()
            gap = args.spread / max(1, args.players)

            async def player(i: int) -> tuple[float, float, str] | None:
                await asyncio.sleep(i * gap)
                try:  # a player not seated in `--give-up` seconds counts as not seated
                    return await asyncio.wait_for(
                        play_now(http, urls[i % len(urls)], credentials[i], args.poll, args.wait),
                        args.give_up,
                    )
                except (TimeoutError, LostAnswer):
                    return None

            found = await asyncio.gather(*(player(i) for i in range(args.players)))
            results = [r for r in found if r is not None]
            took = time.monotonic() - start
            cpu = cluster.cpu_percent()
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
        "requests_sent_again": len(RETRIED),
        "seconds": round(took, 1),
        "wait_ms": percentiles(waits),
        "cpu_percent_sum": round(cpu, 1),
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
    }
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
