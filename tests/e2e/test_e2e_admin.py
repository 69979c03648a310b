"""The administrators' page in the browser (/#admin), on a server of the test's own (an
administrator is granted on its database by the command line): an administrator signed in
finds the link in their Account section, reads a report with its context, bans the
reported player from it (who is then refused chat, told why and until when), marks the
report dealt with, lifts the ban, mutes him for an hour (his chat refused, saying why and
until when) and lifts that, closes a room and reads all of it in the audit log; axe
finds no serious or critical violation on the page. A signed-in player who is not an
administrator has no link, is shown no admin page, and the API refuses them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_helpers import shoot
from e2e_server import run_server
from test_e2e_moderation import administrator
from test_e2e_players import axe_violations
from websockets.sync.client import ClientConnection, connect

from spades.codes import ErrorCode

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"


def until(ws: ClientConnection, ref: str) -> dict[str, Any]:
    """The message answering `ref` (a chat said is sent to everyone, the sender too)."""
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if message.get("ref") == ref or (message["type"] == "chat" and message["text"] == ref):
            return message


def a_room_with_bob(url: str) -> tuple[dict[str, Any], dict[str, Any], str, str]:
    """Ann hosts a room, Bob (a guest) joins it: Ann's credential, Bob, the room, Bob's
    seat token."""
    with httpx.Client(base_url=url, timeout=30) as http:
        ann = http.post("/api/players", json={"name": "Ann"}).json()
        bob = http.post("/api/players", json={"name": "Bob"}).json()
        room = http.post(
            "/api/rooms", json={"name": "Ann"}, headers={"X-Spades-Player": ann["credential"]}
        ).json()
        joined = http.post(
            f"/api/rooms/{room['code']}/join",
            json={"name": "Bob"},
            headers={"X-Spades-Player": bob["credential"]},
        )
    assert joined.status_code == 200, joined.text
    return ann, bob, room, joined.json()["token"]


def say_and_be_reported(url: str, ws: ClientConnection, ann: dict[str, Any], code: str) -> None:
    """Bob says something rude on his socket, and Ann reports it (with the seq)."""
    ws.send(json.dumps({"type": "chat", "text": "rude words", "id": "rude"}))
    said = until(ws, "rude words")
    report = {
        "room": code,
        "seat": said["seat"],
        "message_at": said["at"],
        "game_id": None,
        "seq": 0,
        "reason": "insults",
    }
    made = httpx.post(
        f"{url}/api/reports", json=report, headers={"X-Spades-Player": ann["credential"]}
    )
    assert made.status_code == 200, made.text


def sign_in(page: Any, username: str) -> None:
    page.goto("/")
    form = page.get_by_role("form", name="Sign in")
    form.get_by_label("Username").fill(username)
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    page.get_by_text("Signed in as").wait_for()


def test_an_administrator_acts_on_a_report(
    new_page: Any, tmp_path: Path, screenshots: Path
) -> None:
    with run_server(tmp_path) as server:
        url = server.replace("127.0.0.1", "localhost")
        administrator(url, f"sqlite+aiosqlite:///{tmp_path / 'e2e.db'}").close()
        ann, bob, room, token = a_room_with_bob(url)
        with connect(url.replace("http", "ws", 1) + f"/ws/{room['code']}") as bob_ws:
            bob_ws.send(json.dumps({"type": "hello", "token": token, "id": "hello"}))
            until(bob_ws, "hello")
            say_and_be_reported(url, bob_ws, ann, room["code"])
            acting_on_the_report(new_page(base_url=url), bob, room, bob_ws, screenshots)


def acting_on_the_report(
    page: Any,
    bob: dict[str, Any],
    room: dict[str, Any],
    bob_ws: ClientConnection,
    screenshots: Path,
) -> None:
    sign_in(page, "mod")
    page.get_by_test_id("admin-link").click()
    page.get_by_role("heading", name="Administration").wait_for()
    report = page.locator(".admin-item", has_text="rude words")
    report.wait_for()
    text = report.inner_text()
    assert "Reported by" in text and "Ann" in text and "insults" in text
    assert room["code"] in text and "seq 0" in text and "seat 1" in text
    report.locator("summary").click()
    assert report.locator(".admin-chat li.reported", has_text="rude words").count() == 1
    assert axe_violations(page) == []
    shoot(page, screenshots, "p62-admin-report")

    # Ban the reported player from the report, for a day.
    report.get_by_role("button", name="Mute or ban Bob").click()
    form = page.get_by_role("region", name="Mute or ban")
    assert form.get_by_label("Player id").input_value() == bob["id"]
    form.get_by_label("Ban from playing and chatting").check()
    form.get_by_label("Reason (the player reads it)").fill("abuse")
    form.get_by_label("For").select_option(label="1 day")
    form.get_by_role("button", name="Apply").click()
    in_force = page.get_by_role("region", name=re.compile(r"^Mutes and bans in force"))
    ban = in_force.locator("tbody tr", has_text="abuse")
    ban.wait_for()
    until_text = re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", ban.inner_text())
    assert until_text is not None and "Ban" in ban.inner_text()
    bob_ws.send(json.dumps({"type": "chat", "text": "still here", "id": "after"}))
    refused = until(bob_ws, "after")
    assert refused["code"] == ErrorCode.BANNED
    assert f"until {until_text.group(0)}: abuse" in refused["message"]

    report.get_by_role("button", name="Mark dealt with").click()
    page.get_by_text("No open report.").wait_for()
    page.get_by_role("button", name="Lift the ban of Bob").click()
    page.get_by_role("region", name="Mutes and bans in force (0)").wait_for()
    bob_ws.send(json.dumps({"type": "chat", "text": "free again", "id": "free"}))
    assert until(bob_ws, "free again")["type"] == "chat"

    # A site-wide mute for an hour, typed by hand: chat refused, saying why and until when.
    form.get_by_label("Mute chat").check()
    form.get_by_label("Player id").fill(bob["id"])
    form.get_by_label("Reason (the player reads it)").fill("flooding")
    form.get_by_label("For").select_option(label="1 hour")
    form.get_by_role("button", name="Apply").click()
    mute = in_force.locator("tbody tr", has_text="flooding")
    mute.wait_for()
    assert "Mute" in mute.inner_text() and "Bob" in mute.inner_text()
    bob_ws.send(json.dumps({"type": "chat", "text": "hush", "id": "hush"}))
    hushed = until(bob_ws, "hush")
    assert hushed["code"] == ErrorCode.MUTED and "flooding" in hushed["message"]
    assert "until" in hushed["message"]
    page.get_by_role("button", name="Lift the mute of Bob").click()
    page.get_by_role("region", name="Mutes and bans in force (0)").wait_for()

    # Close the room (Bob is told why), from the form.
    close = page.get_by_role("region", name="Close a room")
    close.get_by_label("Room code").fill(room["code"])
    close.get_by_label("Reason (everyone in it reads it)").fill("closing time")
    close.get_by_role("button", name="Close the room").click()
    while (message := json.loads(bob_ws.recv(timeout=30)))["type"] != "error":
        pass
    assert message["code"] == ErrorCode.ABANDONED and "closing time" in message["message"]

    # The audit log has it all, newest first.
    audit = page.get_by_role("region", name="Audit log")
    audit.locator("tr", has_text="closed room").wait_for()
    rows = [r.inner_text() for r in audit.locator("tbody tr").all()]
    did = [next((a for a in ACTIONS if a in row), row) for row in rows]
    assert did == list(ACTIONS)
    assert "Bob" in rows[1] and "flooding" in rows[2] and "abuse" in rows[5]
    assert axe_violations(page) == []


ACTIONS = (
    "closed room",
    "lifted a mute of",
    "muted the chat of",
    "lifted a ban of",
    "closed report",
    "banned from play",
    "gave the administrator role to",
)


def test_anyone_else_sees_no_admin_page_and_is_refused(new_page: Any, tmp_path: Path) -> None:
    with run_server(tmp_path) as server:
        url = server.replace("127.0.0.1", "localhost")
        page = new_page(base_url=url)
        page.goto("/")
        page.get_by_role("heading", name="Your account").wait_for()
        form = page.get_by_role("form", name="Create an account")
        form.get_by_label("Username").fill("player_one")
        form.get_by_label("Password").fill(PASSWORD)
        form.get_by_role("button", name="Create account").click()
        page.get_by_text("Signed in as").wait_for()
        assert page.get_by_test_id("admin-link").count() == 0
        page.goto("/#admin")
        page.get_by_test_id("admin-refused").wait_for()
        assert page.get_by_role("heading", name="Administration").count() == 0
        assert page.locator(".admin-item, .sanction-form, .admin-table").count() == 0
        assert axe_violations(page) == []
        # The routes refuse the signed-in player whatever the page shows.
        answers = page.evaluate(
            """async () => {
              const csrf = document.cookie.match(/spades_csrf=([^;]+)/)[1];
              const get = await fetch('/api/admin/reports');
              const ban = await fetch('/api/admin/sanctions', {
                method: 'POST',
                headers: {'Content-Type': 'application/json', 'X-Spades-CSRF': csrf},
                body: JSON.stringify({kind: 'ban', network: '10.0.0.0/8', reason: 'x',
                                      minutes: 5}),
              });
              return [get.status, (await get.json()).code, ban.status, (await ban.json()).code];
            }"""
        )
        assert answers == [403, ErrorCode.ADMIN_ONLY, 403, ErrorCode.ADMIN_ONLY]
