"""The table's feel (issue 59): why a card cannot be played, the hand as one Tab stop, the
focus ring apart from the playable ring; "Free seat" asks and the player is told; the
players see how many watch; Leave table asks first."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_helpers import act, open_with_token, wait_turn
from playwright.sync_api import expect
from test_e2e_players import axe_violations

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
    # Reduced motion (this page's setting): no shake, no deal, nothing moves at all.
    assert page.evaluate("document.getAnimations().length") == 0
    assert axe_violations(page) == []
    page.get_by_role("button", name="Options", exact=True).click()
    page.get_by_role("dialog", name="Table options").wait_for()
    assert axe_violations(page) == []
    page.keyboard.press("Escape")
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


OPTIONS = "() => JSON.parse(localStorage.getItem('spades.options') || '{}')"
PLAYED = "async () => (await import('/js/sound.js')).stats.played.slice()"


def _option(page: Any, label: str, on: bool) -> None:
    page.get_by_role("button", name="Options", exact=True).click()
    box = page.get_by_role("dialog", name="Table options").get_by_label(label)
    box.check() if on else box.uncheck()
    page.keyboard.press("Escape")


def test_sound_motion_and_table_options_follow_their_switches(browser: Any, server: str) -> None:
    """With motion on: the trick's cards move, and stop with the Motion switch; sound plays
    only once switched on (and is remembered); larger cards and a four-colour deck; reduced
    motion stops every animation."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 800}, base_url=server, reduced_motion="no-preference"
    )
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        made = page.request.post("/api/solo", data={"name": "Tess"}).json()
        open_with_token(page, made)
        page.locator(".bid-panel button.bid").first.wait_for()
        assert page.evaluate(PLAYED) == []  # off until switched on
        _option(page, "Sound", True)
        assert page.evaluate(OPTIONS)["sound"] is True
        assert page.evaluate(PLAYED) == ["turn"]  # the switch's own chime
        page.locator(".bid-panel button.bid").nth(3).click()
        legal = page.locator(".hand .card.legal").first
        code = legal.get_attribute("data-card")
        legal.click()
        page.locator(f".hand [data-card='{code}']").wait_for(state="detached")
        page.locator(".hand .card.legal").first.wait_for()
        played = page.evaluate(PLAYED)
        assert "card" in played or "trick" in played, played
        # Motion: a card that came to the trick moved in (unless the trick is empty).
        if page.locator(".played.enter").count():
            assert page.evaluate("document.getAnimations().length") > 0
        # The Motion switch off: nothing moves, a card played included; remembered.
        _option(page, "Motion", False)
        assert page.evaluate(OPTIONS)["motion"] is False
        assert page.evaluate("document.getAnimations().length") == 0
        page.locator(".hand .card.legal").first.wait_for()
        page.locator(".hand .card.legal").first.click()
        page.locator(".hand .card.legal").first.wait_for()
        assert page.evaluate("document.getAnimations().length") == 0
        _option(page, "Motion", True)
        _option(page, "Larger cards", True)
        assert page.locator(".hand .card").first.bounding_box()["width"] == 74
        _option(page, "Four-colour deck", True)
        club = page.locator(".hand .card.suit-C, .hand .card.suit-D").first
        if club.count():
            assert club.evaluate("e => getComputedStyle(e).color") in (
                "rgb(11, 110, 46)",
                "rgb(26, 86, 184)",
            )
        # Remembered: the page again, sound still on; switched off, silence.
        page.reload()
        page.locator(".hand .card").first.wait_for()
        assert page.evaluate(OPTIONS)["sound"] is True
        _option(page, "Sound", False)
        count = len(page.evaluate(PLAYED))
        page.locator(".hand .card.legal").first.wait_for()
        page.locator(".hand .card.legal").first.click()
        page.locator(".hand .card.legal").first.wait_for()
        assert len(page.evaluate(PLAYED)) == count
    finally:
        context.close()


def test_quick_chat_reaches_the_players_and_spectators_cannot_send_it(new_page: Any) -> None:
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
    host.get_by_role("button", name="Start game").click()
    for page in (host, guest, watcher):
        page.locator(".table-screen").wait_for()
    assert watcher.locator(".quick-bar").count() == 0  # spectators watch
    host.locator(".quick-bar").get_by_role("button", name="Good game").click()
    for page in (guest, watcher):
        expect(page.locator(".seat-plate", has_text="Hana").locator(".quick-bubble")).to_have_text(
            "Good game"
        )
    expect(guest.locator("#live")).to_contain_text("Hana: Good game")
    assert axe_violations(guest) == [] and axe_violations(host) == []
    # Hidden by the table option: the next one does not show.
    _option(guest, "Hide quick chat", True)
    assert guest.locator(".quick-bar").count() == 0
    host.locator(".quick-bar").get_by_role("button", name="Thumbs up").click()
    expect(watcher.locator(".quick-bubble", has_text="Thumbs up")).to_have_count(1)
    assert guest.locator(".quick-bubble", has_text="Thumbs up").count() == 0


def test_a_forced_last_card_is_played_for_you_when_asked(new_page: Any) -> None:
    page = new_page()
    made = page.request.post("/api/solo", data={"name": "Tess"}).json()
    open_with_token(page, made)
    page.locator(".bid-panel button.bid").first.wait_for()
    _option(page, "Play my last card for me", True)
    assert act(page) == "bid"
    # Twelve cards by hand; the thirteenth goes by itself, and the hand's result follows.
    for _ in range(12):
        wait_turn(page)
        assert act(page) == "play"
    page.locator(".hand-sheet").wait_for()
