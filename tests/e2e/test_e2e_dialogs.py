"""The hand's result sheet, the game-over dialog and "Last game's results" open at their top on
a small screen (a phone held sideways, a small phone upright): the focus goes to the heading,
not to a button at the bottom that would scroll the heading and the results out of view. Tab
then reaches the main button first, Escape closes, and a new state keeps the scroll."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from e2e_helpers import act, open_with_token, wait_turn
from e2e_server import DESKTOP

pytestmark = pytest.mark.e2e

TOUCH = {"is_mobile": True, "has_touch": True}
SIDEWAYS = {"width": 844, "height": 390}
SMALL_PORTRAIT = {"width": 360, "height": 640}
SIZES = [pytest.param(SIDEWAYS, id="sideways"), pytest.param(SMALL_PORTRAIT, id="portrait")]

# Is the element wholly inside the viewport, and the topmost thing at its centre?
IN_VIEW = (
    "e => { const r = e.getBoundingClientRect(); "
    "const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); "
    "return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth "
    "&& !!top && (top === e || e.contains(top)); }"
)
FOCUSED = "e => e === document.activeElement"


def _solo(page: Any, target: int = 50) -> dict[str, Any]:
    made = page.request.post(
        "/api/solo",
        data={"name": "Tess", "mode": "individual", "target": target, "bot_level": "basic"},
    ).json()
    return dict(made)


def _play_to_the_end(page: Any) -> None:
    for _ in range(600):
        wait_turn(page, timeout=20_000)
        if act(page) == "over":
            return
    pytest.fail("the game did not end")


@pytest.fixture(scope="module")
def finished_game(browser: Any, server: str) -> Iterator[dict[str, Any]]:
    """A short solo game (every player for themself, to 50) played to its end."""
    context = browser.new_context(viewport=DESKTOP, base_url=server, reduced_motion="reduce")
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        made = _solo(page)
        open_with_token(page, made)
        _play_to_the_end(page)
        yield made
    finally:
        context.close()


def _opens_at_top(page: Any, box_selector: str, heading: Any) -> None:
    box = page.locator(box_selector)
    assert box.evaluate("e => e.scrollTop") == 0
    assert heading.evaluate(IN_VIEW)
    assert heading.evaluate(FOCUSED)


def _at_first_hand_sheet(new_page: Any, size: dict[str, int]) -> Any:
    """A solo game played until the first hand's result sheet is up."""
    page = new_page(viewport=size, **TOUCH)
    open_with_token(page, _solo(page, target=500))
    for _ in range(60):
        wait_turn(page)
        if page.locator(".hand-sheet").count():
            break
        act(page)
    return page


@pytest.mark.parametrize("size", SIZES)
def test_hand_sheet_opens_at_its_top(new_page: Any, size: dict[str, int]) -> None:
    """The result sheet after a hand: its heading has the focus and is in view; one Tab
    reaches Continue, and Enter on it goes on to the next hand."""
    page = _at_first_hand_sheet(new_page, size)
    sheet = page.get_by_role("dialog", name="Hand 1 result")
    sheet.wait_for()
    page.wait_for_timeout(100)
    heading = sheet.get_by_role("heading", name="Hand 1 result")
    _opens_at_top(page, ".sheet.hand-sheet", heading)
    # Enter on the heading does nothing: a key pressed for the last card skips no result.
    page.keyboard.press("Enter")
    page.wait_for_timeout(100)
    assert sheet.count() == 1
    page.keyboard.press("Tab")
    assert sheet.get_by_role("button", name="Continue").evaluate(FOCUSED)
    page.keyboard.press("Enter")
    sheet.wait_for(state="detached")


@pytest.mark.parametrize("size", SIZES)
def test_hand_sheet_escape_continues_and_the_focus_goes_back_to_the_game(
    new_page: Any, size: dict[str, int]
) -> None:
    """Escape closes the result sheet like Continue: the focus is on the table again (the
    bidding panel or the hand), not lost on the page's body."""
    page = _at_first_hand_sheet(new_page, size)
    page.get_by_role("dialog", name="Hand 1 result").wait_for()
    page.keyboard.press("Escape")
    page.locator(".hand-sheet").wait_for(state="detached")
    assert page.evaluate("!!document.activeElement.closest('.table-screen')")


