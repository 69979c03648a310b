"""Moderation over a real uvicorn (one server for the module, SQLite): the administrator
role granted by `spades admin grant`, the admin routes refused to everyone else, a report
of a chat message with its context, a player's own mutes, a site-wide mute, a ban of a
player (no room, no quick play, no seat, no chat; told why and until when) and of an
address range, the host's mute in a room, an administrator closing a room, and the audit
log of all of it."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from api_helpers import Client, Server, running_server
from websockets.asyncio.client import connect

from spades.codes import ErrorCode

pytestmark = pytest.mark.asyncio(loop_scope="module")

HEADER = "X-Spades-Player"
CSRF = "X-Spades-CSRF"
PASSWORD = "correct horse battery"
_addresses = itertools.count(1)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Server]:
    path: Path = tmp_path_factory.mktemp("moderation")
    async with running_server(path, forwarded_allow_ips="127.0.0.1") as s:
        yield s


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def mod(server: Server) -> AsyncIterator[httpx.AsyncClient]:
    """The module's administrator (granted by the command line), signed in."""
    client = await admin(server, "moderator")
    yield client
    await client.aclose()


def spades_admin(server: Server, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "spades.cli", "admin", *args],
        env={**os.environ, "SPADES_DATABASE_URL": str(server.settings.database_url)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


class Person:
    """A guest player with a client of its own, from an address of its own."""

    def __init__(self, server: Server, address: str | None = None) -> None:
        self.address = address or f"10.1.0.{next(_addresses)}"
        self.server = server
        self.http = httpx.AsyncClient(
            base_url=server.url, headers={"X-Forwarded-For": self.address}
        )
        self.id = ""

    async def made(self, name: str) -> Person:
        made = await self.http.post("/api/players", json={"name": name})
        assert made.status_code == 201, made.text
        self.id = made.json()["id"]
        self.http.headers[HEADER] = made.json()["credential"]
        return self

    async def socket(self, code: str, token: str | None) -> Client:
        ws = await connect(
            f"{self.server.ws_url}/ws/{code}",
            ping_interval=None,
            additional_headers={"X-Forwarded-For": self.address},
        )
        client = Client(ws)
        await client.send(type="hello", token=token, id="hello")
        await client.until(lambda m: m["type"] == "state")
        return client


async def admin(server: Server, username: str) -> httpx.AsyncClient:
    """A signed-in account made an administrator by the command line."""
    client = httpx.AsyncClient(base_url=server.url, headers={"X-Forwarded-For": "10.2.0.1"})
    made = (await client.post("/api/players", json={"name": "Mod"})).json()
    claimed = await client.post(
        "/api/account",
        json={"username": username, "password": PASSWORD},
        headers={HEADER: made["credential"]},
    )
    assert claimed.status_code == 201, claimed.text
    done = spades_admin(server, "grant", username)
    assert done.returncode == 0, done.stderr
    assert f"{username} is an administrator" in done.stdout
    client.headers[CSRF] = client.cookies["spades_csrf"]
    return client


async def table(server: Server) -> tuple[Person, Person, str, Client, Client]:
    """Ann hosts a room, Bob sits at seat 1; both on sockets."""
    ann, bob = await Person(server).made("Ann"), await Person(server).made("Bob")
    room = (await ann.http.post("/api/rooms", json={"name": "Ann"})).json()
    joined = await bob.http.post(f"/api/rooms/{room['code']}/join", json={"name": "Bob"})
    assert joined.status_code == 200, joined.text
    host = await ann.socket(room["code"], room["token"])
    guest = await bob.socket(room["code"], joined.json()["token"])
    return ann, bob, room["code"], host, guest


async def said(client: Client, text: str) -> dict[str, Any]:
    await client.send(type="chat", text=text, id=text)
    return await client.until(
        lambda m: (m["type"] == "chat" and m["text"] == text) or m.get("ref") == text
    )


async def test_admin_routes_are_refused_to_everyone_else(server: Server) -> None:
    nobody = httpx.AsyncClient(base_url=server.url)
    player = await Person(server).made("Pat")
    for path in ("/api/admin/reports", "/api/admin/sanctions", "/api/admin/audit"):
        assert (await nobody.get(path)).status_code == 401
        refused = await player.http.get(path)
        assert refused.status_code == 403
        assert refused.json()["code"] == ErrorCode.ADMIN_ONLY
    ban = {"kind": "ban", "player_id": player.id, "reason": "x", "minutes": 5}
    refused = await player.http.post("/api/admin/sanctions", json=ban)
    assert refused.status_code == 403
    assert (await player.http.post("/api/rooms", json={"name": "Pat"})).status_code == 200


async def test_the_command_line_grants_and_revokes(server: Server, mod: httpx.AsyncClient) -> None:
    granted = await admin(server, "granted")
    assert (await granted.get("/api/admin/reports")).status_code == 200
    assert (await granted.get("/api/me")).json()["admin"] is True
    unknown = spades_admin(server, "grant", "nosuchname")
    assert unknown.returncode == 2
    assert unknown.stderr.count("\n") == 1 and "nosuchname" in unknown.stderr
    assert spades_admin(server, "revoke", "granted").returncode == 0
    refused = await granted.get("/api/admin/reports")
    assert refused.status_code == 403
    assert (await granted.get("/api/me")).json()["admin"] is False
    entries = (await mod.get("/api/admin/audit")).json()["entries"]
    assert [(e["action"], e["actor_id"], e["target_name"]) for e in entries[:2]] == [
        ("revoke", None, "Mod (granted)"),
        ("grant", None, "Mod (granted)"),
    ]
    await granted.aclose()


async def test_a_chat_message_reported_is_kept_with_its_context(
    server: Server, mod: httpx.AsyncClient
) -> None:
    ann, bob, code, host, guest = await table(server)
    message = await said(guest, "rude words")
    seen = await host.until(lambda m: m["type"] == "chat" and m["text"] == "rude words")
    report = {
        "room": code,
        "seat": message["seat"],
        "message_at": seen["at"],
        "game_id": 7,
        "seq": 3,
        "reason": "insults",
    }
    made = await ann.http.post("/api/reports", json=report)
    assert made.status_code == 200, made.text
    wrong = await ann.http.post("/api/reports", json={**report, "message_at": 1})
    assert wrong.status_code == 422
    anonymous = await httpx.AsyncClient(base_url=server.url).post("/api/reports", json=report)
    assert anonymous.status_code == 401
    listed = (await mod.get("/api/admin/reports")).json()["reports"]
    found = next(r for r in listed if r["id"] == made.json()["id"])
    assert found["reporter_id"] == ann.id and found["player_id"] == bob.id
    assert (found["reporter_name"], found["player_name"]) == ("Ann", "Bob")
    assert (found["room"], found["game_id"], found["seq"]) == (code, 7, 3)
    assert (found["message"], found["name"], found["reason"]) == ("rude words", "Bob", "insults")
    assert any(c["text"] == "rude words" for c in found["context"])
    closed = await mod.post(f"/api/admin/reports/{found['id']}/close")
    assert closed.status_code == 204
    left = (await mod.get("/api/admin/reports")).json()["reports"]
    assert all(r["id"] != found["id"] for r in left)
    await host.close()
    await guest.close()


async def test_a_player_keeps_their_own_mutes(server: Server) -> None:
    ann, bob = await Person(server).made("Ann"), await Person(server).made("Bob")
    assert (await ann.http.put(f"/api/me/mutes/{bob.id}")).status_code == 204
    assert (await ann.http.get("/api/me/mutes")).json() == {"muted": [bob.id]}
    assert (await ann.http.put("/api/me/mutes/nosuchplayer")).status_code == 404
    assert (await ann.http.delete(f"/api/me/mutes/{bob.id}")).status_code == 204
    assert (await ann.http.get("/api/me/mutes")).json() == {"muted": []}


async def test_a_site_wide_mute_refuses_chat_until_lifted(
    server: Server, mod: httpx.AsyncClient
) -> None:
    _ann, bob, _code, host, guest = await table(server)
    body = {"kind": "mute", "player_id": bob.id, "reason": "spam", "minutes": 30}
    made = await mod.post("/api/admin/sanctions", json=body)
    assert made.status_code == 200, made.text
    refused = await said(guest, "hello?")
    assert refused["type"] == "error" and refused["code"] == ErrorCode.MUTED
    assert "until" in refused["message"] and "spam" in refused["message"]
    assert made.json()["ends_at"][:16].replace("T", " ") in refused["message"]
    lifted = await mod.delete(f"/api/admin/sanctions/{made.json()['id']}")
    assert lifted.status_code == 204
    assert (await said(guest, "back")).get("type") == "chat"
    actions = [e["action"] for e in (await mod.get("/api/admin/audit")).json()["entries"]]
    assert actions[:2] == ["lift_mute", "mute"]
    await host.close()
    await guest.close()


async def test_a_banned_player_is_told_why_and_until_when(
    server: Server, mod: httpx.AsyncClient
) -> None:
    ann, bob, code, host, guest = await table(server)
    body = {"kind": "ban", "player_id": bob.id, "reason": "cheating", "minutes": 60}
    made = await mod.post("/api/admin/sanctions", json=body)
    assert made.status_code == 200, made.text
    # No chat, no new room, no room to join, no seat.
    refused = await said(guest, "hi")
    assert refused["code"] == ErrorCode.BANNED and "cheating" in refused["message"]
    created = await bob.http.post("/api/rooms", json={"name": "Bob"})
    assert created.status_code == 403
    assert created.json()["code"] == ErrorCode.BANNED
    assert "until" in created.json()["detail"] and "cheating" in created.json()["detail"]
    joined = await bob.http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
    assert joined.status_code == 403
    queued = await bob.http.post("/api/quickplay", json={"mode": "partnership", "target": 200})
    assert queued.status_code == 403 and queued.json()["code"] == ErrorCode.BANNED
    polled = await bob.http.get("/api/quickplay")
    assert polled.status_code == 403 and "until" in polled.json()["detail"]
    other = (await ann.http.post("/api/rooms", json={"name": "Ann"})).json()
    watcher = await bob.socket(other["code"], None)
    credential = bob.http.headers[HEADER]
    await watcher.send(type="sit", name="Bob", player=credential, id="sit")
    sat = await watcher.until(lambda m: m.get("ref") == "sit")
    assert sat["type"] == "error" and sat["code"] == ErrorCode.BANNED
    listed = (await mod.get("/api/admin/sanctions")).json()["sanctions"]
    (shown,) = [s for s in listed if s["id"] == made.json()["id"]]
    assert (shown["kind"], shown["player_name"], shown["created_by_name"]) == (
        "ban",
        "Bob",
        "Mod (moderator)",
    )
    entry = (await mod.get("/api/admin/audit")).json()["entries"][0]
    assert (entry["action"], entry["target"]) == ("ban", bob.id)
    assert (entry["actor_name"], entry["target_name"]) == ("Mod (moderator)", "Bob")
    assert entry["detail"]["reason"] == "cheating"
    for client in (host, guest, watcher):
        await client.close()


async def test_an_address_range_ban_refuses_every_player_in_it(
    server: Server, mod: httpx.AsyncClient
) -> None:
    body = {"kind": "ban", "network": "10.77.0.0/16", "reason": "abuse", "minutes": 5}
    made = await mod.post("/api/admin/sanctions", json=body)
    assert made.status_code == 200, made.text
    inside = await Person(server, "10.77.3.4").made("Eve")
    refused = await inside.http.post("/api/rooms", json={"name": "Eve"})
    assert refused.status_code == 403 and refused.json()["code"] == ErrorCode.BANNED
    outside = await Person(server, "10.78.3.4").made("Ned")
    assert (await outside.http.post("/api/rooms", json={"name": "Ned"})).status_code == 200
    bad = await mod.post("/api/admin/sanctions", json={**body, "network": "10.77/99"})
    assert bad.status_code == 422
    both = await mod.post("/api/admin/sanctions", json={**body, "player_id": inside.id})
    assert both.status_code == 422
    assert (await mod.delete(f"/api/admin/sanctions/{made.json()['id']}")).status_code == 204


async def test_the_host_mutes_a_seat_in_their_room(server: Server) -> None:
    _ann, _bob, _code, host, guest = await table(server)
    await guest.send(type="mute", seat=0, id="not host")
    refused = await guest.until(lambda m: m.get("ref") == "not host")
    assert refused["code"] == ErrorCode.HOST_ONLY
    await host.send(type="mute", seat=1, id="mute")
    assert (await host.until(lambda m: m.get("ref") == "mute"))["type"] == "muted"
    muted = await said(guest, "can you hear me")
    assert muted["code"] == ErrorCode.MUTED
    await host.send(type="mute", seat=1, muted=False, id="unmute")
    await host.until(lambda m: m.get("ref") == "unmute")
    assert (await said(guest, "now?"))["type"] == "chat"
    await host.close()
    await guest.close()


async def test_an_administrator_closes_a_room(server: Server, mod: httpx.AsyncClient) -> None:
    _ann, _bob, code, host, guest = await table(server)
    closed = await mod.post(f"/api/admin/rooms/{code}/close", json={"reason": "abuse"})
    assert closed.status_code == 204, closed.text
    told = await guest.until(lambda m: m["type"] == "error")
    assert told["code"] == ErrorCode.ABANDONED and "abuse" in told["message"]
    entry = (await mod.get("/api/admin/audit")).json()["entries"][0]
    assert (entry["action"], entry["target"]) == ("close_room", code)
    await host.close()
    await guest.close()


async def test_a_banned_player_cannot_chat_as_a_spectator_nor_quick_chat(
    server: Server, mod: httpx.AsyncClient
) -> None:
    ann, bob, _code, host, guest = await table(server)
    watched = (await ann.http.post("/api/rooms", json={"name": "Ann"})).json()
    watcher = await bob.socket(watched["code"], None)
    credential = bob.http.headers[HEADER]
    await watcher.send(type="chat", text="watching", player=credential, id="before")
    assert (await watcher.until(lambda m: m.get("ref") == "before" or m["type"] == "chat"))[
        "type"
    ] == "chat"
    body = {"kind": "ban", "player_id": bob.id, "reason": "trolling", "minutes": 45}
    made = await mod.post("/api/admin/sanctions", json=body)
    assert made.status_code == 200, made.text
    until = made.json()["ends_at"][:16].replace("T", " ")
    # As a spectator (the chat names the player), and by quick chat from the seat.
    await watcher.send(type="chat", text="still watching", player=credential, id="after")
    refused = await watcher.until(lambda m: m.get("ref") == "after")
    assert refused["type"] == "error" and refused["code"] == ErrorCode.BANNED
    assert f"until {until} UTC: trolling" in refused["message"]
    await guest.send(type="quick", phrase="good_game", id="quick")
    quick = await guest.until(lambda m: m.get("ref") == "quick" or m["type"] == "quick")
    assert quick["type"] == "error" and quick["code"] == ErrorCode.BANNED
    assert "trolling" in quick["message"] and "until" in quick["message"]
    # A wrong credential is refused as such, and nothing is said.
    await watcher.send(type="chat", text="who am i", player=f"{bob.id}:nope", id="wrong")
    wrong = await watcher.until(lambda m: m.get("ref") == "wrong")
    assert wrong["type"] == "error" and wrong["code"] == ErrorCode.BAD_PLAYER
    assert (await mod.delete(f"/api/admin/sanctions/{made.json()['id']}")).status_code == 204
    for client in (host, guest, watcher):
        await client.close()


async def test_a_spectators_reported_message_names_their_player(
    server: Server, mod: httpx.AsyncClient
) -> None:
    ann, _bob, code, host, guest = await table(server)
    eve = await Person(server).made("Eve")
    watcher = await eve.socket(code, None)
    await watcher.send(type="chat", text="spoilers", player=eve.http.headers[HEADER], id="s")
    seen = await host.until(lambda m: m["type"] == "chat" and m["text"] == "spoilers")
    assert seen["seat"] is None and seen["name"].startswith("Spectator")
    report = {"room": code, "seat": None, "message_at": seen["at"], "reason": "spoilers"}
    made = await ann.http.post("/api/reports", json=report)
    assert made.status_code == 200, made.text
    listed = (await mod.get("/api/admin/reports")).json()["reports"]
    found = next(r for r in listed if r["id"] == made.json()["id"])
    assert (found["player_id"], found["seat"], found["message"]) == (eve.id, None, "spoilers")
    for client in (host, guest, watcher):
        await client.close()


async def test_the_hosts_mute_holds_when_the_player_stands_to_watch(server: Server) -> None:
    _ann, bob, _code, host, guest = await table(server)
    await host.send(type="mute", seat=1, id="mute")
    assert (await host.until(lambda m: m.get("ref") == "mute"))["type"] == "muted"
    await guest.send(type="stand", id="stand")
    await guest.until(lambda m: m.get("ref") == "stand")
    await guest.send(type="chat", text="from the rail", player=bob.http.headers[HEADER], id="r")
    refused = await guest.until(lambda m: m.get("ref") == "r")
    assert refused["type"] == "error" and refused["code"] == ErrorCode.MUTED
    await host.close()
    await guest.close()


async def test_a_signed_in_spectator_is_named_by_their_session(
    server: Server, mod: httpx.AsyncClient
) -> None:
    ann = await Person(server).made("Ann")
    room = (await ann.http.post("/api/rooms", json={"name": "Ann"})).json()
    account = httpx.AsyncClient(base_url=server.url, headers={"X-Forwarded-For": "10.3.0.1"})
    made = (await account.post("/api/players", json={"name": "Sam"})).json()
    claimed = await account.post(
        "/api/account",
        json={"username": "sam_watcher", "password": PASSWORD},
        headers={HEADER: made["credential"]},
    )
    assert claimed.status_code == 201, claimed.text
    ws = await connect(
        f"{server.ws_url}/ws/{room['code']}",
        ping_interval=None,
        additional_headers={"Cookie": f"spades_session={account.cookies['spades_session']}"},
    )
    watcher = Client(ws)
    await watcher.send(type="hello", token=None, id="hello")
    await watcher.until(lambda m: m["type"] == "state")
    body = {"kind": "mute", "player_id": made["id"], "reason": "flooding", "minutes": 10}
    muted = await mod.post("/api/admin/sanctions", json=body)
    assert muted.status_code == 200, muted.text
    refused = await said(watcher, "no player named")  # the session's player, filled in
    assert refused["type"] == "error" and refused["code"] == ErrorCode.MUTED
    assert "flooding" in refused["message"] and "until" in refused["message"]
    assert (await mod.delete(f"/api/admin/sanctions/{muted.json()['id']}")).status_code == 204
    assert (await said(watcher, "heard now"))["type"] == "chat"
    await watcher.close()
    await account.aclose()
