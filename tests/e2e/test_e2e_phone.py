"""What a browser walk on a phone (390 x 844, touch) found: trick cards over the name plates,
card counts past the side plates' edge, the score sheet opening at its bottom, a stale
summary of Play solo's choices, an unknown room code's message below the fold, the review's
step buttons out of reach, and "You bidding…" in the contracts line."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_helpers import LinkSwitch, act, open_with_token, wait_turn
from e2e_server import DESKTOP, PHONE
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

TOUCH = {"is_mobile": True, "has_touch": True}
SMALL_PHONE = {"width": 320, "height": 640}

# Is the element wholly inside the viewport, and the topmost thing at its centre?
IN_VIEW = (
    "e => { const r = e.getBoundingClientRect(); "
    "const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); "
    "return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth "
    "&& !!top && (top === e || e.contains(top)); }"
)

# The table drawn by the room page's own renderer (views/table.js) for a state with the
# tallest plates a game can show: every tag (Dealer, Bot, Away, Offline, Timed out, Partner,
# nil alive / broken) and, on the trick's winner, the turn flag with its clock (the winner
# leads next). The finished trick is on the table with its Led and Won marks. Returns every
# trick card or mark that meets a plate, every mark that meets another, and every card
# count outside its plate.
WORST_TABLE = """async ({ mode, winner, leader }) => {
  const { renderTable } = await import("/js/views/table.js");
  const { mount } = await import("/js/dom.js");
  const seats = [
    { kind: "human", name: "Wolfeschlegelsteinhausen", connected: true, away: false },
    { kind: "bot", name: "West Bot", timed_out: false },
    { kind: "human", name: "Nora Northcott", connected: true, away: true, timed_out: true },
    { kind: "human", name: "Eastwood", connected: false, away: false, timed_out: true },
  ];
  const cards = [[1, "AH"], [2, "KH"], [3, "QH"], [0, "JH"]]
    .map(([seat, card]) => ({ seat, card }));
  const trick = { cards, winner, leader, hand: 1 };
  const sides = mode === "partnership" ? 2 : 4;
  const view = {
    mode, phase: "playing", to_act: winner, dealer: 2, hand_number: 1,
    bids: ["nil", "blind nil", "nil", "blind nil"], tricks_won: [0, 0, 0, 0],
    hand_sizes: [12, 12, 12, 12], current_trick: { cards: [] }, tricks: [trick], last_trick: trick,
    rules: { target: 300, bag_limit: 10 }, scores: Array(sides).fill(0), bags: Array(sides).fill(0),
    legal: [], spades_broken: true, history: [],
    hand: ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC"],
  };
  view.tricks_won[winner] = 1;
  const state = {
    room: { you: 0, seats, game_id: 1, code: "TEST" }, view, recentTrick: trick,
    clock: { turn_deadline: Date.now() + 60000 }, seenTrickCards: new Set(), chat: [],
    link: { state: "open" }, hint: null, showLastTrick: false,
  };
  let main = document.getElementById("worst-table");
  if (!main) {
    main = document.createElement("main");
    main.id = "worst-table";
    document.body.replaceChildren(main);  // the home page draws into its own <main>, now gone
  }
  mount(main, renderTable(state));
  const box = (e) => e.getBoundingClientRect();
  const meet = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const found = [];
  for (const plate of main.querySelectorAll(".seat-plate")) {
    const p = box(plate);
    for (const c of main.querySelectorAll(".played .card, .played .led-mark, .played .won-mark")) {
      const what = `${c.closest(".played").className} ${c.className}`;
      if (meet(box(c), p)) found.push(`${what} over ${plate.className}`);
    }
    const count = plate.querySelector(".cards-left");
    const b = count && box(count);
    if (b && (b.left < p.left || b.right > p.right || b.top < p.top || b.bottom > p.bottom)) {
      found.push(`card count outside ${plate.className}`);
    }
  }
  const marks = [...main.querySelectorAll(".played .led-mark, .played .won-mark")];
  marks.forEach((a, i) => marks.slice(i + 1).forEach((b) => {
    if (meet(box(a), box(b))) found.push(`${a.textContent} mark over ${b.textContent} mark`);
  }));
  if (main.querySelectorAll(".trick .played.winner").length !== 1) found.push("no winning card");
  return found;
}"""


def _inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def test_the_winning_trick_card_stays_off_every_plate(new_page: Any) -> None:
    """1. Whoever wins the trick (and leads next, so their plate carries the turn flag), its
    card, the Led and Won marks, and the other cards meet no name plate: a taller plate makes
    the felt taller. Checked with the tallest plates there are, on a phone and on a desktop."""
    page = new_page(viewport=PHONE, **TOUCH)
    page.goto("/")
    page.locator("#solo-title").wait_for()
    for size in (PHONE, SMALL_PHONE, DESKTOP):
        page.set_viewport_size(size)
        for mode in ("partnership", "individual"):
            for winner in (2, 0, 1, 3):  # North (the top plate) first
                for leader in {1, winner}:  # West led; the winner led (one mark for both)
                    found = page.evaluate(
                        WORST_TABLE, {"mode": mode, "winner": winner, "leader": leader}
                    )
                    assert found == [], (size, mode, winner, leader, found)
    # Away (a bot plays the seat) is not said twice with "Timed out"; a seat that timed out
    # and is merely offline shows both.
    tags = page.locator("#worst-table .seat-plate").evaluate_all(
        "els => els.map(e => [...e.querySelectorAll('.tag')].map(t => t.textContent))"
    )
    assert any("Away" in t for t in tags) and not any(
        "Away" in t and "Timed out" in t for t in tags
    )
    assert any("Offline" in t and "Timed out" in t for t in tags)


def _solo_at_bidding(new_page: Any) -> Any:
    """A phone at an individual solo game, its bid buttons up."""
    page = new_page(viewport=PHONE, **TOUCH)
    made = page.request.post(
        "/api/solo", data={"name": "Tess", "mode": "individual", "bot_level": "basic"}
    ).json()
    open_with_token(page, made)
    page.locator(".bid-panel button.bid").first.wait_for()
    return page


def test_side_plates_keep_their_card_count_inside_on_a_phone(new_page: Any) -> None:
    """2. The card count ("13") on West's and East's plates stays inside the plate."""
    page = _solo_at_bidding(new_page)
    for place in ("left", "right", "top"):
        plate = page.locator(f".seat-plate.place-{place}")
        count = plate.locator(".cards-left")
        expect(count).to_have_text("13 cards")  # "cards" for screen readers only
        assert _inside(count.bounding_box(), plate.bounding_box()), place


@pytest.fixture(scope="module")
def finished_game(browser: Any, server: str) -> Iterator[dict[str, Any]]:
    """A short solo game (every player for themself, to 50) played to its end: the room's
    `code` and `token`, and the game's `game_id`."""
    context = browser.new_context(viewport=DESKTOP, base_url=server, reduced_motion="reduce")
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        made = page.request.post(
            "/api/solo",
            data={"name": "Tess", "mode": "individual", "target": 50, "bot_level": "basic"},
        ).json()
        open_with_token(page, made)
        for _ in range(600):
            wait_turn(page, timeout=20_000)
            if act(page) == "over":
                break
        else:
            pytest.fail("the game did not end")
        games = page.request.get(f"/api/rooms/{made['code']}/history").json()["games"]
        yield {**made, "game_id": games[0]["game_id"]}
    finally:
        context.close()