@pytest.mark.parametrize("size", SIZES)
def test_game_over_opens_at_its_top(
    new_page: Any, finished_game: dict[str, Any], size: dict[str, int]
) -> None:
    """The game-over dialog: heading focused and in view, the final scores under it; one Tab
    reaches Play again; Escape closes it (the focus on Results), and Results opens it again
    at its top."""
    page = new_page(viewport=size, **TOUCH)
    open_with_token(page, finished_game)
    dialog = page.locator(".game-over")
    dialog.wait_for()
    page.wait_for_timeout(100)
    heading = dialog.get_by_role("heading", level=2)
    _opens_at_top(page, ".sheet.game-over", heading)
    assert dialog.locator(".final-scores li").first.evaluate(IN_VIEW)
    page.keyboard.press("Tab")
    assert dialog.get_by_role("button", name="Play again").evaluate(FOCUSED)
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    results = page.get_by_role("button", name="Results", exact=True)
    assert results.evaluate(FOCUSED)
    page.keyboard.press("Enter")
    dialog.wait_for()
    _opens_at_top(page, ".sheet.game-over", heading)


# Known flake (about one module run in three here, never alone): the dialog is sometimes
# found at its top after the spectator's arrival redraws it; rerun while the cause is
# looked for (issue 59's note).
@pytest.mark.flaky(reruns=2)
def test_game_over_keeps_its_scroll_when_a_new_state_comes(
    new_page: Any, finished_game: dict[str, Any]
) -> None:
    """Scrolled down to its buttons, the game-over dialog stays there when the room changes
    (here: a spectator's chat message): it is drawn anew, not sent back to its top."""
    page = new_page(viewport=SIDEWAYS, **TOUCH)
    open_with_token(page, finished_game)
    box = page.locator(".sheet.game-over")
    box.wait_for()
    # Laid out in full first (its chart and scores come in as the page settles): only then
    # is it longer than the screen, which this test needs.
    page.wait_for_function(
        "() => { const e = document.querySelector('.sheet.game-over');"
        " return !!e && e.scrollHeight - e.clientHeight > 50; }",
        timeout=10_000,
    )
    box.evaluate("e => { e.scrollTop = e.scrollHeight; }")
    scrolled = box.evaluate("e => e.scrollTop")
    assert scrolled > 50, "the dialog should be longer than the screen for this test"
    first = box.element_handle()
    watcher = new_page(viewport=SIDEWAYS, **TOUCH)
    watcher.goto(f"/r/{finished_game['code']}")
    watcher.locator(".game-over").get_by_role("button", name="Close", exact=True).click()
    watcher.get_by_role("textbox", name="Message").fill("well played")
    watcher.get_by_role("button", name="Send").click()
    # The player's page got the message and drew the dialog again.
    for _ in range(100):
        if not first.evaluate("e => e.isConnected"):
            break
        page.wait_for_timeout(100)
    else:
        pytest.fail("the dialog was not drawn again")
    assert abs(box.evaluate("e => e.scrollTop") - scrolled) <= 1


@pytest.mark.parametrize("size", SIZES)
def test_last_games_results_open_at_their_top(
    new_page: Any, browser: Any, server: str, size: dict[str, int]
) -> None:
    """After Play again, "Last game's results" opens at its top, Tab reaches "Back to the new
    game", and Escape closes it with the focus back on the button that opened it."""
    page = new_page(viewport=size, **TOUCH)
    open_with_token(page, _solo(page))
    _play_to_the_end(page)
    page.get_by_role("button", name="Play again").click()
    page.locator(".game-over").wait_for(state="detached")
    opener = page.get_by_role("button", name="Last game's results")
    opener.click()
    dialog = page.get_by_role("dialog")
    dialog.wait_for()
    page.wait_for_timeout(100)
    heading = dialog.get_by_role("heading", level=2)
    _opens_at_top(page, ".sheet.game-over", heading)
    page.keyboard.press("Tab")
    assert dialog.get_by_role("button", name="Back to the new game").evaluate(FOCUSED)
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    assert opener.evaluate(FOCUSED)
