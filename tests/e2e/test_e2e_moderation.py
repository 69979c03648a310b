"""Moderation in the browser: a chat message reported with the Report button reaches the
administrators with its text, the Hide button hides a player's chat for oneself, and a
player banned by an administrator is told why and until when when they chat (seated or
watching), sit, create a room or queue for quick play (on a server of the test's own, so
that an administrator can be granted on its database)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_helpers import fill_create_form
from e2e_server import run_server

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"


def administrator(url: str, database_url: str) -> httpx.Client:
    http = httpx.Client(base_url=url, timeout=30)
    made = http.post("/api/players", json={"name": "Mod"}).json()
    claimed = http.post(
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
    http.headers["X-Spades-CSRF"] = http.cookies["spades_csrf"]
    return http


def test_report_button_and_a_banned_players_message(new_page: Any, tmp_path: Path) -> None:
    with run_server(tmp_path) as url:
        host = new_page(base_url=url)
        host.goto("/")
        host.get_by_label("Your name").fill("Hosty")
        fill_create_form(host, mode="partnership", target=300, bots="easy")
        host.get_by_role("button", name="Create room").click()
        host.wait_for_url(re.compile(r"/r/[^/]+$"))
        invite = host.get_by_label("Invite link").input_value()
        friend = new_page(base_url=url)
        friend.goto(invite)
        friend.get_by_label("Your name").fill("Rude")
        friend.get_by_role("button", name="Sit here, in the North seat").click()
        friend.locator(".lobby-seat.mine").wait_for()
        friend.get_by_role("textbox", name="Message").fill("rude words")
        friend.get_by_role("button", name="Send").click()

        line = host.locator(".chat-log li", has_text="rude words")
        line.get_by_role("button", name="Report").click()
        host.get_by_label("Why?").fill("insults")
        host.get_by_role("button", name="Send report").click()
        host.get_by_text("Report sent to the administrators").wait_for()
        # Hiding a player's chat is the host's own (kept by this browser for the room).
        line.get_by_role("button", name="Hide").click()
        host.locator(".chat-log li", has_text="Rude: hidden").wait_for()
        assert host.locator(".chat-log li", has_text="rude words").count() == 0
        host.get_by_role("button", name="Show Rude's messages").click()
        line.wait_for()

        mod = administrator(url, f"sqlite+aiosqlite:///{tmp_path / 'e2e.db'}")
        (report,) = mod.get("/api/admin/reports").json()["reports"]
        assert (report["message"], report["name"], report["reason"]) == (
            "rude words",
            "Rude",
            "insults",
        )
        ban = {"kind": "ban", "player_id": report["player_id"], "reason": "abuse", "minutes": 90}
        assert mod.post("/api/admin/sanctions", json=ban).status_code == 200
        friend.get_by_role("textbox", name="Message").fill("still here")
        friend.get_by_role("button", name="Send").click()
        told = friend.locator(".toast", has_text="banned")
        told.wait_for()
        assert re.search(r"until \d{4}-\d\d-\d\d \d\d:\d\d UTC: abuse", told.inner_text())
        # Watching from the rail changes nothing: the chat still names the player.
        friend.get_by_role("button", name="Leave seat").click()
        friend.locator(".lobby-seat.mine").wait_for(state="detached")
        told.wait_for(state="detached")
        friend.get_by_role("textbox", name="Message").fill("from the rail")
        friend.get_by_role("button", name="Send").click()
        watching = friend.locator(".toast", has_text="banned")
        watching.wait_for()
        assert "abuse" in watching.inner_text() and "until" in watching.inner_text()
        assert host.locator(".chat-log li", has_text="from the rail").count() == 0
        # Nor a seat again.
        watching.wait_for(state="detached")
        friend.get_by_role("button", name="Sit here, in the North seat").click()
        sit = friend.locator(".toast", has_text="banned")
        sit.wait_for()
        assert "abuse" in sit.inner_text() and "until" in sit.inner_text()
        assert friend.locator(".lobby-seat.mine").count() == 0
        # A new room is refused with the same words, under the form; so is quick play.
        friend.goto("/")
        fill_create_form(friend, mode="partnership", target=300, bots="easy")
        friend.get_by_role("button", name="Create room").click()
        refused = friend.locator(".form-error", has_text="banned")
        refused.wait_for()
        assert "abuse" in refused.inner_text()
        friend.get_by_role("button", name="Play now").click()
        queue = friend.locator(".quickplay .form-error", has_text="banned")
        queue.wait_for()
        assert "abuse" in queue.inner_text() and "until" in queue.inner_text()
        mod.close()