def test_score_sheet_opens_at_its_top(new_page: Any, finished_game: dict[str, Any]) -> None:
    """3. On a phone held sideways the score sheet is longer than the screen: it opens at its
    top (heading, then the totals after the latest hand), the focus on its heading, Close one
    Tab away, and Escape closes it."""
    page = new_page(viewport={"width": 844, "height": 390}, **TOUCH)
    open_with_token(page, finished_game)
    page.locator(".game-over").get_by_role("button", name="Close", exact=True).click()
    page.get_by_role("button", name="Score sheet").click()
    sheet = page.get_by_role("dialog", name="Score sheet")
    sheet.wait_for()
    box = page.locator(".sheet.score-sheet")
    tall = box.evaluate("e => e.scrollHeight - e.clientHeight")
    assert tall > 100, "the sheet should be longer than the screen for this test"
    assert box.evaluate("e => e.scrollTop") == 0
    heading = sheet.get_by_role("heading", name="Score sheet")
    assert heading.evaluate(IN_VIEW)
    totals = sheet.locator(".sheet-totals")
    assert re.match(r"^After hand \d+: You -?\d+ · ", totals.inner_text()), totals.inner_text()
    assert totals.evaluate(IN_VIEW)
    assert heading.evaluate("e => e === document.activeElement")
    page.keyboard.press("Tab")
    close = sheet.get_by_role("button", name="Close", exact=True)
    assert close.evaluate("e => e === document.activeElement")
    # Modal: Tab never reaches the top bar or the skip link behind the dialog.
    for _ in range(8):
        page.keyboard.press("Tab")
        behind = page.evaluate(
            "() => !!document.activeElement.closest('#topbar, .skip-link, .table-screen')"
        )
        assert not behind
    page.keyboard.press("Escape")
    sheet.wait_for(state="detached")
    assert not page.evaluate("() => document.getElementById('topbar').inert")


