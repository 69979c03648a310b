"""The table's feel (issue 59): why a card cannot be played, the hand as one Tab stop, the
focus ring apart from the playable ring; "Free seat" asks and the player is told; the
players see how many watch; Leave table asks first."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_helpers import open_with_token
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

TAB_STOPS = "() => [...document.querySelectorAll('.hand .card')].filter(c => c.tabIndex === 0)"


def test_an_unplayable_card_says_why_and_the_hand_is_one_tab_stop(new_page: Any) -> None:
    page = new_page()
    made = page.request.post("/api/solo", data={"name": "Tess", "bot_level": "basic"}).json()
    open_with_token(page, made)
    page.locator(".bid-panel button.bid").first.wait_for()
    # A card clicked while bidding: a shake, and the reason in words, read out too.
    card = page.locator(".hand .card").nth(3)
    card.click(force=True)  # aria-disabled: Playwright would wait for it to be enabled
    reason = page.locator(".play-refusal")
    expect(reason).to_contain_text("Bidding comes first")
    expect(page.locator("#live")).to_contain_text("Bidding comes first")
    assert "shake" in (card.get_attribute("class") or "")
    # One Tab stop in the hand; the arrows move inside it, the stop following the focus.
    assert page.evaluate(f"({TAB_STOPS})().length") == 1
    page.locator(".hand .card[tabindex='0']").focus()
    first = page.evaluate("document.activeElement.dataset.card")
    page.keyboard.press("ArrowRight")
    second = page.evaluate("document.activeElement.dataset.card")
    assert second != first
    assert page.evaluate(f"({TAB_STOPS})().map(c => c.dataset.card)") == [second]
    # Tab leaves the hand at once (not 13 stops later).
    page.keyboard.press("Tab")
    assert not page.evaluate("!!document.activeElement.closest('.hand')")
    # The keyboard's focus ring is not the gold "playable" ring: a dashed outline.
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.dataset.card") == second
    style = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert style == "dashed"
    # Leave table asks first; staying keeps the game.
    page.get_by_role("button", name="Leave table").click()
    dialog = page.get_by_role("dialog", name="Leave this game?")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Stay at the table").click()
    expect(dialog).to_have_count(0)


def test_free_seat_asks_and_tells_the_player_and_watchers_are_counted(new_page: Any) -> None:
    host = new_page()
    made = host.request.post("/api/rooms", data={"name": "Hana", "public": False}).json()
    open_with_token(host, made, wait_for=".lobby")
    guest = new_page()
    joined = guest.request.post(
        f"/api/rooms/{made['code']}/join", data={"name": "Gus", "seat": 1}
    ).json()
    open_with_token(guest, {"code": made["code"], "token": joined["token"]}, wait_for=".lobby")
    watcher = new_page()
    watcher.goto(f"/r/{made['code']}")
    watcher.locator(".lobby").wait_for()
    expect(host.locator(".watchers")).to_have_text("👁 1 watching")
    host.get_by_role("button", name="Free the West seat").click()
    question = host.get_by_role("group", name="Free Gus's seat?")
    expect(question).to_be_visible()
    assert host.locator(".lobby-seat.place-left").inner_text().count("Gus") >= 1
    question.get_by_role("button", name="Yes, free the seat").click()
    expect(guest.locator(".toast")).to_contain_text("The host freed your seat")
    expect(guest.locator(".lobby-seat.place-left")).to_contain_text("Empty seat")
    assert guest.evaluate(f"localStorage.getItem('spades.token.{made['code']}')") is None
