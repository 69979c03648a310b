"""Play now: a player alone picks "fill with bots" after a short wait, watches the waiting
view (how many wait, for how long, when bots come), and lands at a table with three bots,
not rated; four strangers are seated together at a rated table, play it to its end, and
see their ratings change (issue 57's acceptance)."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import TURN_SELECTOR, act, shoot
from e2e_server import run_server
from playwright.sync_api import TimeoutError as PlaywrightTimeout

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


@pytest.fixture(scope="module")
def rated_server(tmp_path_factory: pytest.TempPathFactory, server: str) -> Iterator[str]:
    """A server whose quick play also offers a game to 50 (one hand: every player bids 3,
    so one side takes 7 tricks or more and passes 50), untimed turns (a loaded machine
    may be slow to click), and a poll that waits up to 5 s."""
    env = {
        "SPADES_QUICKPLAY_TARGETS": "50,200,300,500",
        "SPADES_QUICKPLAY_TURN_SECONDS": "0",
        "SPADES_QUICKPLAY_EXPIRE": "10",
    }
    with run_server(tmp_path_factory.mktemp("e2e-rated"), extra_env=env) as url:
        yield url


def play_now(page: Any, name: str, mode: str, target: str, bots: str) -> None:
    page.goto("/")
    page.get_by_label("Your name").fill(name)
    quick = page.locator("section.quickplay")
    quick.get_by_label(mode).check()
    quick.locator(f"input[name='qp-target'][value='{target}']").check()
    quick.get_by_label("Fill with bots").select_option(bots)
    quick.get_by_role("button", name="Play now").click()
    # Waiting, or (the last of four) seated at once and gone to the table.
    page.wait_for_function(
        "() => document.querySelector('section.quickplay [role=status]') || "
        "location.pathname.startsWith('/r/')"
    )


def play_to_the_end(pages: list[Any]) -> None:
    """Each page does what it is asked (bids 3, plays its first legal card, reads the hand's
    sheet) until every page shows the game over: the players' own clicks, in turn."""
    deadline = time.monotonic() + 600  # a guard against a hang, not a timing assertion
    while time.monotonic() < deadline:
        if all(p.locator(".game-over").count() for p in pages):
            return
        for page in pages:
            # Whoever has something to do (waiting on the page's state, a moment each).
            with contextlib.suppress(PlaywrightTimeout):
                page.locator(TURN_SELECTOR).first.wait_for(state="visible", timeout=300)
                act(page, bid="Bid 3")
    raise AssertionError("the game did not end")


def test_four_strangers_play_a_rated_game_and_a_fifth_gets_bots(
    new_page: Any, rated_server: str, screenshots: Path
) -> None:
    """The acceptance: four browsers press Play now for partners (to 50) and land in one
    rated room; they play it to its end and each sees their rating's change there and on
    the leaderboard; a fifth, alone, gets three bots after the wait it chose, unrated."""
    alone = new_page(base_url=rated_server)
    play_now(alone, "Fifth", "Every player for themself", "50", "10")
    names = ["North Nan", "East Eli", "South Sue", "West Wes"]
    pages = [new_page(base_url=rated_server) for _ in names]
    for page, name in zip(pages, names, strict=True):
        play_now(page, name, "Partners (2 vs 2)", "50", "0")
    for page in pages:
        page.wait_for_url(re.compile(r"/r/[^/]+$"), timeout=60_000)
        page.locator(".table-screen").wait_for()
    codes = {page.url.rsplit("/", 1)[1] for page in pages}
    assert len(codes) == 1, codes
    room = pages[0].request.get(f"/api/rooms/{codes.pop()}").json()
    assert room["settings"]["rated"] is True and room["settings"]["target"] == 50
    assert [s["kind"] for s in room["seats"]] == ["human"] * 4
    # Each plate shows its player's rating (new players: provisional).
    for page in pages:
        page.locator(".seat-plate .tag.rating").nth(3).wait_for()
        assert page.locator(".seat-plate .tag.rating.provisional").count() == 4
        assert "★ 1000?" in page.locator(".seat-plate.mine .tag.rating").inner_text()
    play_to_the_end(pages)
    after = []
    for page in pages:
        mine = page.get_by_test_id("my-rating-change")
        mine.wait_for()
        found = re.search(r"1000 → (\d+) \([+−]\d+\)", mine.inner_text())
        assert found, mine.inner_text()
        after.append(found.group(1))
        assert page.get_by_test_id("rating-changes").locator("li").count() == 4
    shoot(pages[0], screenshots, "p57-rated-game-over")
    for page, rating in zip(pages, after, strict=True):
        page.goto("about:blank")
        page.goto("/#leaderboard/partnership")
        you = page.get_by_test_id("leaderboard-you")
        you.wait_for()
        assert f"You: {rating} (provisional)" in you.inner_text()
    # The fifth: three bots after its 10 s, in a room that is not rated (no ratings shown).
    alone.wait_for_url(re.compile(r"/r/[^/]+$"), timeout=60_000)
    alone.locator(".table-screen").wait_for()
    assert alone.locator(".seat-plate .tag.bot").count() == 3
    assert alone.locator(".seat-plate .tag.rating").count() == 0
    code = alone.url.rsplit("/", 1)[1]
    unrated = alone.request.get(f"/api/rooms/{code}").json()
    assert unrated["settings"]["rated"] is False and unrated["settings"]["mode"] == "individual"


@pytest.mark.parametrize("back", ["next poll", "reload"])
def test_a_seat_made_while_the_polls_were_lost_is_still_taken(new_page: Any, back: str) -> None:
    """The page's polls fail (the network drops their answers) while its table is made: the
    seat is kept for the player, and the next poll that gets through takes them to it, or
    the page, reloaded, asks where it stands and goes there."""
    page = new_page()
    page.route(re.compile(r"/api/quickplay\?wait="), lambda route: route.abort())
    play_now(page, "Lost Lou", "Every player for themself", "200", "10")
    player = page.evaluate("JSON.parse(localStorage.getItem('spades.player'))")
    headers = {"X-Spades-Player": f"{player['id']}:{player['secret']}"}
    deadline = time.monotonic() + 120  # a guard against a hang, not a timing assertion
    state = page.request.get("/api/quickplay", headers=headers).json()
    while state["status"] != "matched" and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        state = page.request.get("/api/quickplay", headers=headers).json()
    assert state["status"] == "matched"
    assert "/r/" not in page.url  # every answer the page asked for was lost
    if back == "reload":
        page.reload()  # (its polls are still lost: the page's first look finds the seat)
    else:
        page.unroute(re.compile(r"/api/quickplay\?wait="))
    page.wait_for_url(re.compile(r"/r/[^/]+$"), timeout=30_000)
    page.locator(".table-screen").wait_for()
    assert page.url.endswith(f"/r/{state['code']}")
    assert page.locator(".seat-plate.mine").get_by_text("Lost Lou").count() == 1
