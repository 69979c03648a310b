"""A reconnect storm (issue 58): four-human rooms on a two-process cluster behind HAProxy,
and a `kill -9` of the process that owns the most of them.

    python -m bench.cluster storm --rooms 1000 --repeat 3

The players are bench.load's (`SeatClient`, every socket through HAProxy), and reconnect as
the web client does (client/js/connection.js): after a plain close (the process died) with
its backoff from 0.5 s, after a 4012 at once. So the victim's players, about half of them,
all lose their socket in the same instant and come back together.

What is measured, from the kill:
- each of the victim's players is *playing again* at the first state or event they receive
  whose seq is past the highest seq their room had reached before the kill: their socket is
  back, and the room, claimed by the survivor, has taken an action again and shown it to
  them (the first action after a reconnect goes without thinking: what counts is when the
  room takes actions again); p50 / p99 / max, and how many were not back within `--after`;
- acknowledged actions lost: every action a player's socket was answered for (a state or
  event carrying its id as `ref`) must be in the store's log afterwards (0 expected);
- the survivor's action latency, second by second from the kill: p99 of the actions sent in
  that second (send to every seat of the room having it), for the rooms it held before (their
  players kept their sockets) and for all rooms; the second from which it stays under
  100 ms; and its own histogram (`spades_action_latency_seconds`, scraped each second).

One JSON line per run, and min / median / max over `--repeat` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import time
from typing import Any

import httpx

from bench.cluster import REDIS_URL, ClusterServer, cluster_settings, logged_seqs, percentiles
from bench.load import CpuMeter, Fleet, SeatClient, run, scrape, server_side
from bench.procs import http_client

UNDER_MS = 100.0  # the survivor's p99 target


class Watch:
    """What every player saw after the kill (`Fleet.watch`: told of each state and event)."""

    def __init__(self) -> None:
        self.killed_at: float | None = None  # time.perf_counter()
        self.victim_rooms: dict[str, int] = {}  # code -> the highest seq seen before the kill
        self.back: dict[int, float] = {}  # id(seat) -> seconds from the kill to playing again
        self.acks: list[tuple[str, int]] = []  # (room, seq) of every acknowledged action

    def seen(self, seat: SeatClient, seq: int, acknowledged: bool) -> None:
        if acknowledged:
            self.acks.append((seat.room.code, seq))
        if self.killed_at is None or id(seat) in self.back:
            return
        before = self.victim_rooms.get(seat.room.code)
        if before is not None and seq > before:
            self.back[id(seat)] = time.perf_counter() - self.killed_at


def owners(cluster: ClusterServer, codes: list[str]) -> dict[str, int | None]:
    """Which process (index) holds each room's lease now."""
    import redis

    r = redis.Redis.from_url(REDIS_URL)
    values = r.mget([f"{cluster.prefix}lease:{code}" for code in codes])
    out: dict[str, int | None] = {}
    for code, value in zip(codes, values, strict=True):
        out[code] = None
        for node in cluster.nodes:
            if value is not None and value.decode().startswith(f"n{node.index}-"):
                out[code] = node.index
    return out


def per_second(samples: list[tuple[float, float]], seconds: int) -> list[float | None]:
    """p99 (ms) of the latencies sent in each second after the kill: (sent, latency) pairs,
    sent in seconds from the kill."""
    buckets: list[list[float]] = [[] for _ in range(seconds)]
    for sent, latency in samples:
        if 0 <= sent < seconds:
            buckets[int(sent)].append(latency)
    out: list[float | None] = []
    for bucket in buckets:
        if not bucket:
            out.append(None)
            continue
        bucket.sort()
        out.append(round(bucket[min(len(bucket) - 1, int(0.99 * len(bucket)))] * 1000, 1))
    return out


def under_from(series: list[float | None], limit: float = UNDER_MS) -> int | None:
    """The first second from which every later second's p99 is under `limit` (None: the
    last one is not). A second in which no action was sent, or none answered, is not."""
    start = None
    for i, value in enumerate(series):
        if value is None or value >= limit:
            start = None
        elif start is None:
            start = i
    return start


