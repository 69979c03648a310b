"""What players expect of the table (issue 17): sheets never hide a running clock, solo's own
choices, no sideways scrolling, the last trick, the score sheet, plain marks, tags on phones,
teams in the lobby, contracts and trick marks, the game review, and axe-core on every screen.

One partnership and one individual game are played to the end once per module (the "tour");
checks that need a finished game read what the tour collected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import SHEET_BUTTON, act, fill_solo_choices, open_with_token, shoot, wait_turn
from e2e_server import DESKTOP, PHONE

pytestmark = pytest.mark.e2e

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
WIDTHS = (1280, 1024, 768, 390)


# --- helpers ------------------------------------------------------------------------------


def api_solo(page: Any, **body: Any) -> str:
    """A solo room made through the API (exact rules), opened in the page. Returns the code."""
    made = page.request.post("/api/solo", data={"name": "Tess", **body}).json()
    open_with_token(page, made)
    return str(made["code"])


def overflow(page: Any) -> list[str]:
    """Widths at which the page scrolls sideways (scrollWidth > innerWidth)."""
    bad = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 844 if width < 700 else 800})
        page.wait_for_timeout(60)
        sw, iw = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
        if sw > iw:
            bad.append(f"{width}px: {sw} > {iw}")
    page.set_viewport_size(DESKTOP)
    return bad


def axe_violations(page: Any) -> list[str]:
    """Serious and critical axe-core violations on the page as it is now."""
    if not page.evaluate("!!window.axe"):
        # Evaluated, not added as a <script>: the app's CSP forbids inline scripts.
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    found = page.evaluate(
        """async () => {
          const r = await axe.run(document, { resultTypes: ["violations"] });
          return r.violations
            .filter((v) => v.impact === "serious" || v.impact === "critical")
            .map((v) => `${v.id} (${v.impact}): ` +
              v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", "));
        }"""
    )
    return list(found)


class Tour:
    """Findings collected while playing: overflow and axe per screen, game ids, flags."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.overflow: dict[str, list[str]] = {}
        self.axe: dict[str, list[str]] = {}
        self.facts: dict[str, Any] = {}

    def screen(self, page: Any, name: str, *, shots: bool = True) -> None:
        self.overflow[name] = overflow(page)
        self.axe[name] = axe_violations(page)
        if shots:
            shoot(page, self.folder, f"p17-{name}")


def play_to_game_over(page: Any, tour: Tour, mode: str) -> None:
    """Play the open solo game to its end, visiting each screen once on the way."""
    seen: set[str] = set()
    for _ in range(600):
        wait_turn(page, timeout=20_000)
        if "bidding" not in seen and page.locator(".bid-panel button.bid").count():
            seen.add("bidding")
            tour.screen(page, f"{mode}-bidding")
        playing = (
            page.locator(".hand .card.legal").count() and page.locator(".trick-log li").count()
        )
        if "playing" not in seen and playing:
            seen.add("playing")
            tour.screen(page, f"{mode}-playing")
        if page.locator(".hand-sheet").count():
            if "sheet" not in seen:
                seen.add("sheet")
                tour.facts[f"{mode}-sheet-trick"] = page.locator(
                    ".hand-sheet .sheet-trick li"
                ).count()
                tour.screen(page, f"{mode}-result-sheet")
                page.locator(".hand-sheet").get_by_role("button", name="Score sheet").click()
                page.locator(".score-sheet").wait_for()
                tour.facts[f"{mode}-score-rows"] = page.locator(".score-sheet tbody tr").count()
                tour.screen(page, f"{mode}-score-sheet")
                page.get_by_role("button", name="Close", exact=True).click()
                page.locator(".score-sheet").wait_for(state="detached")
                # Closing the score sheet shows the hand result again.
                page.locator(".hand-sheet").wait_for()
            page.locator(".hand-sheet").get_by_role("button", name=SHEET_BUTTON).click()
            if (
                "last" not in seen
                and page.locator(".bid-panel button.bid").count()
                and not page.locator(".game-over").count()
            ):
                # Bidding of the next hand: "Last trick" still shows the 13th trick.
                seen.add("last")
                last = page.get_by_role("button", name="Last trick")
                tour.facts[f"{mode}-last-enabled"] = last.get_attribute("aria-disabled") is None
                last.click()
                tour.facts[f"{mode}-last-cards"] = page.locator(".side .last-trick li").count()
                page.get_by_role("button", name="Hide last trick").click()
            continue
        if page.locator(".game-over").count():
            break
        act(page)
    else:
        pytest.fail("the game did not end")
    page.get_by_role("button", name="Play again").wait_for()
    tour.facts[f"{mode}-over-text"] = page.locator(".game-over").inner_text()
    tour.facts[f"{mode}-game"] = int(
        page.evaluate(
            "document.querySelector('[data-key=review-game]').getAttribute('href')"
        ).rsplit("/", 1)[1]
    )
    tour.screen(page, f"{mode}-game-over")
    # The room's history links to the review too.
    tour.facts[f"{mode}-history-link"] = page.get_by_role(
        "link", name="Review game 1"
    ).get_attribute("href")


