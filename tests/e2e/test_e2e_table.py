"""The table: reload mid-trick, keyboard-only play, blind nil only when allowed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import act, fill_create_form, hand_cards, shoot, start_solo, wait_turn
from e2e_server import run_server
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

CURRENT_TRICK = ".trick-area:not(.done) .trick .played .card"


def _current_trick(page: Any) -> list[str]:
    return list(page.locator(CURRENT_TRICK).evaluate_all("els => els.map(e => e.dataset.card)"))


def test_reload_mid_trick_returns_to_same_seat(new_page: Any) -> None:
    page = new_page()
    # A first visit: one click on "Play solo", no name typed, default settings.
    page.goto("/")
    page.get_by_role("button", name="Play solo").click()
    page.locator(".table-screen").wait_for()
    code = page.url.rsplit("/", 1)[1]
    token = page.evaluate(f"localStorage.getItem('spades.token.{code}')")
    assert token
    # Play until it is our turn in the middle of a trick (others have already played).
    for _ in range(80):
        wait_turn(page)
        if page.locator(".hand .card.legal").count() and _current_trick(page):
            break
        act(page)
    else:
        pytest.fail("never our turn in the middle of a trick")
    before_hand = hand_cards(page)
    before_trick = _current_trick(page)
    before_score = page.locator(".scoreboard tbody").inner_text()
    before_legal = page.locator(".hand .card.legal").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )

    page.reload()
    page.locator(".hand .card.legal").first.wait_for()
    assert page.locator(".seat-plate.mine").get_by_text("Player").count() == 1
    assert hand_cards(page) == before_hand
    assert _current_trick(page) == before_trick
    assert page.locator(".scoreboard tbody").inner_text() == before_score
    assert (
        page.locator(".hand .card.legal").evaluate_all("els => els.map(e => e.dataset.card)")
        == before_legal
    )
    assert page.evaluate(f"localStorage.getItem('spades.token.{code}')") == token

    # The same seat opened in a second tab takes over; the first tab can take it back.
    other = page.context.new_page()
    other.goto(f"/r/{code}")
    other.locator(".hand .card.legal").first.wait_for()
    page.locator(".banner", has_text="opened in another tab").wait_for()
    page.get_by_role("button", name="Play in this tab").click()
    other.locator(".banner", has_text="opened in another tab").wait_for()
    page.locator(".banner").wait_for(state="detached")
    other.close()

    # And the game goes on from there.
    page.locator(".hand .card.legal").first.wait_for()
    assert act(page) == "play"
    assert len(hand_cards(page)) == len(before_hand) - 1 or page.locator(".hand-sheet").count()


def _tab_to(page: Any, predicate: str, limit: int = 90) -> str:
    """Press Tab until the focused element satisfies the JS predicate; returns its name."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        name = page.evaluate(
            f"() => {{ const el = document.activeElement; "
            f"return ({predicate}) ? (el.getAttribute('aria-label') || el.textContent) : null; }}"
        )
        if name:
            return str(name)
    raise AssertionError(f"Tab never reached an element where {predicate}")


