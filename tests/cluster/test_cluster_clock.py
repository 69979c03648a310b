"""A room move refunds no clock time (issue 58): the game clock and the turn timer of a
clocked game run on while the room moves to another process (here a drain: SIGTERM of its
owner), instead of starting again from the move as after a restart of a lone server."""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster_support import RECV_LIMIT, Cluster, post, ws_url
from websockets.asyncio.client import connect

from wire import receive

IDLE = 3.0  # seconds the player lets pass on their turn before the move
SLACK_MS = 1500  # clock skew between two processes of one machine and rounding, at most


@pytest.fixture
def pair(database_url: str, tmp_path: Path) -> Iterator[Cluster]:
    cluster = Cluster(database_url, tmp_path, size=2)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def my_turn(base: str, code: str, token: str) -> dict[str, Any]:
    """Say hello and wait for this seat's turn: the state then held."""
    async with connect(ws_url(base, code)) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "id": 1}))
        held: dict[str, Any] | None = None
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), RECV_LIMIT))
            assert message["type"] != "error", message
            if message["type"] in ("state", "event"):
                held = receive(held, message)
                if message.get("clock"):
                    held["clock"] = message["clock"]
                if held["view"] is not None and held["view"]["legal"] and "clock" in held:
                    return held


# Once in a loaded CI run the drained process took over 30 s to exit (a few seconds alone):
# rerun once while that is looked into (issue 58's note).
@pytest.mark.flaky(reruns=1)
async def test_a_drain_gives_a_clocked_game_no_free_time(pair: Cluster) -> None:
    n1, n2 = pair.nodes
    settings = {"name": "south", "game_minutes": 10, "turn_seconds": 120}
    made = await post(n1.url, "/api/solo", settings)
    code, token = made["code"], made["token"]
    before = await my_turn(n1.url, code, token)
    await asyncio.sleep(IDLE)  # the player thinks; the clocks run
    n1.signal(signal.SIGTERM)  # the room is handed over
    await asyncio.to_thread(n1.wait_exit)
    after = await my_turn(n2.url, code, token)
    assert pair.owner_of(code) is n2
    assert after["seq"] == before["seq"]  # the same turn
    for key in ("game_deadline", "turn_deadline"):
        was, now = before["clock"][key], after["clock"][key]
        assert was is not None and now is not None, key
        # Before the fix the move gave back the time since the last action (IDLE and more).
        assert now - was <= SLACK_MS, (key, now - was)
