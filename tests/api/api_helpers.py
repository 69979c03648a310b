"""A real uvicorn on a free port, real WebSocket clients, and helpers to play through them."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import socket
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import ClientConnection, connect
from websockets.frames import Frame, Opcode

from spades.api.app import create_app
from spades.api.serve import uvicorn_config
from spades.bots import decide
from spades.config import Settings
from spades.rooms import ManualClock
from support import choose
from wire import receive

RECV_LIMIT = 30.0  # a guard against hangs, not a timing assertion


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    base: dict[str, Any] = {
        "database_url": f"sqlite+aiosqlite:///{tmp_path / 'spades.db'}",
        "bot_delay": 0.0,
        "bot_workers": "thread",
        "rooms_per_minute": 1000,
        "joins_per_minute": 1000,
        "lookups_per_minute": 10_000,
        "messages_per_second": 1000.0,
        "message_burst": 1000,
    }
    base.update(overrides)
    return Settings(**base)


def free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@dataclass
class Server:
    url: str
    ws_url: str
    settings: Settings
    clock: ManualClock | None
    app: Any
    http: httpx.AsyncClient = field(init=False)

    @property
    def manager(self) -> Any:
        return self.app.state.manager

    async def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return await self.http.post(path, json=body)

    async def get(self, path: str) -> httpx.Response:
        return await self.http.get(path)

    async def create(self, path: str = "/api/rooms", **body: Any) -> dict[str, Any]:
        response = await self.post(path, {"name": "Host", **body})
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        return data

    async def join(self, code: str, name: str, seat: int | None = None) -> dict[str, Any]:
        response = await self.post(f"/api/rooms/{code}/join", {"name": name, "seat": seat})
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        return data

    async def client(self, code: str, token: str | None) -> Client:
        # No keepalive pings: a test checks messages, and a slow shared machine can delay a
        # pong past the ping timeout and close a healthy connection mid-game.
        ws = await connect(f"{self.ws_url}/ws/{code}", max_size=None, ping_interval=None)
        client = Client(ws)
        await client.send(type="hello", token=token, id="hello")
        await client.until(lambda m: m["type"] == "state")
        return client


@contextlib.asynccontextmanager
async def running_server(
    tmp_path: Path,
    *,
    clock: ManualClock | None = None,
    uvicorn_options: dict[str, Any] | None = None,
    **overrides: Any,
) -> AsyncIterator[Server]:
    settings = make_settings(tmp_path, **overrides)
    app = create_app(settings, clock=clock)
    sock = free_socket()
    port = sock.getsockname()[1]
    config = uvicorn_config(  # as `spades serve`
        app,
        settings,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,
        **(uvicorn_options or {}),
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    s = Server(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", settings, clock, app)
    s.http = httpx.AsyncClient(base_url=s.url)
    try:
        yield s
    finally:
        await s.http.aclose()
        server.should_exit = True
        await task
        sock.close()


class Client:
    """A WebSocket client that keeps every message it was sent."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []  # states merged, as a client holds them
        self.wire: list[dict[str, Any]] = []  # states and events as they came
        self.applied: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (event, state after)
        self.seat: int | None = None

    async def send(self, **message: Any) -> None:
        await self.ws.send(json.dumps(message))

    async def send_raw(self, data: str | bytes) -> None:
        await self.ws.send(data)

    async def recv(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), RECV_LIMIT))
        if message["type"] in ("state", "event"):
            self.wire.append(message)
            raw, message = message, receive(self.states()[-1] if self.states() else None, message)
            if raw["type"] == "event":
                self.applied.append((raw, message))
            self.seat = message["room"]["you"]
        self.messages.append(message)
        return message

    async def until(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            message = await self.recv()
            if predicate(message):
                return message

    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "state"]

    @property
    def state(self) -> dict[str, Any]:
        return self.states()[-1]

    async def close(self) -> None:
        await self.ws.close()


def choose_well(view: dict[str, Any]) -> dict[str, Any]:
    """A player who plays as the `basic` bot does, for games that must reach their target.

    `choose`'s fixed bids and first cards can go on for ever in individual play: every
    score sinks below zero and nobody reaches the target (about 1 deal in 80 at target 100
    ran past 300 hands). Basic play ends such games in a handful of hands.
    """
    return decide("basic", view)


async def play_until_over(
    client: Client, chooser: Callable[[dict[str, Any]], dict[str, Any]] = choose
) -> dict[str, Any]:
    """Act whenever this seat may, one action at a time, until a state shows the game over."""
    pending: int | None = None  # the id of our action not answered yet
    message = client.state
    while True:
        if message["type"] == "error":
            raise AssertionError(f"refused: {message}")
        if message.get("ref") is not None and message["ref"] == pending:
            pending = None
        view = message["view"]
        if view is not None and view["phase"] == "over":
            return message
        if pending is None and view is not None and view["legal"]:
            pending = message["seq"]
            await client.send(**chooser(view), id=pending)
        message = await client.until(lambda m: m["type"] in ("state", "error"))


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


class ThreadServer:
    """The server in a thread of its own, for synchronous clients (hypothesis tests)."""

    def __init__(self, tmp_path: Path, **overrides: Any) -> None:
        self.settings = make_settings(tmp_path, **overrides)
        self.app = create_app(self.settings)
        self.sock = free_socket()
        port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}"
        config = uvicorn_config(  # as `spades serve`
            self.app, self.settings, log_level="warning", lifespan="on", timeout_graceful_shutdown=2
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve(sockets=[self.sock])), daemon=True
        )

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the server thread died")
            threading.Event().wait(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        self.sock.close()


async def raw_socket(server: Any, code: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection that has done the WebSocket handshake by hand (one segment)."""
    port = int(server.url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            f"GET /ws/{code} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    await reader.readuntil(b"\r\n\r\n")
    return reader, writer


def client_frame(payload: bytes, opcode: int = 1, fin: bool = True) -> bytes:
    """A client's masked frame (websockets' own serializer)."""
    frame = Frame(Opcode(opcode), payload, fin=fin)
    return frame.serialize(mask=True, extensions=[])