def test_keyboard_only_bidding_and_playing(new_page: Any) -> None:
    page = new_page()
    page.goto("/")
    # Keyboard from the start: type a name, Enter submits "Play solo".
    page.get_by_label("Your name").focus()
    page.keyboard.type("Keys")
    page.keyboard.press("Enter")
    page.locator(".table-screen").wait_for()

    page.locator(".bid-panel button.bid").first.wait_for()
    # The default rules need a 100-point deficit for blind nil: not offered now.
    assert page.get_by_role("button", name="Blind nil").count() == 0
    name = _tab_to(page, "el.dataset.action === 'bid' && el.dataset.bid === '3'")
    assert name == "Bid 3"
    page.keyboard.press("Enter")
    page.locator(".seat-plate.mine", has_text="Bid 3").wait_for()
    # Turns are announced in the polite live region.
    live = page.locator("#live")
    assert live.get_attribute("aria-live") == "polite"
    # expect() polls in Playwright's own script; a wait_for_function string is eval'd in
    # the page on every poll after the first, which the app's CSP forbids.
    expect(live).to_have_text(re.compile(r"\S"))

    for key in ("Enter", "Space", "Enter"):
        page.locator(".hand .card.legal").first.wait_for()
        card_name = _tab_to(
            page, "el.classList.contains('legal') && el.getAttribute('aria-disabled') !== 'true'"
        )
        assert " of " in card_name  # e.g. "Queen of Spades"
        code = page.evaluate("document.activeElement.dataset.card")
        count = len(hand_cards(page))
        page.keyboard.press(key)
        page.locator(f".hand .card.legal[data-card='{code}']").wait_for(state="detached")
        assert len(hand_cards(page)) == count - 1
        # Focus stays in the hand, ready for the next card.
        assert page.evaluate("!!document.activeElement.closest('.hand')")


def test_blind_nil_only_when_allowed_and_before_cards(new_page: Any, screenshots: Path) -> None:
    page = new_page()
    # Default deficit (100): nobody trails at the start, so no blind nil, cards shown.
    start_solo(page, mode="individual", target=500, bots="basic", deficit=100)
    page.locator(".bid-panel button.bid").first.wait_for()
    assert page.get_by_role("button", name="Blind nil").count() == 0
    assert page.get_by_role("button", name="Show my cards").count() == 0
    assert len(hand_cards(page)) == 13

    # Deficit 0: blind nil is open from the first hand, and the cards stay face down.
    start_solo(page, mode="individual", target=500, bots="basic", deficit=0)
    page.get_by_role("button", name="Show my cards").wait_for()
    assert hand_cards(page) == []
    assert page.locator(".hidden-hand .card.back").count() == 13
    page.get_by_role("button", name="Blind nil").wait_for()
    assert page.locator(".bid-panel button.bid:not([data-bid='blind nil'])").count() == 0
    shoot(page, screenshots, "table-blind-nil")
    page.get_by_role("button", name="Blind nil").click()
    # Worth ±200 and final: it asks once more, Cancel has the focus (Enter must not bid
    # blind nil), and Cancel goes back.
    cancel = page.get_by_role("button", name="Cancel")
    expect(cancel).to_be_focused()
    page.keyboard.press("Enter")
    expect(cancel).to_have_count(0)
    page.get_by_role("button", name="Blind nil", exact=True).click()
    page.get_by_role("button", name="Yes, bid blind nil").click()
    page.locator(".seat-plate.mine", has_text="Blind nil").wait_for()
    page.locator(".hand .card.in-hand").first.wait_for()
    assert len(hand_cards(page)) == 13  # shown once the bid is made

    # Looking first: blind nil is gone, ordinary bids remain.
    start_solo(page, mode="individual", target=500, bots="basic", deficit=0)
    page.get_by_role("button", name="Show my cards").click()
    page.locator(".hand .card.in-hand").first.wait_for()
    assert len(hand_cards(page)) == 13
    wait_turn(page)
    assert page.get_by_role("button", name="Blind nil").count() == 0
    assert page.get_by_role("button", name="Bid 4").count() == 1


def test_join_by_code_of_a_missing_room(new_page: Any) -> None:
    page = new_page()
    page.goto("/")
    page.get_by_label("Room code").fill("zzzz99")
    page.get_by_role("button", name="Join", exact=True).click()
    # Said next to the form, what was typed still there to correct.
    page.get_by_text("There is no room with the code ZZZZ99").wait_for()
    assert page.get_by_label("Room code").input_value() == "zzzz99"
    assert page.url.rstrip("/").endswith(page.url.split("/")[2])  # still the home page
    # A room address typed by hand gets the room page's own answer.
    page.goto("/r/zzzz99")
    page.wait_for_url("**/r/ZZZZ99")
    page.get_by_text("There is no room with the code ZZZZ99").wait_for()
    assert page.get_by_role("link", name="Back to home").count() >= 1