def test_the_score_charts_labels_stay_readable_on_a_phone(
    new_page: Any, finished_game: dict[str, Any]
) -> None:
    """The chart is drawn for the screen's width: its axis labels render at 10 px or more
    on a 390 px phone (they were 7 px), and no two hand numbers overlap."""
    page = new_page(viewport=PHONE, **TOUCH)
    open_with_token(page, finished_game)
    # Measured in one go on the chart as drawn now (the dialog is drawn anew on each
    # state: a chart held from before may be detached, and measures as nothing).
    measured = page.wait_for_function(
        """() => {
          const svg = document.querySelector(".game-over svg.score-chart");
          const box = svg && svg.getBoundingClientRect();
          if (!box || !box.width) return null;
          const ticks = [...svg.querySelectorAll("text.tick")];
          const size = parseFloat(getComputedStyle(ticks[0]).fontSize);
          return {
            rendered: size * box.width / svg.viewBox.baseVal.width,
            sizes: ticks.map((t) => t.getBoundingClientRect())
              .map((r) => ({ l: r.left, r: r.right, t: r.top })),
          };
        }"""
    ).json_value()
    rendered, sizes = measured["rendered"], measured["sizes"]
    assert rendered >= 10, rendered
    bottom = max(box["t"] for box in sizes)
    row = sorted((box for box in sizes if box["t"] == bottom), key=lambda box: box["l"])
    assert all(a["r"] <= b["l"] for a, b in itertools.pairwise(row)), row


def test_solo_summary_follows_a_custom_target_as_it_is_typed(new_page: Any) -> None:
    """4. The line under Play solo's choices changes with each key of a custom target, not
    only when the field loses the focus."""
    page = new_page(viewport=PHONE, **TOUCH)
    page.goto("/")
    # The home page settles first (its account and quick play parts answer from the server
    # and draw again); a draw while typing on a busy machine took the focus once in CI.
    page.wait_for_load_state("networkidle")
    summary = page.locator("#solo-summary")
    field = page.get_by_label("Other solo target")
    field.press_sequentially("275")
    expect(summary).to_contain_text("to 275")
    assert field.evaluate("e => e === document.activeElement")  # still typing: no blur
    page.keyboard.press("Backspace")
    expect(summary).to_contain_text("to 27 ")


def test_an_unknown_room_code_is_said_in_view_on_a_phone(new_page: Any) -> None:
    """5. The message about a code with no room shows on screen, next to the field, and is
    announced (role=alert); the field says it is described by it."""
    page = new_page(viewport=PHONE, **TOUCH)
    page.goto("/")
    field = page.get_by_label("Room code")
    field.fill("zzzz99")
    field.press("Enter")
    error = page.get_by_role("alert").filter(has_text="There is no room with the code ZZZZ99")
    error.wait_for()
    page.wait_for_timeout(100)
    assert error.evaluate(IN_VIEW)
    assert field.evaluate(IN_VIEW)
    assert field.get_attribute("aria-invalid") == "true"
    assert field.get_attribute("aria-describedby") == error.get_attribute("id")
    # Typing a new code takes the message away.
    field.press("Backspace")
    expect(error).to_have_count(0)
    assert field.get_attribute("aria-invalid") is None


