"""Three real `spades serve` processes on PostgreSQL + Redis behind a real HAProxy (from
deploy/haproxy.cfg), and players that reconnect the way the web client does."""

from __future__ import annotations

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
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from support import choose, free_port, wait_until_up
from wire import receive

REPO = Path(__file__).resolve().parents[2]
HAPROXY_CFG = REPO / "deploy" / "haproxy.cfg"
REDIS_URL = os.environ.get("SPADES_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
LEASE_TTL = 2.0
RECV_LIMIT = 30.0  # a guard against hangs, not a timing assertion
CLOSE_RECONNECT = 4012


def redis_unreachable() -> str | None:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except Exception as exc:
        return f"Redis unreachable at {REDIS_URL}: {exc!r}"
    return None


def haproxy_missing() -> str | None:
    if shutil.which("haproxy") is None and not Path("/usr/sbin/haproxy").exists():
        return "haproxy is not installed (Debian package `haproxy`)"
    return None


def haproxy_binary() -> str:
    return shutil.which("haproxy") or "/usr/sbin/haproxy"


def haproxy_config(port: int, servers: list[int], health: list[int] | None = None) -> str:
    """deploy/haproxy.cfg with this test's port and servers instead of Docker's (checked on
    their health ports, as compose's are: `health`, else on their own ports)."""
    text = HAPROXY_CFG.read_text()
    text = re.sub(r"\nresolvers docker\n(?:    .*\n)+", "\n", text)
    text = re.sub(r"(?m)^(\s*bind )\S+", rf"\g<1>127.0.0.1:{port}", text)
    checks = health if health is not None else servers
    lines = "\n".join(
        f"    server s{i} 127.0.0.1:{p} check port {c}"
        for i, (p, c) in enumerate(zip(servers, checks, strict=True), start=1)
    )
    text, count = re.subn(r"(?m)^\s*server-template .*$", lines, text)
    assert count == 1, "deploy/haproxy.cfg has no server-template line to replace"
    return text


class Node:
    def __init__(self, index: int, port: int, env: dict[str, str], logdir: Path) -> None:
        self.index = index
        self.port = port
        self.health_port = free_port()
        self.env = {**env, "SPADES_HEALTH_PORT": str(self.health_port)}
        self.log = logdir / f"node{index}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [str(Path(sys.executable).parent / "spades"), "serve", "--port", str(self.port)],
                env={**self.env, "SPADES_NODE_ID": f"n{self.index}"},
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self, timeout: float = 60) -> None:
        assert self.proc is not None
        wait_until_up(self.url, self.proc, self.log, name=f"node {self.index}", timeout=timeout)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def wait_exit(self, timeout: float = 30) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
        self.proc.wait(10)