@pytest.fixture(scope="module")
def tour(browser: Any, server: str, screenshots: Path) -> Iterator[Tour]:
    """Both modes played to game over once, each screen measured on the way."""
    found = Tour(screenshots)
    context = browser.new_context(viewport=DESKTOP, base_url=server, reduced_motion="reduce")
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto("/")
        page.get_by_role("button", name="Play solo").wait_for()
        found.screen(page, "home")
        rules = {"bag_limit": 3, "bag_penalty": 10}
        for mode in ("partnership", "individual"):
            api_solo(page, mode=mode, target=60, bot_level="basic", rules=rules)
            play_to_game_over(page, found, mode)
            page.goto(f"/#review/{found.facts[f'{mode}-game']}")
            page.locator(".review-table").wait_for()
            # The players' names, not only the seats'.
            assert page.locator(".review-seat-name", has_text="West Bot").count() == 1
            found.screen(page, f"{mode}-review")
            # A lobby of this mode (before a game starts).
            made = page.request.post("/api/rooms", data={"name": "Lob", "mode": mode}).json()
            page.goto("/")
            page.evaluate(
                "([code, token]) => localStorage.setItem(`spades.token.${code}`, token)",
                [made["code"], made["token"]],
            )
            page.goto(f"/r/{made['code']}")
            page.get_by_role("button", name="Start game").wait_for()
            found.screen(page, f"{mode}-lobby")
        found.facts["errors"] = errors
    finally:
        context.close()
    yield found


# --- the tour's findings ------------------------------------------------------------------


def test_no_page_scrolls_sideways(tour: Tour) -> None:
    """3. No screen is wider than the window at 1280, 1024, 768 or 390 px, in both modes."""
    assert len(tour.overflow) >= 15
    assert {k: v for k, v in tour.overflow.items() if v} == {}
    assert tour.facts["errors"] == []


def test_no_serious_accessibility_violation(tour: Tour) -> None:
    """axe-core: home, lobby, table bidding and playing, result sheet, game over, review."""
    for screen in ("home", "lobby", "bidding", "playing", "result-sheet", "game-over", "review"):
        assert any(screen in name for name in tour.axe), screen
    assert {k: v for k, v in tour.axe.items() if v} == {}


def test_last_trick_is_seen_after_the_hand(tour: Tour) -> None:
    """4. The 13th trick is in the result sheet, and "Last trick" shows it while bidding."""
    for mode in ("partnership", "individual"):
        assert tour.facts[f"{mode}-sheet-trick"] == 4
        if f"{mode}-last-enabled" in tour.facts:  # (a one-hand game has no next bidding)
            assert tour.facts[f"{mode}-last-enabled"] is True
            assert tour.facts[f"{mode}-last-cards"] == 4
    # (test_table_shows_contracts... checks "Last trick" in the next bidding every time)


def test_score_sheet_lists_each_hand(tour: Tour) -> None:
    """5. The score sheet has a row per side for each finished hand."""
    assert tour.facts["partnership-score-rows"] == 2
    assert tour.facts["individual-score-rows"] == 4


