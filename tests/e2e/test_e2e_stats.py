"""A player's statistics on their page, in real Chromium: a guest plays a solo game to the
end, reloads their page, and reads their statistics for the mode (the figures the server
answers); a visitor sees them only once the player's page is public."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import shoot, start_solo
from test_e2e_guest import api, kept_player
from test_e2e_players import axe_violations
from test_e2e_profile import play_to_the_end

pytestmark = pytest.mark.e2e


def stat_rows(page: Any) -> dict[str, str]:
    """The statistics table: each row's label and its (one mode's) figure."""
    table = page.get_by_role("table", name="Statistics")
    table.wait_for()
    rows = table.locator("tbody tr")
    return {
        rows.nth(i).locator("th").inner_text(): rows.nth(i).locator("td").inner_text()
        for i in range(rows.count())
    }


def test_a_guest_sees_their_statistics_after_a_game(
    new_page: Any, server: str, screenshots: Path
) -> None:
    page = new_page()
    start_solo(page, name="Stats", mode="individual", target=50, bots="basic")
    play_to_the_end(page)
    player = kept_player(page)
    page.goto(f"/#player/{player['id']}")
    page.reload()
    page.get_by_role("heading", name="Your finished games").wait_for()
    page.get_by_role("columnheader", name="Individual").wait_for()
    mine = api(server, "GET", "/api/me/stats", player=player)["modes"]
    individual = next(m for m in mine if m["mode"] == "individual")
    assert individual["games"] == 1
    rows = stat_rows(page)
    assert rows["Games"] == "1"
    assert rows["Hands"] == str(individual["hands"])
    made, bid = individual["contracts_made"], individual["contracts_bid"]
    assert rows["Contracts made"].startswith(f"{made} of {bid}")
    assert rows["Sets taken"] == str(individual["sets"])
    assert rows["Points per hand"] == f"{individual['points_per_hand']:.1f}"
    assert page.get_by_role("columnheader", name="Partners").count() == 0  # none played
    assert axe_violations(page) == []
    shoot(page, screenshots, "p56-stats")

    # A visitor: private, so no statistics; public, the same table.
    visitor = new_page()
    visitor.goto(f"/#player/{player['id']}")
    visitor.get_by_text("This player's games are private.").wait_for()
    assert visitor.get_by_role("table").count() == 0
    api(server, "PATCH", "/api/me", {"public": True}, player=player)
    visitor.reload()
    assert stat_rows(visitor) == rows