class Cluster:
    def __init__(
        self, database_url: str, logdir: Path, size: int = 3, env: dict[str, str] | None = None
    ) -> None:
        self.prefix = f"spades-test-{secrets.token_hex(4)}:"
        self.secret = secrets.token_urlsafe(24)
        self.logdir = logdir
        env = {
            **os.environ,
            "SPADES_DATABASE_URL": database_url,
            "SPADES_REDIS_URL": REDIS_URL,
            "SPADES_REDIS_PREFIX": self.prefix,
            "SPADES_LEASE_TTL": str(LEASE_TTL),
            "SPADES_ORPHAN_SWEEP_SECONDS": "0.5",
            "SPADES_BOT_DELAY": "0",
            "SPADES_BOT_WORKERS": "thread",
            "SPADES_ROOMS_PER_MINUTE": "10000",
            "SPADES_JOINS_PER_MINUTE": "10000",
            "SPADES_LOOKUPS_PER_MINUTE": "10000",
            "SPADES_GC_FREEZE_EVERY": "0",
            # What the processes send each other over Redis is sealed (cluster/seal.py).
            "SPADES_CLUSTER_SECRET": self.secret,
            **(env or {}),
        }
        env.pop("SPADES_NODE_ID", None)
        self.nodes = [Node(i, free_port(), env, logdir) for i in range(1, size + 1)]
        self.haproxy_port = free_port()
        self.haproxy: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Through HAProxy."""
        return f"http://127.0.0.1:{self.haproxy_port}"

    def start(self) -> None:
        for node in self.nodes:
            node.start()
        for node in self.nodes:
            node.wait_ready()
        cfg = self.logdir / "haproxy.cfg"
        ports = [n.port for n in self.nodes]
        cfg.write_text(
            haproxy_config(self.haproxy_port, ports, [n.health_port for n in self.nodes])
        )
        self.haproxy = subprocess.Popen(
            [haproxy_binary(), "-db", "-f", str(cfg)],
            stdout=(self.logdir / "haproxy.log").open("ab"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response,
            ):
                if response.status == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("haproxy did not come up")

    def stop(self) -> None:
        if self.haproxy is not None:
            self.haproxy.kill()
            self.haproxy.wait(10)
        for node in self.nodes:
            node.stop()
        import redis

        with contextlib.suppress(Exception):
            r = redis.Redis.from_url(REDIS_URL)
            keys = list(r.scan_iter(match=f"{self.prefix}*", count=1000))
            if keys:
                r.delete(*keys)

    def owner_of(self, code: str) -> Node | None:
        import redis

        value = redis.Redis.from_url(REDIS_URL).get(f"{self.prefix}lease:{code}")
        if value is None:
            return None
        holder = value.decode().rsplit("|", 1)[0]
        for node in self.nodes:
            if holder.startswith(f"n{node.index}-"):
                return node
        return None

    def fence_of(self, code: str) -> int:
        import redis

        value = redis.Redis.from_url(REDIS_URL).get(f"{self.prefix}fence:{code}")
        return int(value or 0)


# --- clients -----------------------------------------------------------------------------


async def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for _ in range(50):
            response = await http.post(path, json=body)
            if response.status_code != 503:
                break
            await asyncio.sleep(0.2)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result


async def get(base: str, path: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        return await http.get(path)


def ws_url(base: str, code: str) -> str:
    return base.replace("http", "ws", 1) + f"/ws/{code}"


class Player:
    """A seat played through WebSockets; reconnects (and says hello again) on any close,
    like the web client, and keeps every state it was sent."""

    def __init__(
        self, base: Callable[[], str] | str, code: str, token: str | None, think: float = 0.0
    ) -> None:
        self.base = base if callable(base) else (lambda b=base: b)
        self.think = think  # seconds before each action, so a game lasts a while
        self.code = code
        self.token = token
        self.states: list[dict[str, Any]] = []
        self.close_codes: list[int | None] = []
        self.errors: list[dict[str, Any]] = []
        self.failures: list[str] = []
        self.held: dict[str, Any] | None = None
        # Every action this seat saw accepted: (seq when sent, seq of its answer, seat, action).
        self.acked: list[tuple[int, int, int, dict[str, Any]]] = []

    async def play(
        self,
        chooser: Callable[[dict[str, Any]], dict[str, Any] | None] = choose,
        *,
        until: Callable[[dict[str, Any]], bool] | None = None,
    ) -> dict[str, Any]:
        """Act whenever this seat may until the game is over (or `until(state)` holds)."""
        done = until or (lambda s: s["view"] is not None and s["view"]["phase"] == "over")
        while True:
            try:
                return await self._session(chooser, done)
            except (ConnectionClosed, OSError, InvalidStatus, TimeoutError) as exc:
                code = getattr(getattr(exc, "rcvd", None), "code", None)
                self.close_codes.append(code)
                self.failures.append(repr(exc))
                if len(self.close_codes) > 200:
                    raise
                await asyncio.sleep(0.05 if code == CLOSE_RECONNECT else 0.2)

    async def _session(
        self,
        chooser: Callable[[dict[str, Any]], dict[str, Any] | None],
        done: Callable[[dict[str, Any]], bool],
    ) -> dict[str, Any]:
        async with connect(ws_url(self.base(), self.code), open_timeout=10) as ws:
            await ws.send(json.dumps({"type": "hello", "token": self.token, "id": "hello"}))
            self.held = None  # the first state after a hello is whole
            pending: Any = None
            sent: dict[str, tuple[int, int, dict[str, Any]]] = {}
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), RECV_LIMIT))
                if message["type"] == "error":
                    self.errors.append(message)
                    if message.get("ref") == pending:
                        pending = None
                        await asyncio.sleep(0.5)  # e.g. storage_error: try again
                elif message["type"] in ("state", "event"):
                    self.held = receive(self.held, message)
                    self.states.append(self.held)
                    if self.held.get("ref") is not None and self.held["ref"] == pending:
                        sent_seq, seat, acted = sent[pending]
                        self.acked.append((sent_seq, self.held["seq"], seat, acted))
                        pending = None
                    if done(self.held):
                        return self.held
                else:
                    continue
                state = self.held
                view = state["view"] if state is not None else None
                if pending is None and view is not None and view["legal"]:
                    action = chooser(view)
                    if action is not None:
                        await asyncio.sleep(self.think)
                        pending = f"a{state['seq']}-{secrets.token_hex(2)}"
                        sent[pending] = (state["seq"], view["seat"], action)
                        await ws.send(json.dumps({**action, "id": pending}))


async def start_game(base: str, code: str, token: str) -> None:
    """The host says hello and starts the room's game; returns once the start is shown."""
    async with connect(ws_url(base, code)) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "id": 1}))
        await ws.send(json.dumps({"type": "start", "id": 2}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if message["type"] == "error":
                raise AssertionError(message)
            if message["type"] == "state" and message.get("ref") == 2:
                return