async def survivor_histogram(
    url: str, seconds: int, out: list[float | None], lag: list[float | None]
) -> None:
    """The survivor's own p99 action latency and its longest event loop lag (upper bucket
    bounds, ms) each second."""
    before = await asyncio.to_thread(scrape, url)
    for _ in range(seconds):
        await asyncio.sleep(1.0)
        try:
            after = await asyncio.to_thread(scrape, url)
        except httpx.HTTPError:
            out.append(None)
            lag.append(None)
            continue
        figures = server_side(before, after)
        out.append(figures["action_ms_p99_le"])
        lag.append(figures["loop_lag_ms_max_le"])
        before = after


async def own_lag(seconds: int, out: list[float]) -> None:
    """This generator's own event loop lag (ms), the longest each second: a late loop
    delays every player it drives, the survivor's own included."""
    loop = asyncio.get_running_loop()
    for _ in range(seconds):
        worst, end = 0.0, loop.time() + 1.0
        while loop.time() < end:
            before = loop.time()
            await asyncio.sleep(0.05)
            worst = max(worst, loop.time() - before - 0.05)
        out.append(round(worst * 1000, 1))


async def storm(args: argparse.Namespace) -> dict[str, Any]:
    load_before = os.getloadavg()
    cluster = ClusterServer(args.processes, extra=cluster_settings(args))
    fleet = Fleet(cluster.url, "basic", 10_000, "humans", args.think, args.seed, spread=args.spread)
    watch = fleet.watch = Watch()
    try:
        await cluster.wait_ready()
        started = time.monotonic()
        async with http_client(120) as client:
            await fleet.add_rooms(client, 0, args.rooms)
        opened = time.monotonic() - started
        print(f"opened {args.rooms} rooms in {opened:.1f} s", flush=True)
        fleet.start_games()
        await asyncio.sleep(args.warmup)
        rooms = {c.room.code: c.room for c in fleet.clients}
        held = await asyncio.to_thread(owners, cluster, list(rooms))
        counts = {n.index: sum(1 for o in held.values() if o == n.index) for n in cluster.nodes}
        victim = max(cluster.nodes, key=lambda n: counts[n.index])
        survivor = next(n for n in cluster.nodes if n is not victim)
        for code in rooms:
            if held[code] == victim.index:
                watch.victim_rooms[code] = max(c.seq for c in fleet.clients if c.room.code == code)
        theirs = [c for c in fleet.clients if c.room.code in watch.victim_rooms]
        fleet.stats.timed = []
        histogram: list[float | None] = []
        lag: list[float | None] = []
        scraper = asyncio.create_task(
            survivor_histogram(survivor.url, int(args.after), histogram, lag)
        )
        assert victim.proc is not None and survivor.proc is not None
        profile = os.environ.get("SPADES_BENCH_PROFILE")  # py-spy's raw stacks of the survivor
        if profile:
            spy_binary = os.environ.get("SPADES_BENCH_PY_SPY", "py-spy")
            pid = str(survivor.proc.pid)
            seconds = os.environ.get("SPADES_BENCH_PROFILE_SECONDS", str(int(args.after)))
            spy = subprocess.Popen(
                [spy_binary, "record", "--format", "raw", "-p", pid, "-d", seconds, "-o", profile],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            await asyncio.sleep(1.0)
        print(f"kill at {time.time():.1f}", flush=True)
        watch.killed_at = time.perf_counter()
        victim.proc.kill()
        await asyncio.to_thread(victim.proc.wait)
        meter = CpuMeter()
        generator_lag: list[float] = []
        lagging = asyncio.create_task(own_lag(int(args.after), generator_lag))
        await asyncio.sleep(args.after)
        generator_cpu = meter.percent()
        # The generator's own loop may run late under the storm: what it measured past
        # `--after` seconds from the kill is left out, and the window's real length shown.
        window = time.perf_counter() - watch.killed_at
        await scraper
        lagging.cancel()
        if profile:
            await asyncio.to_thread(spy.wait)
        load_after = os.getloadavg()
        await fleet.finish()
        back = [watch.back[id(c)] for c in theirs if watch.back.get(id(c), math.inf) <= args.after]
        kill = watch.killed_at
        own, every = [], []
        for sent, latency, code in fleet.stats.timed:
            if sent < kill:
                continue
            every.append((sent - kill, latency))
            if code not in watch.victim_rooms:
                own.append((sent - kill, latency))
        seconds = int(args.after)
        own_series, all_series = per_second(own, seconds), per_second(every, seconds)
        logged = await logged_seqs(cluster, list(rooms))
        lost = sum(1 for code, seq in watch.acks if seq > logged.get(code, 0))
        result = {
            "measure": "reconnect storm: kill -9 of one process of two",
            "processes": args.processes,
            "rooms": args.rooms,
            "rooms_on_victim": len(watch.victim_rooms),
            "rooms_on_survivor": counts[survivor.index],
            "players_of_victim": len(theirs),
            "haproxy_checks": os.environ.get("SPADES_BENCH_CHECK") or "as shipped",
            "lease_ttl_s": args.lease_ttl,
            "orphan_sweep_s": args.orphan_sweep,
            "ms_until_playing_again": percentiles(back),
            "players_not_back": len(theirs) - len(back),
            "acknowledged_actions": len(watch.acks),
            "actions_lost": lost,
            "survivor_p99_ms_per_s_own_rooms": own_series,
            "survivor_p99_ms_per_s_all_rooms": all_series,
            "survivor_histogram_p99_le_ms_per_s": histogram,
            "survivor_loop_lag_max_le_ms_per_s": lag,
            "survivor_under_100ms_from_s_own_rooms": under_from(own_series),
            "survivor_under_100ms_from_s_all_rooms": under_from(all_series),
            "errors": dict(fleet.stats.errors),
            "window_s": round(window, 1),
            "generator_cpu_percent": round(generator_cpu, 1),
            "generator_loop_lag_max_ms_per_s": generator_lag,
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in load_after],
        }
        print(json.dumps(result), flush=True)
        return result
    finally:
        await fleet.finish()
        cluster.stop()


def spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"min": None, "median": None, "max": None}
    ordered = sorted(values)
    return {"min": ordered[0], "median": ordered[len(ordered) // 2], "max": ordered[-1]}


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """min / median / max over the runs of each run's figures, and the totals."""

    def of(key: str, sub: str | None = None) -> dict[str, float | None]:
        values = []
        for r in results:
            value = r[key][sub] if sub is not None else r[key]
            if value is not None:
                values.append(value)
        return spread(values)

    return {
        "measure": f"{results[0]['measure']}, {len(results)} runs",
        "rooms": results[0]["rooms"],
        "playing_again_p50_ms": of("ms_until_playing_again", "p50"),
        "playing_again_p99_ms": of("ms_until_playing_again", "p99"),
        "playing_again_max_ms": of("ms_until_playing_again", "max"),
        "players_not_back": sum(r["players_not_back"] for r in results),
        "actions_lost": sum(r["actions_lost"] for r in results),
        "survivor_under_100ms_from_s_own_rooms": of("survivor_under_100ms_from_s_own_rooms"),
        "survivor_under_100ms_from_s_all_rooms": of("survivor_under_100ms_from_s_all_rooms"),
        "load_average_1min": spread([r["load_average_after"][0] for r in results]),
    }


def main(args: argparse.Namespace) -> None:
    """bench.cluster's `storm` (its options: --rooms, --think, --warmup, --after, --repeat)."""
    results: list[dict[str, Any]] = []

    async def one() -> None:
        results.append(await storm(args))

    for i in range(args.runs):
        if args.runs > 1:
            print(f"run {i + 1} of {args.runs}", flush=True)
        run(one())
    if len(results) > 1:
        print(json.dumps(summary(results)), flush=True)
