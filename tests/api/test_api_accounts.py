"""Accounts over a real uvicorn (one server for the module, SQLite): claiming an account
for a guest, signing in and out, the session cookie and its CSRF token, the same answer for
an unknown user and a wrong password, failed sign-ins limited per address, a new password,
sign-out everywhere against a stolen cookie, a deleted account's name gone from every
record and history, and the socket's `sit` signed in (a seat taken back from another
device)."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from api_helpers import Client, Server, play_until_over, running_server
from websockets.asyncio.client import connect

from spades.codes import CloseCode, ErrorCode

pytestmark = pytest.mark.asyncio(loop_scope="module")

HEADER = "X-Spades-Player"
CSRF = "X-Spades-CSRF"
PASSWORD = "correct horse battery"
_addresses = itertools.count(1)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Server]:
    # The server believes X-Forwarded-For from this host: each test signs in from an
    # address of its own, so one test's failed sign-ins are not another's.
    path: Path = tmp_path_factory.mktemp("accounts")
    async with running_server(path, forwarded_allow_ips="127.0.0.1") as s:
        yield s


def browser(server: Server) -> httpx.AsyncClient:
    """A client with a cookie jar of its own, from an address of its own."""
    address = f"10.0.0.{next(_addresses)}"
    return httpx.AsyncClient(base_url=server.url, headers={"X-Forwarded-For": address})


def csrf(client: httpx.AsyncClient) -> dict[str, str]:
    return {CSRF: client.cookies["spades_csrf"]}


async def guest(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    made = await client.post("/api/players", json={"name": name})
    assert made.status_code == 201, made.text
    data: dict[str, Any] = made.json()
    return data


async def account(client: httpx.AsyncClient, name: str, username: str) -> dict[str, Any]:
    """A guest made and its account claimed: `client` is signed in to it."""
    made = await guest(client, name)
    claimed = await client.post(
        "/api/account",
        json={"username": username, "password": PASSWORD},
        headers={HEADER: made["credential"]},
    )
    assert claimed.status_code == 201, claimed.text
    return made


async def test_claiming_an_account_keeps_the_player(server: Server) -> None:
    async with browser(server) as first, browser(server) as second:
        made = await guest(first, "Ann")
        bad = await first.post(
            "/api/account",
            json={"username": "no spaces", "password": PASSWORD},
            headers={HEADER: made["credential"]},
        )
        assert bad.status_code == 422
        claimed = await first.post(
            "/api/account",
            json={"username": "Ann_Claim", "password": PASSWORD},
            headers={HEADER: made["credential"]},
        )
        assert claimed.status_code == 201, claimed.text
        assert claimed.json() == {
            "id": made["id"],
            "name": "Ann",
            "public": False,
            "username": "Ann_Claim",
            "account": True,
        }
        cookie = claimed.headers.get_list("set-cookie")
        session = next(c for c in cookie if c.startswith("spades_session="))
        assert "HttpOnly" in session and "SameSite=lax" in session and "Path=/" in session
        assert "Secure" not in session  # plain HTTP here; TLS (or a trusted proxy's) sets it
        token = next(c for c in cookie if c.startswith("spades_csrf="))
        assert "HttpOnly" not in token
        # The guest secret is revoked: only the session reaches the account now.
        old = await second.get("/api/me", headers={HEADER: made["credential"]})
        assert old.status_code == 401 and old.json()["code"] == ErrorCode.BAD_PLAYER
        me = await first.get("/api/me")
        assert me.status_code == 200 and me.json()["username"] == "Ann_Claim"
        # The username is taken whatever its case; a player with an account claims no other.
        other = await guest(second, "Bob")
        taken = await second.post(
            "/api/account",
            json={"username": "ann_CLAIM", "password": PASSWORD},
            headers={HEADER: other["credential"]},
        )
        assert taken.status_code == 409 and taken.json()["code"] == ErrorCode.USERNAME_TAKEN
        again = await first.post(
            "/api/account", json={"username": "Ann2", "password": PASSWORD}, headers=csrf(first)
        )
        assert again.status_code == 409 and again.json()["code"] == ErrorCode.HAS_ACCOUNT


async def test_the_session_cookie_is_secure_over_tls(server: Server) -> None:
    # Over TLS, here as a trusted proxy says it (X-Forwarded-Proto), the cookies are Secure.
    async with browser(server) as client:
        await account(client, "Ida", "ida")
        signed = await client.post(
            "/api/session",
            json={"username": "ida", "password": PASSWORD},
            headers={"X-Forwarded-Proto": "https"},
        )
        assert signed.status_code == 200
        cookies = signed.headers.get_list("set-cookie")
        assert len(cookies) == 2 and all("; Secure" in c for c in cookies), cookies


async def test_wrong_password_and_unknown_user_answer_alike(server: Server) -> None:
    async with browser(server) as first, browser(server) as second:
        made = await account(first, "Cid", "cid")
        wrong = await second.post("/api/session", json={"username": "cid", "password": "nope-nope"})
        unknown = await second.post(
            "/api/session", json={"username": "nobody-here", "password": "nope-nope"}
        )
        assert wrong.status_code == unknown.status_code == 401
        assert (
            wrong.json()
            == unknown.json()
            == {
                "detail": "wrong username or password",
                "code": ErrorCode.BAD_LOGIN,
            }
        )
        assert "spades_session" not in second.cookies
        signed = await second.post("/api/session", json={"username": "CID", "password": PASSWORD})
        assert signed.status_code == 200 and signed.json()["id"] == made["id"]
        assert (await second.get("/api/me")).json()["username"] == "cid"
        # From another site, a sign-in is refused (no logging a browser in to one's account).
        evil = await second.post(
            "/api/session",
            json={"username": "cid", "password": PASSWORD},
            headers={"Origin": "https://evil.example"},
        )
        assert evil.status_code == 403 and evil.json()["code"] == ErrorCode.CSRF_FAILED


async def test_the_tenth_failed_sign_in_in_a_minute_is_refused(server: Server) -> None:
    async with browser(server) as client:
        for n in range(9):
            failed = await client.post(
                "/api/session", json={"username": f"user{n}", "password": "wrong-one"}
            )
            assert failed.status_code == 401, (n, failed.text)
        refused = await client.post(
            "/api/session", json={"username": "user9", "password": "wrong-one"}
        )
        assert refused.status_code == 429
        assert refused.json()["code"] == ErrorCode.TOO_MANY_LOGINS
        assert int(refused.headers["retry-after"]) > 0


async def test_changes_need_the_csrf_token(server: Server) -> None:
    async with browser(server) as client:
        made = await account(client, "Dee", "dee")
        missing = await client.patch("/api/me", json={"name": "Mallory"})
        assert missing.status_code == 403 and missing.json()["code"] == ErrorCode.CSRF_FAILED
        forged = await client.patch("/api/me", json={"name": "Mallory"}, headers={CSRF: "0" * 64})
        assert forged.status_code == 403
        cross = await client.patch(
            "/api/me",
            json={"name": "Mallory"},
            headers={**csrf(client), "Origin": "https://evil.example"},
        )
        assert cross.status_code == 403
        room = await client.post("/api/rooms", json={"name": "Dee"})
        assert room.status_code == 403  # a room in the player's name is a change too
        assert (await server.app.state.store.get_player(made["id"])).name == "Dee"  # unchanged
        assert (await client.post("/api/account/sign-out-everywhere")).status_code == 403
        assert (await client.get("/api/me")).status_code == 200  # still signed in
        renamed = await client.patch("/api/me", json={"name": "Dina"}, headers=csrf(client))
        assert renamed.status_code == 200 and renamed.json()["name"] == "Dina"


async def test_a_new_password_signs_out_the_other_sessions(server: Server) -> None:
    async with browser(server) as first, browser(server) as second, browser(server) as third:
        await account(first, "Eve", "eve")
        signed = await second.post("/api/session", json={"username": "eve", "password": PASSWORD})
        assert signed.status_code == 200
        wrong = await first.post(
            "/api/account/password",
            json={"current_password": "not-the-one", "new_password": "a new password"},
            headers=csrf(first),
        )
        assert wrong.status_code == 401 and wrong.json()["code"] == ErrorCode.BAD_LOGIN
        short = await first.post(
            "/api/account/password",
            json={"current_password": PASSWORD, "new_password": "short"},
            headers=csrf(first),
        )
        assert short.status_code == 422
        changed = await first.post(
            "/api/account/password",
            json={"current_password": PASSWORD, "new_password": "a new password"},
            headers=csrf(first),
        )
        assert changed.status_code == 204
        assert (await first.get("/api/me")).status_code == 200  # this browser stays
        assert (await second.get("/api/me")).status_code == 401  # the other one is out
        old = await third.post("/api/session", json={"username": "eve", "password": PASSWORD})
        assert old.status_code == 401
        new = await third.post(
            "/api/session", json={"username": "eve", "password": "a new password"}
        )
        assert new.status_code == 200


async def test_a_stolen_cookie_is_refused_after_sign_out_everywhere(server: Server) -> None:
    async with browser(server) as owner, browser(server) as thief, browser(server) as other:
        await account(owner, "Fay", "fay")
        assert (
            await other.post("/api/session", json={"username": "fay", "password": PASSWORD})
        ).status_code == 200
        for name in ("spades_session", "spades_csrf"):
            thief.cookies.set(name, owner.cookies[name])
        assert (await thief.get("/api/me")).json()["username"] == "fay"  # the theft works...
        out = await owner.post("/api/account/sign-out-everywhere", headers=csrf(owner))
        assert out.status_code == 204
        for client in (thief, other, owner):
            refused = await client.get("/api/me")
            assert refused.status_code == 401 and refused.json()["code"] == ErrorCode.BAD_PLAYER
        stolen = {"Cookie": f"spades_session={thief.cookies['spades_session']}"}
        async with browser(server) as fresh:
            assert (await fresh.get("/api/me", headers=stolen)).status_code == 401
        # Signing out one browser revokes that session alone.
        signed = await owner.post("/api/session", json={"username": "fay", "password": PASSWORD})
        assert signed.status_code == 200
        assert (
            await other.post("/api/session", json={"username": "fay", "password": PASSWORD})
        ).status_code == 200
        assert (await owner.delete("/api/session", headers=csrf(owner))).status_code == 204
        assert (await owner.get("/api/me")).status_code == 401
        assert (await other.get("/api/me")).status_code == 200


async def socket(
    server: Server, code: str, client: httpx.AsyncClient | None, origin: str | None = None
) -> Client:
    headers = {}
    if client is not None:
        headers["Cookie"] = f"spades_session={client.cookies['spades_session']}"
    if origin is not None:
        headers["Origin"] = origin
    ws = await connect(
        f"{server.ws_url}/ws/{code}", max_size=None, ping_interval=None, additional_headers=headers
    )
    c = Client(ws)
    await c.send(type="hello", token=None, id="hello")
    await c.until(lambda m: m["type"] == "state")
    return c


async def test_a_signed_in_sit_and_a_seat_taken_back_from_another_device(server: Server) -> None:
    async with browser(server) as phone, browser(server) as laptop:
        made = await account(phone, "Gus", "gus")
        assert (
            await laptop.post("/api/session", json={"username": "gus", "password": PASSWORD})
        ).status_code == 200
        host = await server.create(public=True)
        code = host["code"]
        own = f"http://{server.url.removeprefix('http://')}"
        # From another site, the socket gets no session: the sit names no player.
        stranger = await socket(server, code, phone, origin="https://evil.example")
        await stranger.send(type="sit", name="Gus", seat=1, id="s1")
        await stranger.until(lambda m: m["type"] == "seated")
        stored = await server.app.state.store.get_room(host["room_id"])
        assert stored.seats[1].player_id is None
        await stranger.close()
        # From this site's page, the session fills in the sit's player.
        first = await socket(server, code, phone, origin=own)
        await first.send(type="sit", name="Gus", seat=2, id="s2")
        seated = await first.until(lambda m: m["type"] == "seated")
        stored = await server.app.state.store.get_room(host["room_id"])
        assert stored.seats[2].player_id == made["id"]
        # The host starts; the laptop's socket (no token) sits and gets Gus's seat back.
        owner = await server.client(code, host["token"])
        await owner.send(type="start", id="go")
        await owner.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        second = await socket(server, code, laptop, origin=own)
        await second.send(type="sit", name="Whoever", id="s3")
        again = await second.until(lambda m: m["type"] in ("seated", "error"))
        assert again["type"] == "seated" and again["seat"] == 2, again
        assert again["token"] != seated["token"]
        replaced = await first.until(lambda m: m["type"] == "error")
        assert replaced["code"] == ErrorCode.REPLACED
        await first.ws.wait_closed()
        assert first.ws.close_code == CloseCode.REPLACED
        # REST too: the home page's "Return to your game" on a device with no token.
        mine = (await laptop.get("/api/me/rooms")).json()["rooms"]
        assert [r["code"] for r in mine] == [code]
        joined = await laptop.post(
            f"/api/rooms/{code}/join", json={"name": "Gus"}, headers=csrf(laptop)
        )
        assert joined.status_code == 200 and joined.json()["seat"] == 2, joined.text
        for c in (second, owner):
            await c.close()


async def test_a_deleted_accounts_name_leaves_every_record(server: Server) -> None:
    name = "Hedda Zyx"
    async with browser(server) as client, browser(server) as watcher:
        made = await account(client, name, "hedda")
        await client.patch("/api/me", json={"public": True}, headers=csrf(client))
        created = await client.post(
            "/api/rooms",
            json={"name": name, "public": True, "mode": "individual", "target": 50},
            headers=csrf(client),
        )
        assert created.status_code == 200, created.text
        room = created.json()
        ws = await server.client(room["code"], room["token"])
        await ws.send(type="chat", text="good luck", id="c")
        await ws.send(type="start", id="go")
        final = await play_until_over(ws)
        game = final["room"]["game_id"]
        answers = [
            f"/api/rooms/{room['code']}",
            f"/api/games/{game}/record",
            f"/api/players/{made['id']}/games",
        ]
        for path in answers:
            shown = await watcher.get(path)
            assert shown.status_code == 200 and name in shown.text, path
        history = f"/api/rooms/{room['code']}/history"  # (no names in it: scores by seat)
        refused = await client.request(
            "DELETE", "/api/account", json={"password": "wrong-password"}, headers=csrf(client)
        )
        assert refused.status_code == 401
        deleted = await client.request(
            "DELETE", "/api/account", json={"password": PASSWORD}, headers=csrf(client)
        )
        assert deleted.status_code == 204, deleted.text
        for path in answers[:2]:
            shown = await watcher.get(path)
            assert shown.status_code == 200 and name not in shown.text, (path, shown.text)
            assert "Deleted player" in shown.text, path
        assert name not in (await watcher.get(history)).text
        assert (await watcher.get(answers[2])).status_code == 404  # as an unknown player
        assert (await client.get("/api/me")).status_code == 401
        gone = await watcher.post("/api/session", json={"username": "hedda", "password": PASSWORD})
        assert gone.status_code == 401
        # The room's own socket says it too.
        await ws.send(type="ping", id="p")
        await ws.until(lambda m: m["type"] == "pong")
        assert name not in json.dumps(ws.state["room"])
        await ws.close()
