"""Two people in one private room: invite link, seats, chat, start, both play."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import MY_MOVE, act, fill_create_form, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

FRIEND_NAME = "<b>Ann</b><img src=x>"


def test_friends_private_room(new_page: Any, screenshots: Path) -> None:
    host = new_page()
    host.goto("/")
    host.get_by_label("Your name").fill("Hosty")
    fill_create_form(host, mode="partnership", target=300, bots="easy")
    # A room is public by default (the server's default); this one is for friends only.
    listed = host.get_by_label("List in public rooms")
    assert listed.is_checked() is True
    listed.uncheck()
    host.get_by_role("button", name="Create room").click()
    host.wait_for_url(re.compile(r"/r/[^/]+$"))
    host.get_by_role("button", name="Start game").wait_for()
    code = host.url.rsplit("/", 1)[1]
    invite = host.get_by_label("Invite link").input_value()
    assert invite.endswith(f"/r/{code}")
    # A private room is not listed on the home page.
    listed = host.request.get("/api/rooms").json()["rooms"]
    assert code not in [room["code"] for room in listed]

    friend = new_page()
    friend.goto(invite)
    friend.get_by_role("button", name="Sit here, in the North seat").wait_for()
    assert friend.get_by_role("button", name="Start game").count() == 0
    friend.get_by_label("Your name").fill(FRIEND_NAME)
    friend.get_by_role("button", name="Sit here, in the North seat").click()
    friend.locator(".lobby-seat.mine").wait_for()
    assert friend.evaluate(f"localStorage.getItem('spades.token.{code}')")

    # The host sees the friend's name as text, never as markup.
    north = host.locator(".lobby-seat", has_text=FRIEND_NAME)
    north.wait_for()
    assert north.locator("img, b").count() == 0
    assert north.get_by_text("Connected").count() == 1
    friend.get_by_role("textbox", name="Message").fill("hi <i>all</i>")
    friend.get_by_role("button", name="Send").click()
    host.locator(".chat-log li", has_text="hi <i>all</i>").wait_for()
    assert host.locator(".chat-log i").count() == 0

    # The host changes a setting before the start; everyone sees it.
    host.locator("summary", has_text="Room settings").click()
    host.get_by_label("Custom target score").fill("250")
    host.get_by_role("button", name="Save settings").click()
    friend.get_by_text("Partners · to 250").wait_for()
    host.get_by_text("Saved: Play to 300 → 250").wait_for()  # what changed, not "sent"
    # The form takes its range from the server's schema (50 to 10,000).
    custom = host.get_by_label("Custom target score")
    assert (custom.get_attribute("min"), custom.get_attribute("max")) == ("50", "10000")

    # Host seats a bot in the West seat; East stays empty until the start.
    host.get_by_role("button", name="Seat a bot in the West seat").click()
    host.locator(".lobby-seat", has_text="West Bot").wait_for()
    shoot(host, screenshots, "room")

    host.get_by_role("button", name="Start game").click()
    for page in (host, friend):
        page.locator(".table-screen").wait_for()
    assert host.locator(".seat-plate .tag.bot").count() == 2
    assert host.locator(".seat-plate", has_text=FRIEND_NAME).locator(".tag.partner").count() == 1

    # Both humans bid and play their own cards (a few tricks' worth).
    played = {"host": 0, "friend": 0}
    pages = {"host": host, "friend": friend}
    for _ in range(400):
        if min(played.values()) >= 3:
            break
        for who, page in pages.items():
            if page.locator(MY_MOVE).count():
                played[who] += act(page) == "play"
        host.wait_for_timeout(20)
    else:
        pytest.fail(f"the humans did not get to play: {played}")
    # Each sees the other's bid and the same scoreboard.
    host_bids = host.locator(".scoreboard tbody td:nth-of-type(1)").all_inner_texts()
    # expect() polls in Playwright's own script (a wait_for_function is eval'd in the page
    # when it polls, which the app's CSP forbids).
    expect(friend.locator(".scoreboard tbody td:nth-of-type(1)")).to_have_text(host_bids)
