"""The host's mute of a player in their room is stored with the room: the player stays
muted after the server restarts (the room reloaded from the database), on SQLite and on
PostgreSQL, until the host unmutes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from api_helpers import Client, running_server
from test_api_postgres import pg_url  # noqa: F401 (a fixture)

from spades.codes import ErrorCode

HEADER = "X-Spades-Player"


async def said(client: Client, text: str, **extra: Any) -> dict[str, Any]:
    await client.send(type="chat", text=text, id=text, **extra)
    return await client.until(
        lambda m: (m["type"] == "chat" and m["text"] == text) or m.get("ref") == text
    )


async def muted_across_a_restart(tmp_path: Path, **settings: Any) -> None:
    async with running_server(tmp_path, **settings) as server:
        bob = (await server.post("/api/players", {"name": "Bob"})).json()
        room = await server.create()
        async with httpx.AsyncClient(base_url=server.url) as http:
            joined = await http.post(
                f"/api/rooms/{room['code']}/join",
                json={"name": "Bob"},
                headers={HEADER: bob["credential"]},
            )
        assert joined.status_code == 200, joined.text
        token = joined.json()["token"]
        host = await server.client(room["code"], room["token"])
        guest = await server.client(room["code"], token)
        await host.send(type="mute", seat=1, id="mute")
        assert (await host.until(lambda m: m.get("ref") == "mute"))["type"] == "muted"
        assert (await said(guest, "hello?"))["code"] == ErrorCode.MUTED
        await host.close()
        await guest.close()
    async with running_server(tmp_path, **settings) as server:
        host = await server.client(room["code"], room["token"])
        guest = await server.client(room["code"], token)
        refused = await said(guest, "after the restart", player=bob["credential"])
        assert refused["type"] == "error" and refused["code"] == ErrorCode.MUTED
        watcher = await server.client(room["code"], None)
        assert (await said(watcher, "a spectator is not muted"))["type"] == "chat"
        await host.send(type="mute", seat=1, muted=False, id="unmute")
        assert (await host.until(lambda m: m.get("ref") == "unmute"))["muted"] is False
        assert (await said(guest, "heard at last"))["type"] == "chat"
        for client in (host, guest, watcher):
            await client.close()
    async with running_server(tmp_path, **settings) as server:
        guest = await server.client(room["code"], token)
        assert (await said(guest, "still heard"))["type"] == "chat"
        await guest.close()


async def test_the_hosts_mute_survives_a_restart_on_sqlite(tmp_path: Path) -> None:
    await muted_across_a_restart(tmp_path)


async def test_the_hosts_mute_survives_a_restart_on_postgresql(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
) -> None:
    await muted_across_a_restart(tmp_path, database_url=pg_url)
