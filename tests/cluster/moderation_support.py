"""Helpers of the cluster's moderation tests: an administrator granted by the command line,
and one exchange on a fresh socket that tries again while a room is moving."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import httpx
from cluster_support import ws_url
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

PASSWORD = "correct horse battery"
CSRF = "X-Spades-CSRF"
TRIES = 100  # a guard against a hang while a room moves, not a timing assertion


async def account(base: str, username: str, name: str = "Mod") -> httpx.AsyncClient:
    """A new account (password PASSWORD), signed in at `base`."""
    http = httpx.AsyncClient(base_url=base, timeout=30)
    made = (await http.post("/api/players", json={"name": name})).json()
    claimed = await http.post(
        "/api/account",
        json={"username": username, "password": PASSWORD},
        headers={"X-Spades-Player": made["credential"]},
    )
    assert claimed.status_code == 201, claimed.text
    http.headers[CSRF] = http.cookies["spades_csrf"]
    return http


async def administrator(base: str, database_url: str, username: str = "mod") -> httpx.AsyncClient:
    """An account signed in at `base`, made an administrator by `spades admin grant`."""
    http = await account(base, username)
    granted = subprocess.run(
        [sys.executable, "-m", "spades.cli", "admin", "grant", username],
        env={**os.environ, "SPADES_DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert granted.returncode == 0, granted.stderr
    return http


async def answer(
    base: str, code: str, *messages: dict[str, Any], token: str | None = None
) -> dict[str, Any]:
    """The reply to the last of `messages` (a chat said: its echo), sent after a hello on a
    new socket at `base` (a spectator's, or `token`'s seat); tried again on a socket closed
    before the reply (the room moving to another process)."""
    last = messages[-1]
    for _ in range(TRIES):
        try:
            async with connect(ws_url(base, code), ping_interval=None) as ws:
                await ws.send(json.dumps({"type": "hello", "token": token, "id": "hello"}))
                while (first := json.loads(await ws.recv()))["type"] != "state":
                    assert first["type"] != "error", first
                for message in messages:
                    await ws.send(json.dumps(message))
                while True:
                    reply: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if reply.get("ref") == last["id"]:
                        return reply
                    if reply["type"] == last["type"] == "chat" and reply["text"] == last["text"]:
                        return reply
        except (ConnectionClosed, InvalidStatus, OSError):
            await asyncio.sleep(0.2)
    raise AssertionError(f"no answer to {last} at {base}")
