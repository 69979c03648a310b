"""Load generator: R rooms over real WebSocket connections against a separate server process.

    python -m bench.load --kind humans --rooms 1000 --procs 2 --seconds 60 --warmup 30
    python -m bench.load --kind solo --rooms 500 --procs 2 --seconds 60 --warmup 30
    python -m bench.load --ramp --procs 2 --kind humans --start 1000 --step 200
    python -m bench.load --idle 1000            # resident memory per idle room
    python -m bench.load ... --postgres         # PostgreSQL at 127.0.0.1:5432, a throwaway database
    python -m bench.load ... --target 500       # games' target score (they end, start again)
    python -m bench.load ... --repeat 3         # 3 runs on fresh servers: min / median / max

The server runs as its own process (`spades serve`, uvicorn, bot delay 0); this process
drives the rooms. `humans`: four human clients per room; `solo`: one human and three bots.
Every human acts a think time after its turn comes (default 1 s, ±50 % jitter), and
chooses like the `basic` bot (`--players basic`, the default: bids and plays that make
their contracts, so a game to 500 lasts about nine hands, as between people who know the
game) or at random (`--players random`: contracts fail, games run to a hundred hands).
Latency is from sending an action to the moment every human seat of the room has received
the resulting `state` or `event` (seq past the one the action was sent on). Bounded in
rooms and time; talks only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

import httpx
import orjson
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from bench.procs import (
    HOST,
    PG_ADMIN,
    ChildrenCpu,
    free_port,
    http_client,
    pg_admin,
    proc_cpu_seconds,
    proc_cpu_split,
)
from spades.bots import decide
from spades.codes import CloseCode

try:  # the generator shares the machine with the server: spend as little CPU as it can
    import uvloop
except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
    uvloop = None  # type: ignore[assignment]

MAX_ROOMS = 5000
MAX_SECONDS = 1800
STALLED_AFTER = 30  # think times without an action: the room is stuck


# --- the server process --------------------------------------------------------------


class ServerProcess:
    # Seconds the server may take to answer /healthz (bench.instructions runs it under a
    # slow instruction counter).
    ready_seconds = 60.0

    def __init__(
        self,
        database_url: str,
        bot_level: str,
        *,
        prefix: list[str] | None = None,
        settings: dict[str, str] | None = None,
    ) -> None:
        """`prefix`: a command the server runs under (bench.instructions: valgrind);
        `settings`: more SPADES_* variables for it."""
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        env = dict(os.environ)
        env.update(
            SPADES_DATABASE_URL=database_url,
            SPADES_BOT_DELAY="0",
            SPADES_ROOMS_PER_MINUTE="1000000",
            SPADES_JOINS_PER_MINUTE="1000000",
            SPADES_LOOKUPS_PER_MINUTE="1000000",
            SPADES_SOCKETS_PER_ADDRESS="0",  # every simulated player comes from 127.0.0.1
            SPADES_HTTP_CONNECTIONS_PER_ADDRESS="0",
            SPADES_MESSAGES_PER_SECOND="1000",
            SPADES_MESSAGE_BURST="1000",
            SPADES_ABANDON_AFTER="100000",
        )
        env.update(settings or {})
        self.bot_level = bot_level
        self.proc = subprocess.Popen(
            [
                *(prefix or []),
                sys.executable,
                "-m",
                "spades.cli",
                "serve",
                "--host",
                HOST,
                "--port",
                str(self.port),
                "--log-level",
                "warning",
            ],
            env=env,
        )
        self._last_cpu = (time.monotonic(), self._cpu_seconds())
        self._last_system = proc_cpu_split(self.proc.pid)[1]
        # The kernel's share of the server's CPU since the last `cpu_percent` (socket
        # writes, and on loopback the receiving side of each, are most of it).
        self.system_share: float | None = None
        self._children = ChildrenCpu()

    async def wait_ready(self, client: httpx.AsyncClient) -> None:
        deadline = time.monotonic() + self.ready_seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the server exited during start-up")
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get(f"{self.url}/healthz")).status_code == 200:
                    return
            await asyncio.sleep(0.2)
        raise RuntimeError(f"the server did not become ready in {self.ready_seconds:.0f} s")

    def _cpu_seconds(self) -> float:
        return proc_cpu_seconds(self.proc.pid)

    def children_cpu_percent(self) -> float | None:
        """CPU % of one core the server's child processes (its writer process) used since
        the last call (`ChildrenCpu`)."""
        return self._children.percent(self.proc.pid)

    def cpu_percent(self) -> float:
        """CPU % of one core since the last call."""
        now, (user, system) = time.monotonic(), proc_cpu_split(self.proc.pid)
        cpu = user + system
        then, before = self._last_cpu
        self._last_cpu = (now, cpu)
        system_before, self._last_system = self._last_system, system
        used = cpu - before
        self.system_share = (system - system_before) / used if used > 0 else None
        return 100.0 * used / max(now - then, 1e-9)

    def rss_bytes(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# --- the clients -----------------------------------------------------------------------


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    disconnects: int = 0
    connections: int = 0
    game_hands: list[int] = field(default_factory=list)  # hands of each game that ended
    stalled: int = 0  # rooms with no action for STALLED_AFTER think times at the window's end
    # (sent, latency, room) of every action, when a bench asks for them (bench.storm)
    timed: list[tuple[float, float, str]] | None = None

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


@dataclass
class Pending:
    sent: float
    after_seq: int
    waiting: set[int]


class RoomDriver:
    """One room: its human connections and the action whose echo is awaited."""

    def __init__(
        self, code: str, seats: dict[int, str], stats: Stats, think: float, rng: random.Random
    ) -> None:
        self.code = code
        self.seats = seats  # seat -> token
        self.stats = stats
        self.think = think
        self.rng = rng
        self.pending: Pending | None = None
        self.last_acted = time.monotonic()

    def acted(self, seat: int, seq: int) -> None:
        self.pending = Pending(time.perf_counter(), seq, set(self.seats))
        self.last_acted = time.monotonic()

    def received(self, seat: int, seq: int) -> None:
        p = self.pending
        if p is None or seq <= p.after_seq:
            return
        p.waiting.discard(seat)
        if not p.waiting:
            latency = time.perf_counter() - p.sent
            self.stats.latencies.append(latency)
            if self.stats.timed is not None:
                self.stats.timed.append((p.sent, latency, self.code))
            self.pending = None


def choose(view: dict[str, Any], rng: random.Random, players: str) -> dict[str, Any] | None:
    legal = view.get("legal") or []
    if not legal:
        return None
    if view["phase"] == "bidding":
        looks = [a for a in legal if a["type"] == "look"]
        if looks:  # look first (no blind nil), also when a look is offered out of turn
            return dict(looks[0])
    if players == "basic":
        return decide("basic", view)
    if view["phase"] == "bidding":
        hand = view.get("hand") or []
        want = max(1, sum(c.endswith("S") for c in hand))
        for action in legal:
            if action.get("bid") == want:
                return dict(action)
    return dict(rng.choice(legal))


# The web client's reconnect waits (client/js/connection.js), so a storm of reconnects is
# the one browsers would make: a plain close (the process died) waits 0.5 s, then 1, 2 and
# 4 s at most, ±25 % each, back to 0.5 s after a state; a "moved" close (4012, 1012) waits
# about 0.1 s, then 0.2 and 0.4 s, then from 0.5 s up, counted over 30 s.
MAX_BACKOFF = 4.0
MOVED_QUICK = 3
MOVED_FLOOR = 0.5
MOVED_CALM = 30.0
FATAL_CLOSES = {CloseCode.REPLACED, CloseCode.ABANDONED, CloseCode.NO_ROOM, CloseCode.CROWDED}
MOVED_CLOSES = {CloseCode.RECONNECT, CloseCode.RESTARTING}


def _jitter(seconds: float) -> float:
    return seconds * random.uniform(0.75, 1.25)


def backoff(attempt: int, first: float = 0.5) -> float:
    """The wait before retry number `attempt` (0 first): doubling from `first`, capped."""
    return _jitter(min(MAX_BACKOFF, first * 2**attempt))


class Backoff:
    """One seat's retry waits, as the web client's `Connection` counts them."""

    def __init__(self) -> None:
        self.attempt = 0  # plain retries since the last state
        self.moved = 0  # moved closes in a row
        self.moved_at = -math.inf

    def next(self, moved: bool) -> float:
        if not moved:
            self.attempt += 1
            return backoff(self.attempt - 1)
        now = time.monotonic()
        if now - self.moved_at > MOVED_CALM:
            self.moved = 0
        self.moved += 1
        self.moved_at = now
        self.attempt += 1
        if self.moved <= MOVED_QUICK:
            return _jitter(0.1 * 2 ** (self.moved - 1))
        return max(MOVED_FLOOR, backoff(self.moved - MOVED_QUICK - 1, MOVED_FLOOR))


class SeatClient(asyncio.Protocol):
    """One human seat: a WebSocket client driven by callbacks, not coroutines.

    The handshake and framing are websockets' sans-I/O `ClientProtocol`; only the I/O is
    wired here, on the event loop's own protocol callbacks. The generator shares the two
    cores with the server it measures, and the library's asyncio client (a future and a
    coroutine step per message received, a task per delayed send) cost it about a core for
    4,000 sockets, CPU taken from the server; with callbacks and `call_later` it costs a
    fraction of that (docs/performance.md, "The generator").
    """

    def __init__(
        self, fleet: Fleet, room: RoomDriver, seat: int, token: str, host: bool, uri: str
    ) -> None:
        self.fleet = fleet
        self.room = room
        self.seat = seat
        self.token = token
        self.host = host
        self.uri = uri
        self.ws = ClientProtocol(parse_uri(uri), max_size=2**22)
        self.transport: asyncio.Transport | None = None
        self.open = False
        self.acting_on: Any = -1
        self.looked_hand = -1
        self.started = False
        self.view: dict[str, Any] | None = None  # the latest view, merged (docs/protocol.md)
        self.seq = -1  # of the latest state or event
        self.game_id: int | None = None
        self._own_frames = False  # reading the server's frames here (`_take_frames`)
        self._partial = b""  # the start of a frame cut across segments
        self.backoff = Backoff()
        self.ever_open = False  # a failed connect is retried only once the seat had one
        self.down = False  # a reconnect is scheduled or under way
        self.fresh = False  # a new socket: its first action goes without thinking
        self.generation = 0  # of the socket: an action chosen on an older one is dropped
        self.asked = ""  # the id of the action sent last (its answer carries it as `ref`)

    # --- I/O ---------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        if self._own_frames:
            data = self._take_frames(data)
            if not data:
                return
            self._own_frames = False  # from this frame boundary on, websockets reads
        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Response):
                if self.ws.handshake_exc is not None:
                    self._lost(type(self.ws.handshake_exc).__name__)
                    return
                self.open = True
                self.ever_open = True
                self.room.stats.connections += 1
                # The server sends no frame before the hello: websockets' parser stands at a
                # frame boundary with nothing buffered, so the frames can be read here.
                self._own_frames = data.endswith(b"\r\n\r\n") and data.count(b"\r\n\r\n") == 1
                self.send_text(orjson.dumps({"type": "hello", "token": self.token}))
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                self.on_message(event.data)
        self._flush()  # pongs for the server's pings, a close answered

    def _take_frames(self, data: bytes) -> bytes:
        """Read the complete, unfragmented text frames (RFC 6455, 5.2: a server's are not
        masked) at the front of what arrived, keeping a frame cut across segments for the
        next call; return everything from the first frame that is anything else (a ping, a
        close, a fragment), for websockets to read from then on. The generator shares the
        two cores with the server it measures, and websockets' parser cost it about an
        eighth of its CPU at 1,500 rooms; this costs a fraction of that."""
        if self._partial:
            data = self._partial + data
            self._partial = b""
        pos, end = 0, len(data)
        while end - pos >= 2:
            if data[pos] != 0x81 or data[pos + 1] & 0x80:
                return data[pos:]
            size, head = data[pos + 1], pos + 2
            if size == 126:
                if end - pos < 4:
                    break
                size, head = int.from_bytes(data[head : head + 2], "big"), head + 2
            elif size == 127:
                if end - pos < 10:
                    break
                size, head = int.from_bytes(data[head : head + 8], "big"), head + 8
            if head + size > end:
                break
            pos = head + size
            self.on_message(data[head:pos])
        self._partial = data[pos:]
        return b""

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self._lost(type(exc).__name__ if exc else "ConnectionClosed")

    def _lost(self, why: str) -> None:
        if self.transport is not None:
            self.transport.close()
        was_open, self.open = self.open, False
        if self.fleet.stop.is_set() or not (was_open or self.ever_open):
            return
        close = self.ws.close_rcvd
        code = close.code if close is not None else None
        if was_open:
            self.room.stats.disconnects += 1
            # A moved room (a drain, a hand-over, a failover) under its own error name.
            self.room.stats.error("reconnect_4012" if code == CloseCode.RECONNECT else why)
        else:
            self.room.stats.error(f"reconnect_failed_{why}")
        if code in FATAL_CLOSES:
            return
        # As the web client does: whatever closed it, try again (the hello brings back a
        # whole state), after its wait; the wait is short after a moved close.
        self._retry(code in MOVED_CLOSES)

    def _retry(self, moved: bool) -> None:
        if self.down or self.fleet.stop.is_set():
            return
        self.down = True
        asyncio.get_running_loop().call_later(self.backoff.next(moved), self._reconnect)

    def _reconnect(self) -> None:
        self.down = False
        if self.fleet.stop.is_set() or self.open:
            return
        self.ws = ClientProtocol(parse_uri(self.uri), max_size=2**22)
        self._own_frames, self._partial = False, b""
        self.view = None
        self.seq = -1
        self.acting_on = -1
        self.fresh = True
        self.generation += 1
        host, port = self.fleet.url.rsplit("/", 1)[-1].rsplit(":", 1)
        loop = asyncio.get_running_loop()
        task = loop.create_task(loop.create_connection(partial(_same, self), host, int(port)))
        task.add_done_callback(self._connected)

    def _connected(self, task: asyncio.Task[Any]) -> None:
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:  # refused, reset: try again after the wait
            self.room.stats.error(f"reconnect_failed_{type(exc).__name__}")
            self._retry(False)

    def send_text(self, data: bytes) -> None:
        if self.open and self.transport is not None:
            self.ws.send_text(data)
            self._flush()

    def _flush(self) -> None:
        if self.transport is not None:
            out = self.ws.data_to_send()
            if out:
                self.transport.write(b"".join(out))

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    # --- play ----------------------------------------------------------------------------

    def act(self, action: dict[str, Any], seq: int, generation: int = 0) -> None:
        if self.fleet.stop.is_set() or not self.open or generation != self.generation:
            return
        self.room.acted(self.seat, seq)
        self.room.stats.actions += 1
        self.asked = f"{self.generation}.{seq}"
        self.send_text(orjson.dumps({**action, "id": self.asked}))

    def start_game(self) -> None:
        self.send_text(b'{"type": "start"}')

    def on_message(self, raw: bytes | bytearray | memoryview) -> None:
        room = self.room
        msg = orjson.loads(raw)
        kind = msg.get("type")
        if kind == "error":
            room.stats.error(msg.get("code", "error"))
            self.acting_on = -1
            return
        if kind == "event":
            # What an action changed, applied to the view held (docs/protocol.md, "event").
            view = self.view
            if view is None or msg["game_id"] != self.game_id or msg["seq"] != self.seq + 1:
                room.stats.error("resync")  # it does not follow: ask for a whole state
                self.send_text(orjson.dumps({"type": "hello", "token": self.token}))
                return
            view.update(msg["view"])
            you = msg.get("you")
            if you is not None:
                view.update(you)
            info = None
        elif kind == "state":
            view = msg.get("view")
            last = self.view
            if view is not None and last is not None and len(view) < len(last):
                # Keys left out because they did not change (docs/protocol.md, "state").
                for key in last.keys() - view.keys():
                    view[key] = last[key]
            self.view = view
            info = msg.get("room")  # left out when unchanged
            if info is not None:
                self.game_id = info["game_id"]
        else:
            return
        seq = self.seq = msg["seq"]
        room.received(self.seat, seq)
        if kind == "state":
            self.backoff.attempt = 0  # as the web client: a state ends a run of retries
        watch = self.fleet.watch
        if watch is not None:
            watch.seen(self, seq, msg.get("ref") == self.asked)
        if self.host and not self.started and info is not None and info["status"] == "open":
            seated = sum(s["kind"] == "human" and s["connected"] for s in info["seats"])
            if seated == len(room.seats):
                self.started = True
                self.fleet.start_when_ready(self)
            return
        if view is None:
            return
        if view["phase"] == "over":
            self.looked_hand = -1  # hand numbers start again with the next game
            if self.acting_on != seq:  # every player asks: the next game needs them all
                self.acting_on = seq
                if self.host:
                    room.stats.game_hands.append(view["hand_number"])
                self.send_text(b'{"type": "play_again"}')
            return
        action = choose(view, room.rng, self.fleet.players)
        if action is not None and action["type"] == "look":
            # A look may be offered out of turn: send it once per hand, not on every state.
            if self.looked_hand == view["hand_number"]:
                return
            self.looked_hand = view["hand_number"]
        if action is None:
            return
        # Act once per turn, however many states (seat or chat changes) arrive meanwhile.
        trick = view.get("current_trick") or {"cards": []}
        turn = (
            view["hand_number"],
            sum(b is not None for b in view["bids"]),
            sum(view["tricks_won"]),
            len(trick["cards"]),
            action["type"],
        )
        if self.acting_on != turn:
            self.acting_on = turn
            delay = room.think * room.rng.uniform(0.5, 1.5)
            if self.fresh:  # back after a reconnect: what counts is when the room takes
                delay = 0.0  # actions again, not the player's thinking
            self.fresh = False
            loop = asyncio.get_running_loop()
            loop.call_later(delay, self.act, action, seq, self.generation)


async def open_room(
    client: httpx.AsyncClient,
    base: str,
    kind: str,
    bot_level: str,
    i: int,
    target: int = 500,
    turn_seconds: int = 0,
) -> tuple[str, dict[int, str]]:
    body = {
        "name": f"p{i}",
        "mode": "partnership",
        "target": target,
        "turn_seconds": turn_seconds,
        "game_minutes": 0,
        "rules": {},
        "bot_level": bot_level,
    }
    if kind == "solo":
        r = await client.post(f"{base}/api/solo", json=body)
        r.raise_for_status()
        data = r.json()
        return data["code"], {data["seat"]: data["token"]}
    r = await client.post(f"{base}/api/rooms", json={**body, "public": False})
    r.raise_for_status()
    data = r.json()
    seats = {data["seat"]: data["token"]}
    for j in range(3):
        jr = await client.post(
            f"{base}/api/rooms/{data['code']}/join",
            json={"name": f"p{i}-{j}", "seat": None, "spectator": False},
        )
        jr.raise_for_status()
        joined = jr.json()
        seats[joined["seat"]] = joined["token"]
    return data["code"], seats


def scrape(url: str) -> dict[str, float]:
    """The server's /metrics as {'name{labels}': value}."""
    text = httpx.get(f"{url}/metrics", timeout=30).text
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