def test_game_over_names_the_winner_in_words(tour: Tour) -> None:
    """6. The winner is marked "Winner" (text), not with the star that also meant "you"."""
    for mode in ("partnership", "individual"):
        text = tour.facts[f"{mode}-over-text"]
        assert "Winner" in text
        assert "★" not in text


# --- single points ------------------------------------------------------------------------


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_result_sheet_yields_to_a_running_turn_clock(
    new_page: Any, screenshots: Path, size: dict[str, int]
) -> None:
    """1. With a turn timer, the result sheet folds into a strip when your turn comes; the
    countdown and the bidding panel stay in view and usable."""
    page = new_page(viewport=size)
    # No blind nil: after hand 1 our cards must show, whatever the score.
    api_solo(
        page,
        mode="individual",
        target=500,
        turn_seconds=25,
        bot_level="random",
        rules={"blind_nil": False},
    )
    wait_turn(page)
    assert act(page) == "bid"
    for _ in range(13):
        page.locator(".hand .card.legal").first.wait_for()
        assert act(page) == "play"
    # Hand 2's bidding reaches us at once (bots do not wait): the sheet must not cover it.
    page.locator(".result-strip").wait_for()
    page.get_by_role("button", name="Bid 2").wait_for()
    assert page.locator(".hand-sheet").count() == 0
    assert page.locator(".overlay").count() == 0
    assert page.locator(".status-line .countdown").is_visible()
    assert re.match(r"^0:[0-2]\d$", page.locator(".status-line .countdown").inner_text())
    assert not page.evaluate("document.querySelector('.table-screen').inert")
    assert "Hand 1 result" in page.locator(".result-strip").inner_text()
    shoot(page, screenshots, f"p17-strip-{size['width']}")
    page.set_viewport_size(size)
    # The score sheet opened during your turn shows your clock and the way back.
    page.locator(".result-strip").get_by_role("button", name="Score sheet").click()
    alert = page.locator(".score-sheet .turn-alert")
    alert.wait_for()
    assert alert.locator(".countdown").is_visible()
    alert.get_by_role("button", name="Back to the table").click()
    page.get_by_role("button", name="Bid 2").click()
    page.locator(".bid-panel button.bid").first.wait_for(state="detached")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_play_solo_has_its_own_remembered_choices(
    new_page: Any, screenshots: Path, size: dict[str, int]
) -> None:
    """2. Play solo offers Individual (default) or Partners, target, turn timer, bot level,
    in place, and remembers them."""
    page = new_page(viewport=size)
    page.goto("/")
    solo = page.locator("form[data-form='solo']")
    assert solo.get_by_label("Individual").is_checked()
    assert "Every player for themself" in solo.inner_text()
    page.screenshot(path=str(screenshots / f"p17-home-solo-{size['width']}.png"), full_page=True)
    fill_solo_choices(page, mode="partnership", target=200, bots="strong", turn=30)
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    code = page.url.rsplit("/", 1)[1]
    settings = page.request.get(f"/api/rooms/{code}").json()["settings"]
    assert (settings["mode"], settings["target"], settings["turn_seconds"]) == (
        "partnership",
        200,
        30,
    )
    assert settings["bot_level"] == "strong"
    page.goto("/")
    solo = page.locator("form[data-form='solo']")
    assert solo.get_by_label("Partners with a bot").is_checked()
    assert solo.locator("input[name='solo-target'][value='200']").is_checked()
    assert solo.get_by_label("Solo turn timer").input_value() == "30"
    assert solo.get_by_label("Solo bot level").input_value() == "strong"