def test_review_step_buttons_stay_in_reach_on_a_phone(
    new_page: Any, finished_game: dict[str, Any]
) -> None:
    """6. Scrolled down to the hands, the review's step buttons are still on screen, on top
    of the page, after each step; they hide nothing at the end of the page."""
    page = new_page(viewport=PHONE, **TOUCH)
    page.goto(f"/#review/{finished_game['game_id']}")
    where = page.locator(".review-where")
    where.get_by_text("step 1 of").wait_for()
    page.locator(".review-trick").scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 300)")
    forward = page.get_by_role("button", name="Forward ▶")
    for step in range(2, 6):
        assert forward.evaluate(IN_VIEW), f"Forward is off screen before step {step}"
        assert page.get_by_role("button", name="◀ Back").evaluate(IN_VIEW)
        forward.tap()
        where.get_by_text(f"step {step} of").wait_for()
    assert page.get_by_role("button", name="Next hand").evaluate(IN_VIEW)
    # At the bottom of the page the bar covers nothing: the score sheet's end is in view.
    page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
    assert page.locator(".review-side > :last-child").evaluate(IN_VIEW)


def test_the_reviews_score_sheet_fits_its_column_on_a_desktop(
    new_page: Any, finished_game: dict[str, Any]
) -> None:
    """The review's score sheet (its side column) shows every column, the running score
    included, at 1280 and 1024 wide: it was cut to "SC" and needed a sideways scroll, in a
    box a keyboard could not reach (now focusable and named, should it ever overflow)."""
    page = new_page(viewport=DESKTOP)
    page.goto(f"/#review/{finished_game['game_id']}")
    page.locator(".review-where").get_by_text("step 1 of").wait_for()
    page.keyboard.press("End")
    box = page.locator(".review-side .table-scroll")
    box.wait_for()
    for width in (1280, 1024):
        page.set_viewport_size({"width": width, "height": 800})
        assert box.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), width
    assert box.get_attribute("aria-label")
    # Made focusable only when it does scroll (a keyboard can then reach what is hidden).
    page.set_viewport_size({"width": 1280, "height": 800})
    page.evaluate(
        "() => { const e = document.querySelector('.review-side .table-scroll'); "
        "e.style.width = '200px'; window.dispatchEvent(new Event('resize')); }"
    )
    expect(box).to_have_attribute("tabindex", "0")


def test_your_own_bid_reads_as_words(new_page: Any) -> None:
    """7. The contracts line says "Your turn to bid" for you, not "You bidding…"; the other
    seats keep "<name> bidding…", "<name> yet to bid" or their contract."""
    page = _solo_at_bidding(new_page)
    contracts = page.get_by_role("list", name="Contracts this hand")
    expect(contracts.locator("li.mine")).to_have_text("Your turn to bid")
    assert "You bidding" not in contracts.inner_text()
    for line in contracts.locator("li:not(.mine)").all_inner_texts():
        assert re.search(r"(bidding…|yet to bid|\d+ of \d+|no contract|Nil|nil)", line), line
    expect(page.locator(".status-line .status-text")).to_have_text("Your turn to bid")


# The game-over dialog drawn by the room page's own renderer (views/sheets.js) for a
# finished game where some players asked to play again: returns its note and button text.
AGAIN_NOTE = """async ({ you, again }) => {
  const { gameOver } = await import("/js/views/sheets.js");
  const { mount } = await import("/js/dom.js");
  const seats = [
    { kind: "human", name: "Ann", connected: true },
    { kind: "human", name: "Bob", connected: true },
    { kind: "human", name: "Cy", connected: false },
    { kind: "bot", name: "East Bot", connected: true },
  ];
  const view = {
    mode: "partnership", phase: "over", winner: 0, scores: [310, 120], bags: [0, 0],
    history: [], rules: { target: 300, bag_limit: 10 }, hand_number: 5,
    bids: [null, null, null, null],
  };
  const room = { you, seats, again, game_id: 3, code: "TEST" };
  const state = { room, view, playAgainAsked: false };
  let main = document.getElementById("again-test");
  if (!main) {
    main = document.createElement("main");
    main.id = "again-test";
    document.body.replaceChildren(main);
  }
  mount(main, gameOver(state));
  const note = main.querySelector(".again-note");
  const button = main.querySelector("[data-action=play-again]");
  return [note ? note.textContent : null, button.textContent];
}"""


