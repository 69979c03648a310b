from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from spades.config import Settings
from spades.rooms import BotRunner, ManualClock, Room, RoomConfig, RoomManager
from spades.store import open_store, upgrade
from wire import receive

_ids = itertools.count(1)


class Conn:
    """A connection as the room sees it, collecting what it is sent."""

    def __init__(self, seat: int | None = None) -> None:
        self.conn_id = next(_ids)
        self.seat = seat
        self.address = "127.0.0.1"
        self.messages: list[dict[str, Any]] = []  # states merged, as a client holds them
        self.wire: list[dict[str, Any]] = []  # states and events as they were sent
        self.applied: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (event, state after)
        self.closed: tuple[int, str] | None = None
        self.event = asyncio.Event()
        # The latest state, kept as it comes: tests poll it after every action, and looking
        # it up in `messages` each time made a long game's test quadratic (once past 300 s).
        self._last_state: dict[str, Any] | None = None

    def send(self, message: dict[str, Any] | bytes) -> None:
        if isinstance(message, bytes):  # an event, encoded once for every connection
            message = orjson.loads(message)
            assert isinstance(message, dict)
        if message["type"] in ("state", "event"):
            self.wire.append(message)
            raw, message = message, receive(self._last_state, message)
            if raw["type"] == "event":
                self.applied.append((raw, message))
        if message["type"] == "state":
            self._last_state = message
        self.messages.append(message)
        self.event.set()

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "state"]

    def last_state(self) -> dict[str, Any]:
        if self._last_state is None:
            raise IndexError("no state yet")
        return self._last_state

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "error"]


async def seat_four(room: Room, host_token: str) -> list[Conn]:
    """Fill seats 1-3 of a room its host (seat 0) opened, and connect all four."""
    tokens = [host_token]
    for seat in (1, 2, 3):
        _, token = await room.call(room.join, f"P{seat}", seat, False)
        tokens.append(token)
    conns = [Conn() for _ in range(4)]
    for conn, token in zip(conns, tokens, strict=True):
        await room.call(room.attach, conn, token)
    return conns


def first_legal(level: str, view: dict[str, Any], *, seed: int | None = None) -> dict[str, Any]:
    """Bid 3 (games end in a few hands), otherwise the first legal action."""
    legal = view["legal"]
    if {"type": "bid", "bid": 3} in legal:
        return {"type": "bid", "bid": 3}
    return dict(legal[0])


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    base: dict[str, Any] = {
        "database_url": f"sqlite+aiosqlite:///{tmp_path / 'spades.db'}",
        "bot_delay": 0.0,
        "bot_workers": "thread",
    }
    base.update(overrides)
    return Settings(**base)


def manager_for(
    store: Any,
    clock: ManualClock,
    tmp_path: Path,
    *,
    settings: dict[str, Any] | None = None,
    **manager_args: Any,
) -> RoomManager:
    """A manager on `store` with the test settings (and `settings` over them), the manual
    clock and first-legal bots on threads; `manager_args` (observer, ownership, ...) go to
    the manager itself."""
    return RoomManager(
        store,
        RoomConfig.pick(make_settings(tmp_path, **(settings or {}))),
        clock=clock,
        bots=BotRunner(first_legal, workers="thread"),
        **manager_args,
    )


async def settle(until: Callable[[], bool], rounds: int = 5_000) -> None:
    """Let the event loop (and the store's threads) run until `until()` holds."""
    for _ in range(rounds):
        if until():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the condition never came true")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'spades.db'}"
    upgrade(url)
    return url


@pytest.fixture
async def store(db_url: str, clock: ManualClock) -> AsyncIterator[Any]:
    s = await open_store(db_url, clock=lambda: datetime.fromtimestamp(clock.now(), UTC))
    yield s
    await s.close()