def test_phone_seat_plates_keep_partner_dealer_and_bot_tags(
    new_page: Any, screenshots: Path
) -> None:
    """7. At 390 px the Partner, Dealer and Bot tags stay visible on every seat plate."""
    page = new_page(viewport=PHONE)
    api_solo(page, mode="partnership", target=500)
    wait_turn(page)
    assert page.locator(".seat-plate .tag.partner").is_visible()
    bots = page.locator(".seat-plate .tag.bot")
    assert bots.count() == 3
    assert all(bots.nth(i).is_visible() for i in range(3))
    assert page.locator(".seat-plate .tag.dealer").is_visible()
    page.screenshot(path=str(screenshots / "p17-phone-tags.png"))


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_lobby_shows_teams_and_confirms_replacing_a_person(
    new_page: Any, screenshots: Path, size: dict[str, int]
) -> None:
    """8. Partnership lobbies name the teams; "Seat a bot" on a person asks first."""
    host = new_page(viewport=size)
    made = host.request.post("/api/rooms", data={"name": "Hosty", "mode": "partnership"}).json()
    code = made["code"]
    host.goto("/")
    host.evaluate(
        "([code, token]) => localStorage.setItem(`spades.token.${code}`, token)",
        [code, made["token"]],
    )
    guest = new_page()
    guest.goto(f"/r/{code}")
    guest.get_by_label("Your name").fill("Guesty")
    guest.get_by_role("button", name="Sit here, in the West seat").click()
    host.goto(f"/r/{code}")
    teams = host.get_by_role("list", name="Teams")
    teams.get_by_text("Guesty").wait_for()
    assert re.search(r"Team 1: Hosty \(you\) & North", teams.inner_text())
    assert re.search(r"Team 2: Guesty & East", teams.inner_text())
    host.get_by_role("button", name="Seat a bot in the West seat").click()
    question = host.get_by_role("group", name="Replace Guesty with a bot?")
    question.wait_for()
    shoot(host, screenshots, "p17-lobby-confirm")
    host.set_viewport_size(size)
    question.get_by_role("button", name="Cancel").click()
    assert host.locator(".lobby-seat.place-left .seat-name").inner_text().startswith("Guesty")
    host.get_by_role("button", name="Seat a bot in the West seat").click()
    host.get_by_role("button", name="Yes, seat a bot").click()
    host.locator(".lobby-seat.place-left.bot").wait_for()


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_table_shows_contracts_leader_nil_bags_and_trick_winners(
    new_page: Any, screenshots: Path, size: dict[str, int]
) -> None:
    """10. Contract progress per side, who led, nil alive/broken, bag warning, trick winners."""
    page = new_page(viewport=size)
    api_solo(page, mode="individual", target=500, rules={"bag_limit": 3, "bag_penalty": 10})
    page.get_by_role("button", name="Nil", exact=True).click()
    page.locator(".seat-plate.mine .tag.nil-alive, .seat-plate.mine .tag.nil-broken").wait_for()
    contracts = page.get_by_role("list", name="Contracts this hand")
    # Four lines: a contract "0 of N", or a nil shown alive or broken instead (ours, and any
    # bot's: a bot may bid nil too).
    text = contracts.inner_text()
    shown = re.findall(r"\d+ of \d+", text) + re.findall(r"Nil, (?:alive|broken)", text)
    assert len(shown) == 4, text
    assert re.search(r"You Nil, (alive|broken)", text)
    # 6. The progress bars say what they show, and where the target is.
    bars = page.locator(".scoreboard .target-bars")
    assert "Progress to the target (500)" in bars.inner_text()
    assert bars.get_by_text("You: 0 of 500").count() == 1
    assert bars.locator(".target-mark").count() == 4
    assert "★" not in page.locator(".scoreboard").inner_text()
    wait_turn(page)
    played = 0
    while page.locator(".hand .card.legal").count() and played < 13:
        if page.locator(".trick-area:not(.done) .played").count():
            # Someone led before us: the leader's card is marked, and the caption says who.
            assert page.locator(".trick-area:not(.done) .led-mark").count() == 1
            assert " led" in page.locator(".trick-caption").inner_text()
        act(page)
        played += 1
        if page.locator(".trick-log li").count() >= 3:
            break
        wait_turn(page)
    log = page.get_by_role("list", name="Tricks won this hand")
    assert log.locator("li").count() >= 1
    winners = log.locator("li").all_inner_texts()
    assert all(re.match(r"^\d+ \S", w) for w in winners)
    shoot(page, screenshots, f"p17-table-info-{size['width']}")
    page.set_viewport_size(size)
    # Play the hand out; any side with a bag is within two of the limit of 3.
    for _ in range(60):
        wait_turn(page)
        if page.locator(".hand-sheet").count() or page.locator(".result-strip").count():
            break
        act(page)
    page.locator(".hand-sheet").get_by_role("button", name=SHEET_BUTTON).click()
    bags = [
        int(t.split("/")[0])
        for t in page.locator(".scoreboard td.num:nth-of-type(4)").all_inner_texts()
    ]
    warnings = page.locator(".contracts .tag.bag-warn").count()
    assert warnings == sum(1 for b in bags if b >= 1)
    # 5. The score sheet opens from the keyboard at any time, and Escape closes it.
    page.get_by_role("button", name="Score sheet").focus()
    page.keyboard.press("Enter")
    sheet = page.get_by_role("dialog", name="Score sheet")
    sheet.wait_for()
    assert sheet.locator("tbody tr").count() == 4
    assert sheet.locator("svg.score-chart").count() == 1
    page.keyboard.press("Escape")
    sheet.wait_for(state="detached")
    # 4. In the next hand's bidding, "Last trick" still shows the 13th trick.
    page.locator(".bid-panel button.bid").first.wait_for()
    page.get_by_role("button", name="Last trick").click()
    assert page.locator(".side .last-trick li").count() == 4
    assert "won it with the" in page.locator(".side .last-trick").inner_text()


