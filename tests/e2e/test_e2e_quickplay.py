"""Play now: a player alone picks "fill with bots" after a short wait, watches the waiting
view (how many wait, for how long, when bots come), and lands at a table with three bots,
not rated."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import shoot

pytestmark = pytest.mark.e2e


def test_play_now_fills_with_bots_after_the_wait_chosen(new_page: Any, screenshots: Path) -> None:
    page = new_page()
    page.goto("/")
    page.get_by_label("Your name").fill("Quick Quinn")
    quick = page.locator("section.quickplay")
    quick.get_by_label("Every player for themself").check()
    quick.locator("input[name='qp-target']").first.check()
    quick.get_by_label("Fill with bots").select_option("10")
    quick.get_by_role("button", name="Play now").click()
    status = quick.get_by_role("status")
    status.wait_for()
    assert "Looking for players" in status.inner_text()
    assert "0 other players waiting for Every player for themself" in quick.inner_text()
    quick.get_by_text(re.compile(r"bots fill your table in 0:\d\d")).wait_for()
    shoot(page, screenshots, "quickplay-waiting")
    page.wait_for_url(re.compile(r"/r/[^/]+$"), timeout=30_000)
    page.locator(".table-screen").wait_for()
    assert page.locator(".seat-plate.mine").get_by_text("Quick Quinn").count() == 1
    assert page.locator(".seat-plate .tag.bot").count() == 3
    code = page.url.rsplit("/", 1)[1]
    room = page.request.get(f"/api/rooms/{code}").json()
    assert room["settings"]["rated"] is False and room["settings"]["mode"] == "individual"


def test_closing_the_page_leaves_the_queue(new_page: Any) -> None:
    page = new_page()
    page.goto("/")
    quick = page.locator("section.quickplay")
    quick.get_by_label("Partners (2 vs 2)").check()
    quick.locator("input[name='qp-target']").last.check()
    quick.get_by_label("Fill with bots").select_option("0")
    quick.get_by_role("button", name="Play now").click()
    quick.get_by_text("You have waited").wait_for()
    assert "bots fill" not in quick.inner_text()
    player = page.evaluate("JSON.parse(localStorage.getItem('spades.player'))")
    headers = {"X-Spades-Player": f"{player['id']}:{player['secret']}"}
    request = page.context.request
    assert request.get("/api/quickplay", headers=headers).json()["status"] == "waiting"
    page.close(run_before_unload=True)
    for _ in range(200):  # a guard, not a timing assertion: the page's last request lands
        answer = request.get("/api/quickplay", headers=headers)
        if answer.status == 404:
            break
    assert answer.status == 404 and answer.json()["code"] == "not_queued"