def scrape_server(server: Any) -> dict[str, float]:
    """Every process's /metrics summed (a cluster's processes each count their own)."""
    total: dict[str, float] = {}
    for url in getattr(server, "metric_urls", [server.url]):
        for key, value in scrape(url).items():
            total[key] = total.get(key, 0.0) + value
    return total


def server_side(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """What the server's own histograms saw in the window: upper bounds of p50/p99 buckets."""

    def buckets(metric: str, labels: str = "") -> list[tuple[float, float]]:
        totals: dict[float, float] = {}
        for key, value in after.items():
            if key.startswith(metric + "_bucket{") and labels in key:
                le = key.split('le="', 1)[1].split('"', 1)[0]
                bound = float("inf") if le == "+Inf" else float(le)
                totals[bound] = totals.get(bound, 0.0) + value - before.get(key, 0.0)
        return sorted(totals.items())

    def quantile(metric: str, q: float, labels: str = "", scale: float = 1000) -> float | None:
        cumulative = buckets(metric, labels)
        if not cumulative or cumulative[-1][1] <= 0:
            return None
        want = q * cumulative[-1][1]
        for bound, count in cumulative:
            if count >= want:
                return bound * scale
        return None

    def count(metric: str, labels: str = "") -> int:
        b = buckets(metric, labels)
        return int(b[-1][1]) if b else 0

    accepted = sum(
        value - before.get(key, 0.0)
        for key, value in after.items()
        if key.startswith("spades_actions_total{")
    )
    return {
        "actions_accepted": int(accepted),
        "action_ms_p50_le": quantile("spades_action_latency_seconds", 0.5),
        "action_ms_p99_le": quantile("spades_action_latency_seconds", 0.99),
        "append_ms_p50_le": quantile("spades_store_append_seconds", 0.5),
        "append_ms_p99_le": quantile("spades_store_append_seconds", 0.99),
        "commit_ms_p50_le": quantile("spades_store_commit_seconds", 0.5),
        "commit_ms_p99_le": quantile("spades_store_commit_seconds", 0.99),
        # A single long commit (a disk or database stall) hides under p99 but holds every
        # action of its batch and of the batches behind it: the max tells it apart.
        "commit_ms_max_le": quantile("spades_store_commit_seconds", 1.0),
        "commit_actions_p50_le": quantile("spades_store_commit_actions", 0.5, scale=1),
        "loop_lag_ms_p99_le": quantile("spades_event_loop_lag_seconds", 0.99),
        "loop_lag_ms_max_le": quantile("spades_event_loop_lag_seconds", 1.0),
        "gc_collections": {g: count("spades_gc_pause_seconds", f'generation="{g}"') for g in "012"},
        "gc_ms_max_le": quantile("spades_gc_pause_seconds", 1.0),
        "gc_frozen_objects": int(after.get("spades_gc_frozen_objects", 0)),
    }


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(
    label: str,
    rooms: int,
    stats: Stats,
    seconds: float,
    server: ServerProcess,
    *,
    cpu: float | None = None,
    rss: int | None = None,
    generator_cpu: float | None = None,
    server_metrics: dict[str, Any] | None = None,
    writer_cpu: float | None = None,
) -> dict[str, Any]:
    lat = [x * 1000 for x in stats.latencies]
    cpu_percent = server.cpu_percent() if cpu is None else cpu
    accepted = (server_metrics or {}).get("actions_accepted") or 0
    system_share = getattr(server, "system_share", None)  # of the window `cpu_percent` closed
    # Everything an accepted action costs the server process (validation, store, every
    # connection's message), as CPU time of the window over the actions /metrics counted.
    cpu_ms = cpu_percent / 100 * seconds * 1000 / accepted if accepted else None
    # The store's writer process (SQLite's or PostgreSQL's) works for the server too: its
    # CPU is reported beside.
    writer = writer_cpu
    if writer is None and hasattr(server, "children_cpu_percent"):
        writer = server.children_cpu_percent()
    writer_ms = (
        writer / 100 * seconds * 1000 / accepted if accepted and writer is not None else None
    )
    out = {
        "label": label,
        "rooms": rooms,
        "connections": stats.connections,
        "actions_per_s": round(stats.actions / seconds, 1),
        "latency_ms": {
            "p50": round(percentile(lat, 0.50), 1),
            "p95": round(percentile(lat, 0.95), 1),
            "p99": round(percentile(lat, 0.99), 1),
            "max": round(max(lat), 1) if lat else None,
            "n": len(lat),
        },
        "errors": dict(stats.errors),
        "disconnects": stats.disconnects,
        "stalled_rooms": stats.stalled,
        "games_ended": len(stats.game_hands),
        "hands_per_game": {
            "mean": round(sum(stats.game_hands) / len(stats.game_hands), 1)
            if stats.game_hands
            else None,
            "max": max(stats.game_hands, default=None),
        },
        "server_cpu_percent": round(cpu_percent, 1),
        "server_cpu_ms_per_action": None if cpu_ms is None else round(cpu_ms, 3),
        "server_system_share": None if system_share is None else round(system_share, 3),
        "writer_cpu_percent": None if writer is None else round(writer, 1),
        "writer_cpu_ms_per_action": None if writer_ms is None else round(writer_ms, 3),
        "server_rss_mb": round((server.rss_bytes() if rss is None else rss) / 2**20, 1),
        "per_process": server.per_process() if hasattr(server, "per_process") else None,
        "generator_cpu_percent": None if generator_cpu is None else round(generator_cpu, 1),
        "machine_reference_ms": MACHINE_REFERENCE[-1] if MACHINE_REFERENCE else None,
        "server": server_metrics,
    }
    print(json.dumps(out), flush=True)
    if cpu_ms is not None:
        print(f"server CPU ms per action: {cpu_ms:.3f} ({accepted} actions)", flush=True)
        if writer_ms is not None:
            print(f"writer process CPU ms per action: {writer_ms:.3f}", flush=True)
    RESULTS.append(out)
    return out


RESULTS: list[dict[str, Any]] = []  # every window reported by this process, in order


def machine_reference_ms() -> float:
    """CPU milliseconds this machine takes for a fixed piece of the server's kind of work
    (100 hands through the engine's `Game` API, JSON-ready actions chosen by a seeded
    random number generator), the least of five tries.

    Instances of one machine kind differ in speed by up to two times (noisy neighbours,
    older hosts), and the server's CPU per action moves with them; so does this figure, and
    the code being measured does not change it. Printed with each run, so that figures from
    different machines can be told apart from changes to the code. It is pure Python, and
    instances differ in how much slower they run it than the server's mix (kernel, uvloop,
    orjson): one read three times the quick instance's figure while its server worked only
    1.6 times as slowly. Between instances, read the generators' CPU next to it."""
    from spades.engine import Game, Rules

    best = math.inf
    for _ in range(5):
        rng = random.Random(19)
        start = time.process_time()
        for hand in range(100):
            game = Game.new(Rules(target=10_000), seed=f"reference:{hand}")
            while not game.history:
                seat = game.to_act
                actions = game.legal_actions(seat)
                game.apply(seat, actions[rng.randrange(len(actions))])
        best = min(best, time.process_time() - start)
    return round(best * 1000, 1)


MACHINE_REFERENCE: list[float] = []  # measured before each run, in this process

# The figures `--repeat` summarises as min / median / max over the runs.
REPEATED = (
    ("server CPU ms per action", ("server_cpu_ms_per_action",)),
    ("server CPU %", ("server_cpu_percent",)),
    ("server CPU share in the kernel", ("server_system_share",)),
    ("writer CPU ms per action", ("writer_cpu_ms_per_action",)),
    ("actions/s", ("actions_per_s",)),
    ("latency p50 ms", ("latency_ms", "p50")),
    ("latency p99 ms", ("latency_ms", "p99")),
    ("generator CPU %", ("generator_cpu_percent",)),
    ("machine reference ms", ("machine_reference_ms",)),
)


def spread(values: list[float]) -> dict[str, float]:
    """Min / median / max of one figure over runs (the upper median for an even count)."""
    ordered = sorted(values)
    return {"min": ordered[0], "median": ordered[len(ordered) // 2], "max": ordered[-1]}


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Min / median / max of each figure over the runs' last windows (`--repeat`)."""
    summary: dict[str, Any] = {"runs": len(runs)}
    for name, path in REPEATED:
        values = []
        for out in runs:
            value: Any = out
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if isinstance(value, int | float):
                values.append(float(value))
        if values:
            summary[name] = spread(values)
    return summary


@dataclass
class Fleet:
    """One generator process's rooms: where they play, how, and what they measured."""

    url: str
    bot_level: str
    target: int
    kind: str
    think: float
    seed: int
    spread: float = 30.0  # games start spread over this many seconds
    players: str = "basic"  # how the simulated humans choose: basic or random
    turn_seconds: int = 0  # the rooms' turn timer (0: untimed)
    stats: Stats = field(default_factory=Stats)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    go: bool = False  # games wait for it to start (every room open first)
    clients: list[SeatClient] = field(default_factory=list)
    waiting: list[SeatClient] = field(default_factory=list)  # hosts of full rooms, before go
    watch: Any = None  # told of every state and event received (bench.storm)

    @classmethod
    def of(cls, args: argparse.Namespace, url: str) -> Fleet:
        return cls(
            url,
            args.bot_level,
            args.target,
            args.kind,
            args.think,
            args.seed,
            args.spread,
            args.players,
            args.turn_seconds,
        )

    async def add_rooms(self, client: httpx.AsyncClient, first: int, n: int) -> None:
        """Open rooms first .. first+n-1 and connect their humans."""
        ws_url = self.url.replace("http", "ws", 1)
        host, port = self.url.rsplit("/", 1)[-1].rsplit(":", 1)
        loop = asyncio.get_running_loop()
        sem = asyncio.Semaphore(20)
        before = len(self.clients)

        async def one(i: int) -> None:
            async with sem:
                code, seats = await open_room(
                    client, self.url, self.kind, self.bot_level, i, self.target, self.turn_seconds
                )
            room = RoomDriver(code, seats, self.stats, self.think, random.Random(self.seed + i))
            host_seat = min(seats)
            for seat, token in seats.items():
                # The host starts the game (a solo room starts by itself) and, when a game
                # is over, asks for the next, so rooms keep playing however long the run.
                is_host = seat == host_seat
                seat_client = SeatClient(self, room, seat, token, is_host, f"{ws_url}/ws/{code}")
                try:
                    await loop.create_connection(partial(_same, seat_client), host, int(port))
                except OSError as exc:
                    self.stats.disconnects += 1
                    self.stats.error(type(exc).__name__)
                    continue
                self.clients.append(seat_client)

        await asyncio.gather(*(one(first + i) for i in range(n)))
        # Wait until every connection of these rooms has said hello.
        added = self.clients[before:]
        deadline = time.monotonic() + 120
        while not all(c.open for c in added) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)

    def count_stalled(self) -> int:
        """Rooms none of whose humans acted lately (a stuck room would make the load fall)."""
        limit = time.monotonic() - STALLED_AFTER * max(self.think, 0.1)
        rooms = {id(c.room): c.room for c in self.clients}.values()
        self.stats.stalled = sum(r.last_acted < limit for r in rooms)
        if os.environ.get("SPADES_BENCH_DEBUG"):
            print("stalled:", [r.code for r in rooms if r.last_acted < limit], file=sys.stderr)
        return self.stats.stalled

    def start_when_ready(self, host: SeatClient) -> None:
        """A host whose room is full: start now if the games are on, else at `start_games`."""
        if self.go:
            # Spread out, so the rooms' hands do not all begin and end together.
            delay = host.room.rng.uniform(0, self.spread)
            asyncio.get_running_loop().call_later(delay, host.start_game)
        else:
            self.waiting.append(host)

    def start_games(self) -> None:
        """Games start together once every room is open (opening rooms is then not slowed
        by the rooms already playing)."""
        self.go = True
        waiting, self.waiting = self.waiting, []
        for host in waiting:
            self.start_when_ready(host)

    def reset(self) -> None:
        """Start a measured window."""
        self.stats.latencies.clear()
        self.stats.actions = 0
        self.stats.errors.clear()
        self.stats.game_hands.clear()

    async def finish(self) -> None:
        self.stop.set()
        for c in self.clients:
            c.close()
        await asyncio.sleep(0)


def _same(client: SeatClient) -> SeatClient:
    return client


class CpuMeter:
    """CPU % of one core this process used since the last call (the generator's share)."""

    def __init__(self) -> None:
        self.last = self._read()

    @staticmethod
    def _read() -> tuple[float, float]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return time.monotonic(), usage.ru_utime + usage.ru_stime

    def percent(self) -> float:
        (then, before), (now, cpu) = self.last, self._read()
        self.last = (now, cpu)
        return 100.0 * (cpu - before) / max(now - then, 1e-9)


async def run_load(args: argparse.Namespace, server: ServerProcess) -> None:
    fleet = Fleet.of(args, server.url)
    meter = CpuMeter()
    async with http_client(120) as client:
        await server.wait_ready(client)
        started = time.monotonic()

        async def window(label: str, rooms: int) -> dict[str, Any]:
            await asyncio.sleep(args.warmup)
            fleet.reset()
            server.cpu_percent()
            if hasattr(server, "children_cpu_percent"):
                server.children_cpu_percent()
            meter.percent()
            before = await asyncio.to_thread(scrape_server, server)
            if hasattr(server, "window_opens"):  # (bench.instructions counts from here)
                await asyncio.to_thread(server.window_opens)
            opened = time.monotonic()
            if args.until_games:
                # Till that many games ended (`--seconds` is then only a guard against a hang).
                while (
                    len(fleet.stats.game_hands) < args.until_games
                    and time.monotonic() - opened < args.seconds
                ):
                    await asyncio.sleep(0.05)
            else:
                await asyncio.sleep(args.seconds)
            seconds = time.monotonic() - opened
            if hasattr(server, "window_closes"):
                await asyncio.to_thread(server.window_closes)
            fleet.count_stalled()
            after = await asyncio.to_thread(scrape_server, server)
            return report(
                label,
                rooms,
                fleet.stats,
                seconds,
                server,
                generator_cpu=meter.percent(),
                server_metrics=server_side(before, after),
            )

        if not args.ramp:
            await fleet.add_rooms(client, 0, args.rooms)
            fleet.start_games()
            print(f"opened {args.rooms} rooms in {time.monotonic() - started:.1f} s", flush=True)
            await window(args.kind, args.rooms)
        else:
            rooms = last_good = 0
            while rooms + args.step <= args.max_rooms and time.monotonic() - started < MAX_SECONDS:
                target = args.start if rooms == 0 else rooms + args.step
                await fleet.add_rooms(client, rooms, target - rooms)
                fleet.start_games()
                rooms = target
                if not good(await window(f"ramp-{args.kind}", rooms)):
                    break
                last_good = rooms
            print(f"last good R: {last_good} rooms ({args.kind})", flush=True)
        await fleet.finish()


# A commit over this is the store's stall, not the server's queue: commits take a few
# milliseconds otherwise.
STALL_OVER_MS = 250


def stalled_commit_ms(out: dict[str, Any]) -> float | None:
    """The bucket bound of the step's longest commit when it was a stall, else None."""
    server = out.get("server") or {}
    longest = server.get("commit_ms_max_le")
    return longest if longest is not None and longest > STALL_OVER_MS else None


def good(out: dict[str, Any]) -> bool:
    """A ramp step passes with p99 under 100 ms and no error or disconnect."""
    return bool(out["latency_ms"]["p99"] <= 100 and not out["errors"] and not out["disconnects"])


async def run_child(args: argparse.Namespace) -> None:
    """One of several driver processes, commanded by the parent, one JSON line at a time:

    - `{"op": "add", "rooms": n, "first": i}`: open n more rooms, answer `{"ready": ...}`;
    - `{"op": "measure", "start": t, "seconds": s}`: start the games that are waiting, wait
      until time t, measure s seconds, answer with the figures;
    - `{"op": "stop"}`: close every connection and exit.
    """
    fleet = Fleet.of(args, args.attach)
    stats = fleet.stats
    meter = CpuMeter()
    loop = asyncio.get_running_loop()
    async with http_client(120) as client:
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            command: dict[str, Any] = json.loads(line) if line.strip() else {"op": "stop"}
            if command["op"] == "add":
                await fleet.add_rooms(client, command["first"], command["rooms"])
                print(json.dumps({"ready": stats.connections}), flush=True)
            elif command["op"] == "measure":
                fleet.start_games()
                await asyncio.sleep(max(0.0, command["start"] - time.time()))
                fleet.reset()
                meter.percent()
                await asyncio.sleep(command["seconds"])
                figures = {
                    "latencies": stats.latencies,
                    "actions": stats.actions,
                    "errors": stats.errors,
                    "disconnects": stats.disconnects,
                    "connections": stats.connections,
                    "game_hands": stats.game_hands,
                    "stalled": fleet.count_stalled(),
                    "cpu_percent": meter.percent(),
                }
                print(json.dumps(figures), flush=True)
            else:
                break
        await fleet.finish()


class Drivers:
    """The parent's side of `--procs N`: N child processes sharing the rooms."""

    def __init__(self, args: argparse.Namespace, server: ServerProcess) -> None:
        self.rooms = 0
        self.children = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bench.load",
                    "--attach",
                    server.url,
                    "--kind",
                    args.kind,
                    "--think",
                    str(args.think),
                    "--bot-level",
                    args.bot_level,
                    "--seed",
                    str(args.seed),
                    "--target",
                    str(args.target),
                    "--spread",
                    str(args.spread),
                    "--players",
                    args.players,
                    "--turn-seconds",
                    str(args.turn_seconds),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(args.procs)
        ]

    def _ask(self, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for child, command in zip(self.children, commands, strict=True):
            assert child.stdin is not None
            child.stdin.write(json.dumps(command) + "\n")
            child.stdin.flush()
        answers = []
        for child in self.children:
            assert child.stdout is not None
            line = child.stdout.readline()
            if not line:
                raise RuntimeError("a driver process exited")
            answers.append(json.loads(line))
        return answers

    def add(self, rooms: int) -> None:
        n = len(self.children)
        share = [rooms // n + (i < rooms % n) for i in range(n)]
        commands = []
        for count in share:
            commands.append({"op": "add", "rooms": count, "first": self.rooms})
            self.rooms += count
        self._ask(commands)

    def measure(self, start: float, seconds: float) -> tuple[Stats, float]:
        command = {"op": "measure", "start": start, "seconds": seconds}
        merged = Stats()
        cpu = 0.0
        for data in self._ask([command] * len(self.children)):
            merged.latencies += data["latencies"]
            merged.actions += data["actions"]
            merged.disconnects += data["disconnects"]
            merged.connections += data["connections"]
            merged.game_hands += data["game_hands"]
            merged.stalled += data["stalled"]
            cpu += data["cpu_percent"]
            for code, count in data["errors"].items():
                merged.errors[code] = merged.errors.get(code, 0) + count
        return merged, cpu

    def stop(self) -> None:
        for child in self.children:
            with contextlib.suppress(Exception):
                assert child.stdin is not None
                child.stdin.write(json.dumps({"op": "stop"}) + "\n")
                child.stdin.close()
        for child in self.children:
            try:
                child.wait(60)
            except subprocess.TimeoutExpired:
                child.kill()


def run_parent(args: argparse.Namespace, server: ServerProcess) -> None:
    """Drive the rooms from `--procs` processes so the generator is not the bottleneck."""

    async def ready() -> None:
        async with http_client(60) as client:
            await server.wait_ready(client)

    run(ready())
    started = time.monotonic()
    drivers = Drivers(args, server)
    label = f"{args.kind} ({args.procs} driver processes)"
    try:
        if not args.ramp:
            drivers.add(args.rooms)
            print(f"opened {args.rooms} rooms in {time.monotonic() - started:.1f} s", flush=True)
            measure_step(args, server, drivers, label)
            return
        last_good = 0
        while drivers.rooms + args.step <= args.max_rooms:
            if time.monotonic() - started > MAX_SECONDS:
                break
            drivers.add(args.start if drivers.rooms == 0 else args.step)
            step = measure_step(args, server, drivers, f"ramp-{label}")
            if not good(step):
                stall = stalled_commit_ms(step)
                if stall is not None:
                    print(
                        f"this step's longest store commit took over {STALL_OVER_MS} ms (at"
                        f" most {stall:g} ms): a disk or database stall held the actions behind it"
                        " (bench.disk times the disk alone)",
                        flush=True,
                    )
                break
            last_good = drivers.rooms
        print(f"last good R: {last_good} rooms ({args.kind})", flush=True)
    finally:
        drivers.stop()


def measure_step(
    args: argparse.Namespace, server: ServerProcess, drivers: Drivers, label: str
) -> dict[str, Any]:
    window_start = time.time() + args.warmup
    results: dict[str, Any] = {}

    def server_window() -> None:
        time.sleep(max(0.0, window_start - time.time()))
        children = getattr(server, "children_cpu_percent", None)  # a cluster has none
        server.cpu_percent()
        if children is not None:
            children()
        results["before"] = scrape_server(server)
        time.sleep(args.seconds)
        results["cpu"] = server.cpu_percent()
        results["writer"] = None if children is None else children()
        results["rss"] = server.rss_bytes()
        results["after"] = scrape_server(server)

    watcher = threading.Thread(target=server_window)
    watcher.start()
    merged, generator_cpu = drivers.measure(window_start, args.seconds)
    watcher.join()
    return report(
        label,
        drivers.rooms,
        merged,
        args.seconds,
        server,
        cpu=results["cpu"],
        rss=results["rss"],
        writer_cpu=results.get("writer"),
        generator_cpu=generator_cpu,
        server_metrics=server_side(results["before"], results["after"]),
    )


def run(main: Any) -> None:
    if uvloop is not None:
        uvloop.install()
    asyncio.run(main)


async def run_idle(args: argparse.Namespace, server: ServerProcess) -> None:
    async with http_client(60) as client:
        await server.wait_ready(client)
        # Warm up code paths and allocator arenas, then measure the growth per room.
        await asyncio.gather(
            *(open_room(client, server.url, "humans", "basic", i) for i in range(20))
        )
        await asyncio.sleep(1)
        before = server.rss_bytes()
        sem = asyncio.Semaphore(20)

        async def one(i: int) -> None:
            async with sem:
                await open_room(client, server.url, "humans", "basic", i)

        await asyncio.gather(*(one(i) for i in range(args.idle)))
        await asyncio.sleep(2)
        after = server.rss_bytes()
        per_room = (after - before) / args.idle
        print(
            json.dumps(
                {
                    "idle_rooms": args.idle,
                    "rss_before_mb": round(before / 2**20, 1),
                    "rss_after_mb": round(after / 2**20, 1),
                    "bytes_per_idle_room": round(per_room),
                }
            ),
            flush=True,
        )


def build_parser() -> argparse.ArgumentParser:
    """bench.load's options (bench.instructions parses its load's options with it too)."""
    parser = argparse.ArgumentParser(description="Load-test the room server (127.0.0.1 only).")
    parser.add_argument("--kind", choices=["humans", "solo"], default="humans")
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--think", type=float, default=1.0, help="seconds, ±50 %% jitter")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--ramp", action="store_true")
    parser.add_argument("--start", type=int, default=100)
    parser.add_argument("--step", type=int, default=100)
    parser.add_argument("--max-rooms", type=int, default=2000)
    parser.add_argument("--idle", type=int, default=0, help="measure memory of N idle rooms")
    parser.add_argument(
        "--until-games", type=int, default=0, help="end the window when N games ended"
    )
    parser.add_argument("--bot-level", default="basic")
    parser.add_argument(
        "--players",
        choices=["basic", "random"],
        default="basic",
        help="how simulated humans choose (random: long games, a memory stress)",
    )
    parser.add_argument(
        "--target", type=int, default=500, help="target score: games end and start again"
    )
    parser.add_argument(
        "--turn-seconds",
        type=int,
        default=0,
        help="the rooms' turn timer (0: untimed; a timer is re-armed after every action)",
    )
    parser.add_argument("--postgres", action="store_true", help="use PostgreSQL (a new database)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--spread",
        type=float,
        default=30.0,
        help="seconds over which the games start (keep --warmup longer)",
    )
    parser.add_argument("--procs", type=int, default=1, help="driver processes")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs, each on a fresh server: min/median/max"
    )
    parser.add_argument(
        "--cluster",
        type=int,
        default=0,
        help="N server processes on PostgreSQL + Redis behind HAProxy (bench/cluster.py)",
    )
    parser.add_argument("--attach", help=argparse.SUPPRESS)  # child driver: the server's URL
    return parser


def main() -> None:
    parser = build_parser()
    args = parser.parse_args()
    args.rooms = min(args.rooms, MAX_ROOMS)
    args.max_rooms = min(args.max_rooms, MAX_ROOMS)
    args.seconds = min(args.seconds, MAX_SECONDS)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    if args.attach:
        if not args.attach.startswith(f"http://{HOST}:"):
            parser.error("--attach talks to 127.0.0.1 only")
        run(run_child(args))
        return
    runs = []
    for i in range(max(1, args.repeat)):
        if args.repeat > 1:
            print(f"run {i + 1} of {args.repeat}", flush=True)
        RESULTS.clear()
        MACHINE_REFERENCE.append(machine_reference_ms())
        print(f"machine reference: {MACHINE_REFERENCE[-1]} ms of CPU", flush=True)
        run_once(args)
        if RESULTS:
            runs.append(RESULTS[-1])
    if args.repeat > 1:
        print(json.dumps({"repeat": summarise(runs)}), flush=True)


def run_once(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as cleanup:
        if args.postgres and not args.cluster:
            # A database of its own per run, dropped afterwards: on a shared one every run
            # reloaded the unfinished rooms of the runs before it, whose absent players'
            # bots then moved too (more work per run, and figures that drifted upward).
            from sqlalchemy.engine import make_url

            database = f"spades_load_{os.getpid()}_{time.monotonic_ns()}"
            pg_admin(f'CREATE DATABASE "{database}"')
            cleanup.callback(pg_admin, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            url = make_url(PG_ADMIN).set(database=database).render_as_string(False)
        else:
            url = f"sqlite+aiosqlite:///{tmp}/load.db"
        server: Any
        if args.cluster:
            from bench.cluster import ClusterServer

            server = ClusterServer(args.cluster, args.bot_level)
        else:
            server = ServerProcess(url, args.bot_level)
        try:
            if args.procs > 1 and not args.idle:
                run_parent(args, server)
            else:
                run(run_idle(args, server) if args.idle else run_load(args, server))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
