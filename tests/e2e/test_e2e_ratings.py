"""Ratings in real Chromium: four players (Python clients) play a rated game to its end;
one of them opens their page and sees their rating and its chart, then the leaderboard
from the home page with their own (provisional, not yet ranked) rating."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_helpers import shoot
from test_e2e_players import axe_violations
from websockets.asyncio.client import ClientConnection, connect

from support import choose
from wire import receive

pytestmark = pytest.mark.e2e


HELD: dict[int, dict[str, Any]] = {}  # each socket's state, its events applied (wire.py)


async def _until(ws: ClientConnection, types: tuple[str, ...]) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message["type"] in ("state", "event"):
            message = HELD[id(ws)] = receive(HELD.get(id(ws)), message)
        if message["type"] in types:
            return message


async def _play(ws: ClientConnection, first: dict[str, Any]) -> None:
    """Act whenever this seat may, one action at a time, until the game is over."""
    pending, message = None, first
    while True:
        assert message["type"] != "error", message
        if message.get("ref") is not None and message["ref"] == pending:
            pending = None
        view = message["view"]
        if view is not None and view["phase"] == "over":
            return
        if pending is None and view is not None and view["legal"]:
            pending = message["seq"]
            await ws.send(json.dumps({**choose(view), "id": pending}))
        message = await _until(ws, ("state", "error"))


async def _rated_game(base: str) -> list[dict[str, Any]]:
    """Four new players play one rated partnership game to its end; their credentials."""
    ws_base = base.replace("http", "ws", 1)
    async with httpx.AsyncClient(base_url=base) as http:
        players = [
            (await http.post("/api/players", json={"name": f"R{i}"})).json() for i in range(4)
        ]
        heads = [{"X-Spades-Player": p["credential"]} for p in players]
        made = (
            await http.post(
                "/api/rooms", json={"name": "R0", "rated": True, "target": 50}, headers=heads[0]
            )
        ).json()
        tokens = [made["token"]]
        for i in range(1, 4):
            body = {"name": f"R{i}", "seat": i}
            joined = await http.post(f"/api/rooms/{made['code']}/join", json=body, headers=heads[i])
            tokens.append(joined.json()["token"])
    sockets = []
    for token in tokens:
        ws = await connect(f"{ws_base}/ws/{made['code']}", ping_interval=None, max_size=None)
        await ws.send(json.dumps({"type": "hello", "token": token, "id": "hello"}))
        await _until(ws, ("state",))
        sockets.append(ws)
    await sockets[0].send(json.dumps({"type": "start", "id": "go"}))
    firsts = [await _until(ws, ("state",)) for ws in sockets]
    await asyncio.gather(*(_play(ws, m) for ws, m in zip(sockets, firsts, strict=True)))
    for ws in sockets:
        await ws.close()
    return players


def rated_game(base: str) -> list[dict[str, Any]]:
    """`_rated_game` on a loop of its own thread (Playwright's sync API holds this one)."""
    out: list[list[dict[str, Any]]] = []
    thread = threading.Thread(target=lambda: out.append(asyncio.run(_rated_game(base))))
    thread.start()
    thread.join(120)
    assert out, "the rated game did not finish"
    return out[0]


def test_a_player_sees_their_rating_chart_and_the_leaderboard(
    new_page: Any, server: str, screenshots: Path
) -> None:
    players = rated_game(server)
    me = players[0]
    # The game's end reaches the sockets before the store's writer has committed it (and
    # its ratings) on a loaded machine: the page is opened once the rating is there.
    head = {"X-Spades-Player": me["credential"]}
    for _ in range(300):
        rated = httpx.get(f"{server}/api/players/{me['id']}/ratings", headers=head).json()
        if rated["history"]:
            break
        threading.Event().wait(0.1)
    else:
        pytest.fail("the rated game's rating was never stored")
    page = new_page()
    page.goto("/")
    kept = json.dumps({"id": me["id"], "secret": me["credential"].split(":", 1)[1]})
    page.evaluate(f"localStorage.setItem('spades.player', {json.dumps(kept)})")
    # A fresh load of the player page with that credential (not a reload, which raced with
    # the home page's own navigation once the quick play test had run before).
    page.goto("about:blank")
    page.goto(f"/#player/{me['id']}")
    ratings = page.get_by_test_id("ratings")
    ratings.wait_for()
    text = ratings.inner_text()
    assert "Partners:" in text and "(provisional)" in text and "1 rated game" in text
    chart = page.get_by_role("img", name="Rating history", exact=False)
    assert "over 1 games" in (chart.get_attribute("aria-label") or "")
    assert page.locator(".rating-chart polyline").count() == 1
    assert axe_violations(page) == []
    shoot(page, screenshots, "p57-rating-chart")
    page.goto("/")
    page.get_by_test_id("leaderboard-link").click()
    page.get_by_role("heading", name="Leaderboard").wait_for()
    you = page.get_by_test_id("leaderboard-you")
    you.wait_for()
    assert "(provisional)" in you.inner_text() and "not ranked yet" in you.inner_text()
    page.get_by_text("Nobody has 10 rated games in this mode yet.").wait_for()
    assert axe_violations(page) == []
    shoot(page, screenshots, "p57-leaderboard")
