"""A guest player in real Chromium: made on the first visit, kept across reloads, recorded on
the seats it takes (Play solo and a lobby's "Sit here"), offered "Return to your game" on the
home page, back in the same seat, and asked before the logo leaves a live game."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.request import Request, urlopen

import pytest
from e2e_helpers import start_solo

pytestmark = pytest.mark.e2e


def kept_player(page: Any) -> dict[str, str]:
    page.wait_for_function("() => localStorage.getItem('spades.player') !== null")
    player: dict[str, str] = json.loads(page.evaluate("localStorage.getItem('spades.player')"))
    return player


def api(server: str, method: str, path: str, body: Any = None, player: Any = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if player is not None:
        headers["X-Spades-Player"] = f"{player['id']}:{player['secret']}"
    data = None if body is None else json.dumps(body).encode()
    with urlopen(Request(server + path, data=data, headers=headers, method=method)) as answer:
        return json.loads(answer.read())


def test_a_guest_keeps_its_name_and_returns_to_its_seat(new_page: Any, server: str) -> None:
    page = new_page()
    code = start_solo(page, name="Guesty", mode="individual", target=500, bots="basic")
    player = kept_player(page)
    assert set(player) == {"id", "secret"}
    # The server knows the guest by the name picked, and the seat records it.
    assert api(server, "GET", "/api/me", player=player)["name"] == "Guesty"
    mine = api(server, "GET", "/api/me/rooms", player=player)["rooms"]
    assert [(r["code"], r["seat"], r["status"]) for r in mine] == [(code, 0, "playing")]

    # A reload keeps the same player and the same seat.
    page.reload()
    page.locator(".seat-plate.mine").get_by_text("Guesty").wait_for()
    assert kept_player(page) == player

    # The logo asks before leaving the game; Stay keeps the table, Escape too.
    brand = page.get_by_role("link", name="Spades home")
    brand.click()
    dialog = page.get_by_role("dialog", name="Leave this game?")
    dialog.wait_for()
    assert page.evaluate("document.activeElement.id") == "leave-title"
    assert page.url.endswith(f"/r/{code}")
    dialog.get_by_role("button", name="Stay at the table").click()
    dialog.wait_for(state="detached")
    brand.click()
    dialog.wait_for()
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    brand.click()
    dialog.get_by_role("link", name="Leave the game").click()
    page.wait_for_url(re.compile(r"/$"))

    # Home: the name is offered again, and the live game is one click away.
    assert page.get_by_label("Your name").input_value() == "Guesty"
    back = page.get_by_role("link", name="Return to your game")
    back.wait_for()
    assert back.count() == 1
    back.click()
    page.wait_for_url(re.compile(rf"/r/{code}$"))
    page.locator(".seat-plate.mine").get_by_text("Guesty").wait_for()

    # A friend's room: the guest takes a seat in its lobby; the seat records the player.
    friend = api(server, "POST", "/api/rooms", {"name": "Host", "mode": "individual"})
    page.goto(f"/r/{friend['code']}")
    page.locator(".lobby").wait_for()
    assert page.locator("#sit-name").input_value() == "Guesty"
    page.get_by_role("button", name=re.compile(r"^Sit here")).first.click()
    page.get_by_role("button", name=re.compile(r"Stand up|Leave seat", re.I)).first.wait_for()
    rooms = api(server, "GET", "/api/me/rooms", player=player)["rooms"]
    assert {r["code"] for r in rooms} == {code, friend["code"]}
    assert [r["seat"] for r in rooms if r["code"] == friend["code"]] == [1]
    # In the lobby (no game yet) the logo goes straight home.
    page.get_by_role("link", name="Spades home").click()
    page.wait_for_url(re.compile(r"/$"))
    page.get_by_role("link", name="Return to your game").nth(1).wait_for()
    assert page.get_by_role("link", name="Return to your game").count() == 2
    # The player's page lists finished games (none yet) and is linked from home.
    page.get_by_role("link", name="Your finished games").click()
    page.get_by_role("heading", name="Your finished games").wait_for()