def test_turn_timer_and_game_clock_are_shown(new_page: Any) -> None:
    page = new_page()
    page.goto("/")
    fill_create_form(page, mode="partnership", target=300, bots="basic")
    form = page.locator("form[data-form='create']")
    form.get_by_label("Turn timer").select_option("60")
    form.get_by_label("Game clock").select_option("30")
    form.get_by_role("button", name="Create room").click()
    page.get_by_role("button", name="Start game").click()
    page.locator(".bid-panel button.bid").first.wait_for()
    # Countdowns, not timestamps: m:ss of what is left.
    game_clock = page.locator(".game-clock .countdown")
    expect(game_clock).to_have_text(re.compile(r"^(30:00|2\d:\d\d)$"))
    turn = page.locator(".status-line .countdown")
    expect(turn).to_have_text(re.compile(r"^(1:00|0:[0-5]\d)$"))
    assert turn.get_attribute("role") == "timer"
    assert page.locator(".seat-plate.mine .countdown").count() == 1


def test_pasting_the_invite_link_as_the_code_opens_the_room(new_page: Any) -> None:
    host = new_page()
    made = host.request.post("/api/rooms", data={"name": "Hosty"}).json()
    invite = f"https://spades.example/r/{made['code'].lower()}/"
    guest = new_page()
    guest.goto("/")
    guest.get_by_label("Room code").fill(f"  {invite}  ")
    guest.get_by_role("button", name="Join", exact=True).click()
    guest.wait_for_url(f"**/r/{made['code']}")
    guest.locator(".lobby").wait_for()
    # An address with a whole link inside it still gets the page, which finds the room.
    other = new_page()
    other.goto(f"/r/{made['code']}%2Fextra")
    other.locator(".lobby, .center-box").first.wait_for()
    assert "Not Found" not in other.content()


def test_a_full_room_says_so_instead_of_asking_for_a_seat(new_page: Any) -> None:
    host = new_page()
    made = host.request.post("/api/rooms", data={"name": "Hosty"}).json()
    host.goto("/")
    host.evaluate(f"localStorage.setItem('spades.token.{made['code']}', '{made['token']}')")
    host.goto(f"/r/{made['code']}")
    for where in ("West", "North", "East"):
        host.get_by_role("button", name=f"Seat a bot in the {where} seat").click()
        host.locator(".lobby-seat.bot", has_text=f"{where} Bot").wait_for()
    guest = new_page()
    guest.goto(f"/r/{made['code']}")
    guest.get_by_text("This room is full").wait_for()
    assert guest.get_by_label("Your name").count() == 0
    assert guest.get_by_role("button", name=re.compile("^Sit here")).count() == 0


def test_timeouts_are_told_and_i_am_back_takes_the_seat_back(new_page: Any, tmp_path: Path) -> None:
    # Bots at a person's pace (the shared test server's move at once, which would redraw
    # the table faster than a browser paints while the bot plays the away seat).
    with run_server(tmp_path, extra_env={"SPADES_BOT_DELAY": "0.3"}) as url:
        page = new_page(base_url=url)
        made = page.request.post(
            "/api/solo", data={"name": "Slow", "turn_seconds": 3, "target": 500}
        ).json()
        page.goto("/")
        page.evaluate(f"localStorage.setItem('spades.token.{made['code']}', '{made['token']}')")
        page.goto(f"/r/{made['code']}")
        page.locator(".table-screen").wait_for()
        # The first timeout: a toast says what the bot did for you.
        page.locator(".toast", has_text="Time's up: the bot").wait_for(timeout=15_000)
        # The second in a row: the bot keeps the seat, and the table (or the hand's result
        # sheet over it) says how to take it back.
        back = page.get_by_role("button", name="I'm back")
        back.wait_for(timeout=15_000)
        back.click()
        # Back: the next turn waits for its owner again (until the timer runs out twice more).
        expect(back).to_have_count(0, timeout=3_000)
