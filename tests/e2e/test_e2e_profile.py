"""A player's page in real Chromium: private until its player turns on "Show my games to
others" on it (saved at once, said when saving failed), and another browser sees the games
only while it is on."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from e2e_helpers import act, start_solo, wait_turn
from test_e2e_guest import api, kept_player
from test_e2e_players import axe_violations

pytestmark = pytest.mark.e2e

SWITCH = "Show my games to others"
PRIVATE = "This player's games are private."


def play_to_the_end(page: Any) -> None:
    for _ in range(600):
        wait_turn(page, timeout=20_000)
        if act(page) == "over":
            return
    pytest.fail("the game did not end")


def refuse_saving(route: Any) -> None:
    """The server cannot store the change just now (a 503, as when the database fails)."""
    if route.request.method != "PATCH":
        route.continue_()
        return
    body = json.dumps({"detail": "the database could not store it"})
    route.fulfill(status=503, content_type="application/json", body=body)


def test_a_player_chooses_who_sees_their_games(new_page: Any, server: str) -> None:
    page = new_page()
    start_solo(page, name="Privy", mode="individual", target=50, bots="basic")
    play_to_the_end(page)
    player = kept_player(page)
    mine = f"/#player/{player['id']}"

    # Their own page: the games, and the switch, off (a new player is private).
    page.goto(mine)
    page.get_by_role("heading", name="Your finished games").wait_for()
    switch = page.get_by_role("switch", name=SWITCH)
    assert not switch.is_checked()
    assert page.get_by_role("link", name=re.compile(r"^Review game")).count() == 1
    assert axe_violations(page) == []

    # Another browser: the games are private, said as such, and no switch.
    visitor = new_page()
    visitor.goto(mine)
    visitor.get_by_text(PRIVATE).wait_for()
    assert visitor.get_by_role("link", name=re.compile(r"^Review game")).count() == 0
    assert visitor.get_by_role("switch").count() == 0

    # On, from the keyboard: saved at once; the visitor now sees the games.
    switch.focus()
    page.keyboard.press("Space")
    # The status under the switch (the same words go to the screen reader's live region).
    page.locator("#show-games-status", has_text="Saved: others can see your games.").wait_for()
    assert switch.is_checked()
    assert page.evaluate("document.activeElement.id") == "show-games"
    assert api(server, "GET", "/api/me", player=player)["public"] is True
    visitor.reload()
    visitor.get_by_role("heading", name="Privy's finished games").wait_for()
    assert visitor.get_by_role("link", name=re.compile(r"^Review game")).count() == 1
    assert visitor.get_by_role("switch").count() == 0

    # A save that fails says so and puts the switch back; nothing changed on the server.
    page.route("**/api/me", refuse_saving)
    switch.click()
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert "Couldn't save your choice: the database could not store it" in alert.inner_text()
    assert switch.is_checked()
    assert api(server, "GET", "/api/me", player=player)["public"] is True
    page.unroute("**/api/me")

    # Off again: the visitor is shown the games are private; a reload keeps the choice.
    switch.click()
    page.locator("#show-games-status", has_text="Saved: your games are private.").wait_for()
    assert page.get_by_role("alert").count() == 0
    assert not switch.is_checked()
    visitor.reload()
    visitor.get_by_text(PRIVATE).wait_for()
    assert visitor.get_by_role("link", name=re.compile(r"^Review game")).count() == 0
    page.reload()
    page.get_by_role("heading", name="Your finished games").wait_for()
    assert not page.get_by_role("switch", name=SWITCH).is_checked()