def test_review_steps_through_a_finished_game(new_page: Any, tour: Tour, screenshots: Path) -> None:
    """The review: reachable from game over and the room history, a shareable link, all four
    hands face up, arrow keys step through every bid and card, the score sheet beside."""
    game = tour.facts["individual-game"]
    link = tour.facts["individual-history-link"]
    assert link.startswith("/?room=") and link.endswith(f"#review/{game}")
    page = new_page()
    page.goto(f"/#review/{game}")
    where = page.locator(".review-where")
    where.get_by_text("step 1 of").wait_for()
    assert page.locator(".review-cards li").count() == 52
    assert "dealt" in where.inner_text()
    page.keyboard.press("ArrowRight")
    assert "step 2 of" in where.inner_text() and " bids " in where.inner_text()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    assert " plays the " in where.inner_text()
    assert page.locator(".review-cards li").count() == 51
    page.keyboard.press("ArrowLeft")
    assert page.locator(".review-cards li").count() == 52
    hands = int(re.search(r"Hand 1 of (\d+)", where.inner_text()).group(1))
    page.keyboard.press("PageDown")
    # A short game may end after one hand (a made nil alone can reach the target).
    assert f"Hand {min(2, hands)} of {hands}" in where.inner_text()
    page.keyboard.press("End")
    # The score sheet beside holds the finished hands (every hand, at the end).
    assert page.locator(".review-side tbody tr").count() >= 4
    total = int(re.search(r"of (\d+):", where.inner_text()).group(1))
    assert f"step {total} of {total}" in where.inner_text()
    shoot(page, screenshots, "p17-review")
    # The link of a step opens that step.
    other = new_page(viewport=PHONE)
    other.goto(f"/#review/{game}/5")
    other.locator(".review-where").get_by_text("step 6 of").wait_for()
    # Buttons do the same as the keys.
    other.get_by_role("button", name="Forward ▶").click()
    other.locator(".review-where").get_by_text("step 7 of").wait_for()


@pytest.mark.parametrize("mode", ["partnership", "individual"])
def test_table_in_play_fits_every_width_and_passes_axe(new_page: Any, mode: str) -> None:
    """3 and axe, on their own (the tour covers every screen): the table while playing."""
    page = new_page()
    api_solo(page, mode=mode, target=500, rules={"blind_nil": False})
    for _ in range(10):
        wait_turn(page)
        if page.locator(".hand .card.legal").count() and page.locator(".played").count():
            break
        act(page)
    assert overflow(page) == []
    assert axe_violations(page) == []
