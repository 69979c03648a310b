"""A solo game from the home page to game over, and play again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import act, hand_cards, shoot, start_solo, wait_turn

pytestmark = pytest.mark.e2e


def test_solo_game_to_game_over(new_page: Any, screenshots: Path) -> None:
    page = new_page()
    page.goto("/")
    page.get_by_role("button", name="Play solo").wait_for()
    shoot(page, screenshots, "home")

    start_solo(page, name="Solo Sam", mode="individual", target=50, bots="basic")
    page.get_by_text("Solo Sam").first.wait_for()
    assert page.locator(".seat-plate.mine").get_by_text("Solo Sam").count() == 1
    # Bots fill the three other seats.
    assert page.locator(".seat-plate .tag.bot").count() == 3

    # Bid with the hint: the suggested bid is highlighted, then clicked.
    page.get_by_role("button", name="Bid 1", exact=True).wait_for()
    shoot(page, screenshots, "table-bidding")
    page.get_by_role("button", name="Hint").click()
    hinted = page.locator(".bid-panel button.hinted")
    hinted.wait_for()
    assert "Hint:" in page.locator(".hint-text").inner_text()
    hinted.click()
    page.locator(".bid-panel").wait_for(state="detached")

    # Play the whole first hand by clicking highlighted cards only.
    wait_turn(page)
    assert len(hand_cards(page)) == 13
    legal = page.locator(".hand .card.legal")
    if legal.count():
        # Dimmed cards are the ones that may not be played.
        dimmed = page.locator(".hand .card.dimmed")
        assert legal.count() + dimmed.count() == len(hand_cards(page))
        assert dimmed.count() == 0 or dimmed.first.get_attribute("aria-disabled") == "true"
    shoot(page, screenshots, "table-playing")
    for _ in range(13):
        wait_turn(page)
        assert act(page) == "play"
    # The 13th trick stays on the table a moment before the sheet opens; with no bot delay
    # the next hand's cards may already be dealt by then, so wait for the sheet itself.

    # The hand result sheet: bids, tricks, points for all four players.
    sheet = page.locator(".hand-sheet")
    sheet.wait_for()
    assert "Hand 1 result" in sheet.inner_text()
    assert sheet.locator("tbody tr").count() == 4
    shoot(page, screenshots, "hand-result")
    # The dialog has the focus (its heading), and Tab never lands on the table behind it.
    assert page.evaluate("document.activeElement.id") == "sheet-title"
    for _ in range(6):
        page.keyboard.press("Tab")
        assert not page.evaluate("!!document.activeElement.closest('.table-screen')")

    # Keep playing until someone reaches the low target.
    hands = 1
    for _ in range(400):
        wait_turn(page, timeout=20_000)
        done = act(page)
        if done == "over":
            break
        if done == "sheet":
            hands += 1
    else:
        pytest.fail("the game did not end")

    over = page.locator(".game-over")
    assert "game over" in over.inner_text().lower()
    assert over.locator("svg.score-chart polyline").count() == 4
    assert over.locator(".final-scores li.winner").count() == 1
    page.get_by_role("button", name="Play again").wait_for()
    shoot(page, screenshots, "game-over")

    # Play again: a fresh game at the same table.
    page.get_by_role("button", name="Play again").click()
    page.locator(".game-over").wait_for(state="detached")
    wait_turn(page)
    assert "Hand 1" in page.locator(".scoreboard").inner_text()
    assert [c.inner_text() for c in page.locator(".scoreboard td.num:nth-of-type(3)").all()] == [
        "0"
    ] * 4