def test_the_results_say_who_asked_to_play_again_and_who_is_waited_for(new_page: Any) -> None:
    """The next game starts when every player here has asked: the results say who has, and
    whom the table still waits for (not a bot, not someone gone)."""
    page = new_page(viewport=PHONE, **TOUCH)
    page.goto("/")
    page.locator("#solo-title").wait_for()
    note, button = page.evaluate(AGAIN_NOTE, {"you": 0, "again": [1]})
    assert note == "Bob wants to play again · waiting for You" and button == "Play again"
    note, button = page.evaluate(AGAIN_NOTE, {"you": 0, "again": [0]})
    assert note == "You want to play again · waiting for Bob"
    assert button == "Waiting for the others…"
    note, _ = page.evaluate(AGAIN_NOTE, {"you": 1, "again": []})
    assert note is None


def test_a_lost_link_shows_in_view_and_the_turn_waits_for_it(new_page: Any) -> None:
    """A phone player scrolled down to the hand when the link drops sees the banner (it is
    pinned over the top bar, not above the fold), and the bid buttons say they cannot be
    used rather than look ready; all comes back with the link. A screen reader hears the
    drop once (the banner's countdown is hidden from it) and "Reconnected" at the end."""
    page = new_page(viewport=PHONE, **TOUCH)
    page.add_init_script(
        """window.__said = [];
        document.addEventListener("DOMContentLoaded", () => {
          const live = document.getElementById("live");
          const note = () => { if (live.textContent) window.__said.push(live.textContent); };
          new MutationObserver(note).observe(live, { childList: true, characterData: true });
        });"""
    )
    link = LinkSwitch(page)
    made = page.request.post(
        "/api/solo", data={"name": "Tess", "mode": "individual", "bot_level": "basic"}
    ).json()
    open_with_token(page, made)
    bid = page.locator(".bid-panel button.bid").first
    bid.wait_for()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    top = page.evaluate("scrollY")

    link.drop()
    banner = page.locator(".banner", has_text="Connection lost")
    banner.wait_for()
    assert banner.evaluate(IN_VIEW)
    assert page.evaluate("scrollY") == top  # the table did not move under the thumb
    expect(bid).to_have_attribute("aria-disabled", "true")
    expect(page.locator(".status-text")).to_have_text("Your turn · waiting for the connection")
    expect(page.locator(".banner .retry-in")).to_have_attribute("aria-hidden", "true")

    link.restore()
    page.get_by_role("button", name="Reconnect now").click()
    banner.wait_for(state="detached")
    expect(page.locator(".bid-panel button.bid").first).not_to_have_attribute(
        "aria-disabled", "true"
    )
    expect(page.locator(".status-text")).to_have_text("Your turn to bid")
    page.wait_for_function("() => window.__said.includes('Reconnected')")


# What the toast on screen covers of the table: a plate, a trick card, a bid button or a card
# of the hand (after the page's own placing has had a frame to run), and whether it is off
# the screen.
TOAST_COVERS = """async () => {
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const toast = document.querySelector("#toasts .toast");
  if (!toast) return ["no toast"];
  const t = toast.getBoundingClientRect();
  const found = t.top < 0 || t.bottom > innerHeight ? ["toast off the screen"] : [];
  const parts = ".felt .seat-plate, .played .card, .bid-buttons button, .play-area .hand .card";
  for (const part of document.querySelectorAll(parts)) {
    const r = part.getBoundingClientRect();
    if (getComputedStyle(part).visibility === "hidden" || !r.width) continue;
    if (t.left < r.right && r.left < t.right && t.top < r.bottom && r.top < t.bottom) {
      found.push(`toast over ${part.className}`);
    }
  }
  return found;
}"""


def test_the_timeout_toast_covers_no_plate_trick_bid_or_hand(new_page: Any) -> None:
    """On a phone a timeout's toast came under the top bar, over the partner's plate: it goes
    where it covers no plate, trick card, bid button or card of the hand, wherever the page
    is scrolled (it moves when the page does)."""
    page = new_page(viewport=PHONE, **TOUCH)
    made = page.request.post(
        "/api/solo", data={"name": "Slow", "mode": "partnership", "turn_seconds": 3}
    ).json()
    open_with_token(page, made)
    page.locator(".toast", has_text="Time's up: the bot").wait_for(timeout=20_000)
    assert page.evaluate(TOAST_COVERS) == []
    for where in ("0", "document.querySelector('.felt').getBoundingClientRect().top + scrollY"):
        page.evaluate(f"scrollTo(0, {where})")
        assert page.evaluate(TOAST_COVERS) == [], where
