"""Moderation across two processes: an administrator's ban made through one process refuses
a sit (on the room's owner, through a socket relayed to it, and through HAProxy) and a join
on the other at once, since every process reads the sanctions from PostgreSQL; a room owned
by one process is closed by an administrator through the other; the audit log has both."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster_support import Cluster, post, ws_url
from websockets.asyncio.client import connect

from spades.codes import ErrorCode

PASSWORD = "correct horse battery"


@pytest.fixture
def pair(database_url: str, tmp_path: Path) -> Iterator[Cluster]:
    cluster = Cluster(database_url, tmp_path, size=2)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def answer(base: str, code: str, *messages: dict[str, Any]) -> dict[str, Any]:
    """The reply to the last of `messages`, sent on a new spectator socket at `base`."""
    async with connect(ws_url(base, code), ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": None}))
        for message in messages:
            await ws.send(json.dumps(message))
        while (reply := json.loads(await ws.recv())).get("ref") != messages[-1]["id"]:
            pass
    return reply


async def test_a_ban_made_on_one_process_holds_on_the_other(
    pair: Cluster, database_url: str
) -> None:
    one, two = (n.url for n in pair.nodes)
    # An administrator signed in on process 1 (granted by the command line).
    async with httpx.AsyncClient(base_url=one, timeout=30) as mod:
        made = (await mod.post("/api/players", json={"name": "Mod"})).json()
        claimed = await mod.post(
            "/api/account",
            json={"username": "mod", "password": PASSWORD},
            headers={"X-Spades-Player": made["credential"]},
        )
        assert claimed.status_code == 201, claimed.text
        granted = subprocess.run(
            [sys.executable, "-m", "spades.cli", "admin", "grant", "mod"],
            env={**os.environ, "SPADES_DATABASE_URL": database_url},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert granted.returncode == 0, granted.stderr
        bob = await post(two, "/api/players", {"name": "Bob"})
        room = await post(two, "/api/rooms", {"name": "Host"})
        assert pair.owner_of(room["code"]) is pair.nodes[1]
        ban = {"kind": "ban", "player_id": bob["id"], "reason": "cheating", "minutes": 60}
        banned = await mod.post(
            "/api/admin/sanctions",
            json=ban,
            headers={"X-Spades-CSRF": mod.cookies["spades_csrf"]},
        )
        assert banned.status_code == 200, banned.text
        # A room owned by process 2, closed by the administrator through process 1.
        other = await post(two, "/api/rooms", {"name": "Other"})
        async with connect(ws_url(two, other["code"]), ping_interval=None) as watcher:
            await watcher.send(json.dumps({"type": "hello", "token": other["token"]}))
            closed = await mod.post(
                f"/api/admin/rooms/{other['code']}/close",
                json={"reason": "abuse"},
                headers={"X-Spades-CSRF": mod.cookies["spades_csrf"]},
            )
            assert closed.status_code == 204, closed.text
            while (told := json.loads(await watcher.recv()))["type"] != "error":
                pass
            assert told["code"] == ErrorCode.ABANDONED and "abuse" in told["message"]
        audit = (await mod.get("/api/admin/audit")).json()["entries"]
    sit = {"type": "sit", "name": "Bob", "player": bob["credential"], "id": "sit"}
    # On the owner, relayed to it from process 1, and through HAProxy.
    for base in (two, one, pair.url):
        refused = await answer(base, room["code"], sit)
        assert refused["type"] == "error" and refused["code"] == ErrorCode.BANNED, refused
        assert "cheating" in refused["message"] and "until" in refused["message"]
    async with httpx.AsyncClient(base_url=pair.url, timeout=30) as http:
        joined = await http.post(
            f"/api/rooms/{room['code']}/join",
            json={"name": "Bob"},
            headers={"X-Spades-Player": bob["credential"]},
        )
        assert joined.status_code == 403 and joined.json()["code"] == ErrorCode.BANNED
    assert [(e["action"], e["target"]) for e in audit[:2]] == [
        ("close_room", other["code"]),
        ("ban", bob["id"]),
    ]
