"""What a walk of friends playing on phones (390 x 844, touch) found: a chat message arrived
unseen, the chat being far below the table."""

from __future__ import annotations

import re
from typing import Any

import pytest
from e2e_helpers import fill_create_form, open_with_token
from e2e_server import DESKTOP
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

TOUCH = {"is_mobile": True, "has_touch": True}
# A small phone (iPhone SE size): the lobby's chat starts a few hundred pixels below the fold
# whatever fonts the machine has (on 390 x 844 the margin was one line of text, and a machine
# with other fonts put the chat's top in view).
SMALL_PHONE = {"width": 375, "height": 667}


def test_a_chat_message_out_of_view_shows_for_a_moment(new_page: Any) -> None:
    """On a phone the chat is below the table: someone else's message shows in a toast
    (a polite live region) with their name; your own does not, and neither does a message
    while the chat is in view (a desktop's side column)."""
    host = new_page(viewport=SMALL_PHONE, **TOUCH)
    host.goto("/")
    host.get_by_label("Your name").fill("Hana")
    fill_create_form(host, mode="partnership")
    host.get_by_role("button", name="Create room").click()
    host.wait_for_url(re.compile(r"/r/[^/]+$"))
    host.get_by_role("button", name="Start game").wait_for()
    invite = host.get_by_label("Invite link").input_value()
    # The whole link shows, room code included (beside the button it was cut after the port).
    assert host.get_by_label("Invite link").evaluate("e => e.scrollWidth <= e.clientWidth")
    below = "e => e.getBoundingClientRect().top >= innerHeight"
    assert host.locator(".chat-log").evaluate(below)

    friend = new_page(viewport=DESKTOP)
    friend.goto(invite)
    friend.get_by_label("Your name").fill("Finn")
    friend.get_by_role("button", name="Sit here, in the North seat").click()
    friend.locator(".lobby-seat.mine").wait_for()
    friend.get_by_role("textbox", name="Message").fill("hello from Finn")
    friend.get_by_role("button", name="Send").click()

    toast = host.locator("#toasts .toast")
    expect(toast).to_have_text("Finn: hello from Finn")
    # Under the top bar, not over the hand at the bottom of the screen.
    assert toast.evaluate("e => e.getBoundingClientRect().bottom < innerHeight / 3")
    assert host.locator("#toasts").get_attribute("aria-live") == "polite"
    friend.locator(".chat-log li", has_text="hello from Finn").wait_for()
    host.locator(".chat-log li", has_text="hello from Finn").wait_for()

    # The host answers: the friend has the chat in view (and the host wrote it): no toast.
    host.get_by_role("textbox", name="Message").fill("hi Finn")
    host.get_by_role("button", name="Send").click()
    friend.locator(".chat-log li", has_text="hi Finn").wait_for()
    host.locator(".chat-log li", has_text="hi Finn").wait_for()
    host.wait_for_timeout(200)
    expect(friend.locator("#toasts .toast")).to_have_count(0)
    expect(host.locator("#toasts .toast", has_text="hi Finn")).to_have_count(0)


def test_the_others_see_when_an_offline_host_hands_over(new_page: Any) -> None:
    """The host closes the tab in the lobby: the friend is told the host is offline and
    when the host's role passes to someone here (not a silent "Waiting for the host"), and
    a visitor is told what they may do; the host coming back ends it."""
    host = new_page(viewport=SMALL_PHONE, **TOUCH)
    made = host.request.post("/api/rooms", data={"name": "Hana", "mode": "partnership"}).json()
    open_with_token(host, made, wait_for=".lobby")
    host.get_by_role("button", name="Start game").wait_for()
    friend = new_page(viewport=SMALL_PHONE, **TOUCH)
    joined = friend.request.post(f"/api/rooms/{made['code']}/join", data={"name": "Finn"}).json()
    open_with_token(friend, {"code": made["code"], "token": joined["token"]}, wait_for=".lobby")
    note = friend.locator(".lobby-actions p")
    expect(note).to_have_text("Waiting for the host to start the game…")
    watcher = new_page()
    watcher.goto(f"/r/{made['code']}")
    expect(watcher.locator(".lobby-actions p")).to_contain_text("Take a free seat to play")

    host.close()
    expect(note).to_contain_text("Hana (the host) is offline. If they are not back in 0:")
    expect(note).to_contain_text("you or another player here becomes host")
    expect(watcher.locator(".lobby-actions p")).to_contain_text("a player here becomes host")

    back = new_page(viewport=SMALL_PHONE, **TOUCH)
    open_with_token(back, made, wait_for=".lobby")
    back.get_by_role("button", name="Start game").wait_for()
    expect(note).to_have_text("Waiting for the host to start the game…")
