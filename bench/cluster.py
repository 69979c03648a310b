"""A cluster to load: N `spades serve` processes on PostgreSQL + Redis behind HAProxy (from
deploy/haproxy.cfg), and the failover and rolling-restart measurements.

    python -m bench.load --cluster 2 --rooms 1000 ...   # bench.load through HAProxy
    python -m bench.cluster failover --rooms 300        # kill -9 of a process holding 300 rooms
    python -m bench.cluster failover --repeat 3 --signal stop   # SIGSTOP of it instead

The lease ttl and the orphan sweep's period are docker-compose.yml's unless given, so the
failover measured is the one the shipped settings give.
    python -m bench.cluster rolling --rooms 50          # SIGTERM + restart of every process
    python -m bench.cluster storm --rooms 1000 --repeat 3   # kill -9 under four-human rooms
                                                        # (bench/storm.py)

Each run makes a throwaway PostgreSQL database and a random Redis key prefix, and removes
both at the end. 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.procs import (
    HOST,
    PG_ADMIN,
    ChildrenCpu,
    free_port,
    http_client,
    pg_admin,
    proc_cpu_seconds,
)

REPO = Path(__file__).resolve().parents[1]
REDIS_URL = os.environ.get("SPADES_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")


def compose_setting(name: str) -> str | None:
    """A server setting as docker-compose.yml ships it (None: not set there)."""
    text = (REPO / "docker-compose.yml").read_text()
    found = re.search(rf"(?m)^\s+{name}:\s*\"?([^\"\s#]+)", text)
    return found.group(1) if found else None


def raise_file_limit() -> None:
    """Sockets are files: take the hard limit (the processes started inherit it)."""
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def haproxy_config(port: int, servers: list[int], health: list[int]) -> str:
    """deploy/haproxy.cfg with local ports instead of Docker's servers, each checked on its
    health port (SPADES_BENCH_HEALTH=loop: on its main port, where the event loop answers,
    as before the health port)."""
    text = (REPO / "deploy" / "haproxy.cfg").read_text()
    text = re.sub(r"\nresolvers docker\n(?:    .*\n)+", "\n", text)
    text = re.sub(r"(?m)^(\s*bind )\S+", rf"\g<1>{HOST}:{port}", text)
    # HAProxy takes as many connections as its file limit allows (raised to the hard
    # limit above), as the shipped file has it.
    if HEALTH_ON_LOOP:
        health = servers
    lines = "\n".join(
        f"    server s{i} {HOST}:{p} check port {c}"
        for i, (p, c) in enumerate(zip(servers, health, strict=True), 1)
    )
    text = re.sub(r"(?m)^\s*server-template .*$", lines, text)
    # An experiment, never the default: health checks that wait longer and fail more
    # often before a server is taken out (bench.storm: what a busy survivor does when
    # HAProxy leaves it in).
    fall, wait = CHECK_OVERRIDE
    if fall:
        text = re.sub(r"(?m)^(\s*default-server .*)\bfall \d+", rf"\g<1>fall {fall}", text)
        text = re.sub(r"(?m)^\s*timeout check .*$", f"    timeout check {wait:g}s", text)
    return text


HEALTH_ON_LOOP = os.environ.get("SPADES_BENCH_HEALTH", "") == "loop"

# SPADES_BENCH_CHECK="FALL,SECONDS": HAProxy's `fall` and `timeout check` instead of the
# shipped file's (bench.storm's experiment); unset: as shipped.
_check = os.environ.get("SPADES_BENCH_CHECK", "")
CHECK_OVERRIDE = (int(_check.split(",")[0]), float(_check.split(",")[1])) if _check else (0, 0.0)


class Node:
    def __init__(self, index: int, env: dict[str, str], log: Path) -> None:
        self.index = index
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.health_port = free_port()
        self.env = {
            **env,
            "SPADES_NODE_ID": f"n{index}",
            "SPADES_HEALTH_PORT": str(self.health_port),
        }
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self._last_cpu = (time.monotonic(), 0.0)
        self.children = ChildrenCpu()

    def start(self) -> None:
        with self.log.open("ab") as out:
            command = [sys.executable, "-m", "spades.cli", "serve", "--host", HOST]
            command += [
                "--port",
                str(self.port),
                "--log-level",
                os.environ.get("SPADES_BENCH_LOG_LEVEL", "warning"),
            ]
            self.proc = subprocess.Popen(
                command,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self._last_cpu = (time.monotonic(), 0.0)

    def ready(self) -> bool:
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200
        return False

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while not self.ready():
            assert self.proc is not None
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"node {self.index} did not start: see {self.log}")
            time.sleep(0.1)

    def cpu_seconds(self) -> float:
        assert self.proc is not None
        try:
            return proc_cpu_seconds(self.proc.pid)
        except OSError:
            return 0.0

    def cpu_percent(self) -> float:
        now, cpu = time.monotonic(), self.cpu_seconds()
        then, before = self._last_cpu
        self._last_cpu = (now, cpu)
        return 100.0 * (cpu - before) / max(now - then, 1e-9)

    def rss_bytes(self) -> int:
        assert self.proc is not None
        try:
            with open(f"/proc/{self.proc.pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def stop(self, sig: int = signal.SIGINT) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(sig)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class ClusterServer:
    """What bench.load drives: the same face as its ServerProcess (url, cpu_percent,
    rss_bytes, wait_ready, stop), for N processes behind one HAProxy."""

    def __init__(self, size: int, bot_level: str = "basic", extra: dict[str, str] | None = None):
        self.tmp = Path(tempfile.mkdtemp(prefix="spades-cluster-"))
        self.database = f"spades_bench_{secrets.token_hex(5)}"
        from sqlalchemy.engine import make_url

        pg_admin(f'CREATE DATABASE "{self.database}"')
        url = make_url(PG_ADMIN).set(database=self.database).render_as_string(False)
        self.prefix = f"spades-bench-{secrets.token_hex(4)}:"
        env = dict(os.environ)
        env.update(
            SPADES_DATABASE_URL=url,
            SPADES_REDIS_URL=REDIS_URL,
            SPADES_REDIS_PREFIX=self.prefix,
            SPADES_BOT_DELAY="0",
            SPADES_ROOMS_PER_MINUTE="1000000",
            SPADES_JOINS_PER_MINUTE="1000000",
            SPADES_LOOKUPS_PER_MINUTE="1000000",
            SPADES_SOCKETS_PER_ADDRESS="0",  # every simulated player comes from 127.0.0.1
            SPADES_HTTP_CONNECTIONS_PER_ADDRESS="0",
            SPADES_MESSAGES_PER_SECOND="1000",
            SPADES_MESSAGE_BURST="1000",
            SPADES_ABANDON_AFTER="100000",
            SPADES_CLUSTER_SECRET=secrets.token_urlsafe(24),  # sealed, as compose runs it
            **(extra or {}),
        )
        subprocess.run(
            [sys.executable, "-m", "spades.cli", "db", "upgrade"],
            env=env,
            check=True,
            capture_output=True,
        )
        self.nodes = [Node(i, env, self.tmp / f"node{i}.log") for i in range(1, size + 1)]
        for node in self.nodes:
            node.start()
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.metric_urls = [n.url for n in self.nodes]
        self.haproxy: subprocess.Popen[bytes] | None = None

    async def wait_ready(self, client: httpx.AsyncClient | None = None) -> None:
        for node in self.nodes:
            await asyncio.to_thread(node.wait_ready)
        cfg = self.tmp / "haproxy.cfg"
        ports, health = [n.port for n in self.nodes], [n.health_port for n in self.nodes]
        cfg.write_text(haproxy_config(self.port, ports, health))
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        self.haproxy = subprocess.Popen(
            [binary, "-db", "-f", str(cfg)],
            stdout=(self.tmp / "haproxy.log").open("ab"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        async with httpx.AsyncClient() as http:
            while time.monotonic() < deadline:
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(f"{self.url}/healthz")).status_code == 200:
                        return
                await asyncio.sleep(0.1)
        raise RuntimeError("haproxy did not come up")

    def cpu_percent(self) -> float:
        """CPU % (of one core) of every process since the last call, summed."""
        self.last_cpu = [n.cpu_percent() for n in self.nodes]
        return sum(self.last_cpu)

    def children_cpu_percent(self) -> float | None:
        """CPU % (of one core) of the processes' writer processes since the last call."""
        found = [n.children.percent(n.proc.pid) for n in self.nodes if n.proc is not None]
        used = [c for c in found if c is not None]
        return sum(used) if used else None

    def rss_bytes(self) -> int:
        return sum(n.rss_bytes() for n in self.nodes)

    def per_process(self) -> list[dict[str, Any]]:
        """Each process's CPU % over the last cpu_percent() window, and its memory now."""
        cpu = getattr(self, "last_cpu", [None] * len(self.nodes))
        return [
            {
                "node": n.index,
                "cpu_percent": None if c is None else round(c, 1),
                "rss_mb": round(n.rss_bytes() / 2**20, 1),
            }
            for n, c in zip(self.nodes, cpu, strict=True)
        ]

    def stop(self) -> None:
        if self.haproxy is not None:
            self.haproxy.kill()
            self.haproxy.wait()
        for node in self.nodes:
            node.stop()
        with contextlib.suppress(Exception):
            import redis

            r = redis.Redis.from_url(REDIS_URL)
            keys = list(r.scan_iter(match=f"{self.prefix}*", count=1000))
            if keys:
                r.delete(*keys)
        with contextlib.suppress(Exception):
            pg_admin(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
        if os.environ.get("SPADES_BENCH_KEEP_LOGS"):
            print(f"logs kept in {self.tmp}", flush=True)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def owner_of(self, code: str) -> int | None:
        import redis

        value = redis.Redis.from_url(REDIS_URL).get(f"{self.prefix}lease:{code}")
        if value is None:
            return None
        holder = value.decode()
        for node in self.nodes:
            if holder.startswith(f"n{node.index}-"):
                return node.index
        return None


# --- failover and rolling restart ------------------------------------------------------


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p99": None, "max": None, "n": 0}
    ordered = sorted(values)

    def q(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000, 1)

    return {"p50": q(0.5), "p99": q(0.99), "max": round(ordered[-1] * 1000, 1), "n": len(ordered)}


class Seat:
    """One human seat of a solo room, played through HAProxy; reconnects on any close."""

    def __init__(
        self, base: str, code: str, token: str, think: float, first: str | None = None
    ) -> None:
        self.ws_url = base.replace("http", "ws", 1) + f"/ws/{code}"
        # The first connection may go straight to one process (the room's owner, so that
        # the room stays there instead of moving to the process HAProxy picks).
        self.first_url = (first or base).replace("http", "ws", 1) + f"/ws/{code}"
        self.code = code
        self.token = token
        self.think = think
        self.acks: list[tuple[float, int]] = []  # (when, seq) of each accepted action of ours
        self.sent_at: dict[str, float] = {}
        self.waits: list[tuple[float, float]] = []  # (sent, waited) per accepted action
        self.stopped = False

    async def run(self) -> None:
        from websockets.asyncio.client import connect

        url = self.first_url
        while not self.stopped:
            try:
                async with connect(url, open_timeout=10) as ws:
                    url = self.ws_url
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    pending: str | None = None
                    held: dict[str, Any] | None = None  # the view as the client holds it
                    # The first action after a (re)connect goes at once: what is measured
                    # is when the room takes actions again, not the player's thinking.
                    fresh = True
                    while not self.stopped:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                        if msg["type"] == "error" and msg.get("ref") == pending:
                            pending = None
                            continue
                        if msg["type"] == "event" and held is not None:
                            # What changed: apply it to the view held (docs/protocol.md).
                            view = {**held, **msg["view"], **msg.get("you", {})}
                            msg = {**msg, "view": view}
                        elif msg["type"] != "state":
                            continue
                        elif held is not None and msg.get("view") is not None:
                            msg = {**msg, "view": {**held, **msg["view"]}}
                        held = msg.get("view")
                        if pending is not None and msg.get("ref") == pending:
                            now = time.monotonic()
                            sent = self.sent_at.pop(pending)
                            self.acks.append((now, msg["seq"]))
                            self.waits.append((sent, now - sent))
                            pending = None
                        view = held or {}
                        legal = view.get("legal")
                        if pending is None and legal:
                            if not fresh:
                                await asyncio.sleep(self.think)
                            fresh = False
                            action = _choose(view)
                            pending = secrets.token_hex(4)
                            self.sent_at = {pending: time.monotonic()}
                            await ws.send(json.dumps({**action, "id": pending}))
            except Exception:
                await asyncio.sleep(0.05)


def _choose(view: dict[str, Any]) -> dict[str, Any]:
    legal = view["legal"]
    if legal[0]["type"] == "look":
        return {"type": "look"}
    if {"type": "bid", "bid": 2} in legal:
        return {"type": "bid", "bid": 2}
    return dict(legal[0])


async def logged_seqs(cluster: ClusterServer, codes: list[str]) -> dict[str, int]:
    """The last stored seq of each room's game (the log has no gaps: seq is its count)."""
    import asyncpg
    from sqlalchemy.engine import make_url

    dsn = make_url(PG_ADMIN).set(drivername="postgresql", database=cluster.database)
    conn = await asyncpg.connect(dsn.render_as_string(False))
    try:
        rows = await conn.fetch(
            "SELECT g.room_id, max(a.seq) AS last, count(*) AS n FROM actions a "
            "JOIN games g ON g.id = a.game_id WHERE g.room_id = ANY($1) GROUP BY g.room_id",
            codes,
        )
    finally:
        await conn.close()
    out = {}
    for row in rows:
        assert row["last"] == row["n"], f"room {row['room_id']}: a gap in the log"
        out[row["room_id"]] = int(row["last"])
    return out


async def open_rooms(cluster: ClusterServer, base: str, rooms: int) -> list[tuple[str, str]]:
    made = []
    sem = asyncio.Semaphore(20)
    async with http_client(60) as http:

        async def one(i: int) -> None:
            async with sem:
                body = {"name": f"p{i}", "target": 10_000}
                r = await http.post(f"{base}/api/solo", json=body)
                r.raise_for_status()
                made.append((r.json()["code"], r.json()["token"]))

        await asyncio.gather(*(one(i) for i in range(rooms)))
    return made


def cluster_settings(args: argparse.Namespace) -> dict[str, str]:
    return {
        "SPADES_LEASE_TTL": str(args.lease_ttl),
        "SPADES_ORPHAN_SWEEP_SECONDS": str(args.orphan_sweep),
    }


async def failover(args: argparse.Namespace) -> dict[str, Any]:
    paused = args.signal == "stop"
    extra = cluster_settings(args)
    if paused:  # the rooms stay on the victim, their sockets relayed where HAProxy lands
        extra["SPADES_FOLLOW_SOCKETS"] = "false"
    cluster = ClusterServer(args.processes, extra=extra)
    try:
        await cluster.wait_ready()
        victim = cluster.nodes[0]
        rooms = await open_rooms(cluster, victim.url, args.rooms)  # all owned by the victim
        # kill -9: each seat's first socket goes to the victim itself (the kernel closes it
        # with the process), later ones through HAProxy. SIGSTOP: a paused process's sockets
        # stay open, and only HAProxy (its health check) cuts those it carries, as it does
        # in production, where every socket goes through it.
        first = None if paused else victim.url
        seats = [Seat(cluster.url, code, token, args.think, first=first) for code, token in rooms]
        tasks = [asyncio.create_task(s.run()) for s in seats]
        await asyncio.sleep(args.warmup)
        before = [len(s.acks) for s in seats]
        assert all(n > 0 for n in before), "some rooms never played before the kill"
        assert victim.proc is not None
        killed_at = time.monotonic()
        if paused:  # paused, not dead: its sockets and subscription stay open
            victim.proc.send_signal(signal.SIGSTOP)
        else:
            victim.proc.kill()
            victim.proc.wait()
        await asyncio.sleep(args.after)
        if paused:
            victim.proc.send_signal(signal.SIGCONT)
        back = []
        stuck = 0
        for seat in seats:
            later = [when for when, _ in seat.acks if when > killed_at]
            if later:
                back.append(later[0] - killed_at)
            else:
                stuck += 1
        for seat in seats:
            seat.stopped = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        logged = await logged_seqs(cluster, [code for code, _ in rooms])
        lost = sum(1 for seat in seats for _, seq in seat.acks if seq > logged.get(seat.code, 0))
        result = {
            "measure": f"failover after {'SIGSTOP' if args.signal == 'stop' else 'kill -9'}",
            "processes": args.processes,
            "rooms": args.rooms,
            "lease_ttl_s": args.lease_ttl,
            "orphan_sweep_s": args.orphan_sweep,
            "ms_until_a_room_accepts_an_action": percentiles(back),
            "rooms_not_back": stuck,
            "acknowledged_actions": sum(len(s.acks) for s in seats),
            "actions_lost": lost,
            "load_average": os.getloadavg()[0],
        }
        print(json.dumps(result), flush=True)
        return result
    finally:
        cluster.stop()


async def rolling(args: argparse.Namespace) -> dict[str, Any]:
    cluster = ClusterServer(args.processes, extra=cluster_settings(args))
    try:
        await cluster.wait_ready()
        rooms = await open_rooms(cluster, cluster.url, args.rooms)
        seats = [Seat(cluster.url, code, token, args.think) for code, token in rooms]
        tasks = [asyncio.create_task(s.run()) for s in seats]
        await asyncio.sleep(args.warmup)
        started = time.monotonic()
        for node in cluster.nodes:
            await asyncio.to_thread(node.stop, signal.SIGTERM)
            node.start()
            await asyncio.to_thread(node.wait_ready)
            await asyncio.sleep(1.0)
        ended = time.monotonic()
        await asyncio.sleep(args.after)
        for seat in seats:
            seat.stopped = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        # Per player: the longest wait for an action of theirs to be accepted, during the
        # restarts (sent after they began, or still unanswered when they began).
        worst, calm = [], []
        for seat in seats:
            waits = [w for sent, w in seat.waits if sent + w >= started and sent <= ended + 5]
            worst.append(max(waits, default=0.0))
            # The same player before the restarts: what the machine's load alone costs.
            calm.append(max((w for sent, w in seat.waits if sent + w < started), default=0.0))
        logged = await logged_seqs(cluster, [code for code, _ in rooms])
        lost = sum(1 for seat in seats for _, seq in seat.acks if seq > logged.get(seat.code, 0))
        result = {
            "measure": "rolling restart (SIGTERM, start, next)",
            "processes": args.processes,
            "rooms": args.rooms,
            "restart_window_s": round(ended - started, 1),
            "per_player_longest_wait_ms": percentiles(worst),
            "per_player_longest_wait_before_ms": percentiles(calm),
            "load_average": os.getloadavg()[0],
            "acknowledged_actions": sum(len(s.acks) for s in seats),
            "actions_lost": lost,
        }
        print(json.dumps(result), flush=True)
        return result
    finally:
        cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description="Cluster failover / rolling-restart figures.")
    parser.add_argument("what", choices=["failover", "rolling", "storm"])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--rooms", type=int, default=300)
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each action")
    parser.add_argument(
        "--lease-ttl",
        type=float,
        default=float(compose_setting("SPADES_LEASE_TTL") or 5.0),
        help="default: docker-compose.yml's",
    )
    parser.add_argument(
        "--orphan-sweep",
        type=float,
        default=float(compose_setting("SPADES_ORPHAN_SWEEP_SECONDS") or 2.0),
        help="default: docker-compose.yml's",
    )
    parser.add_argument(
        "--signal", choices=["kill", "stop"], default="kill", help="failover: kill -9 or SIGSTOP"
    )
    parser.add_argument("--warmup", type=float, help="default: 8 s (storm: 40 s)")
    parser.add_argument("--after", type=float, help="seconds measured after (storm: 30)")
    parser.add_argument("--runs", "--repeat", dest="runs", type=int, default=1)
    parser.add_argument(
        "--spread", type=float, default=20.0, help="storm: seconds over which games start"
    )
    parser.add_argument("--seed", type=int, default=1, help="storm: the players' choices")
    args = parser.parse_args()
    args.rooms = min(args.rooms, 2000)
    storm = args.what == "storm"
    if args.warmup is None:
        args.warmup = 40.0 if storm else 8.0
    if args.after is None:
        args.after = 30.0 if storm else 12.0
    raise_file_limit()
    if storm:
        from bench import storm as reconnect_storm

        reconnect_storm.main(args)
        return
    results = []
    for _ in range(args.runs):
        results.append(asyncio.run(failover(args) if args.what == "failover" else rolling(args)))
    if args.what == "failover" and len(results) > 1:
        print(json.dumps(failover_summary(results)), flush=True)


def failover_summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """min / median / max over the runs of each run's p50, p99 and max, and the totals."""

    def spread(key: str) -> dict[str, float | None]:
        values = sorted(
            v for r in results if (v := r["ms_until_a_room_accepts_an_action"][key]) is not None
        )
        if not values:
            return {"min": None, "median": None, "max": None}
        return {"min": values[0], "median": values[len(values) // 2], "max": values[-1]}

    return {
        "measure": f"{results[0]['measure']}, {len(results)} runs",
        "lease_ttl_s": results[0]["lease_ttl_s"],
        "orphan_sweep_s": results[0]["orphan_sweep_s"],
        "rooms": results[0]["rooms"],
        "p50_ms": spread("p50"),
        "p99_ms": spread("p99"),
        "max_ms": spread("max"),
        "rooms_not_back": sum(r["rooms_not_back"] for r in results),
        "actions_lost": sum(r["actions_lost"] for r in results),
    }


if __name__ == "__main__":
    main()
