"""The connection drops (the server stops): a banner, then back in the same seat and hand."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import act, hand_cards, start_solo, wait_turn
from e2e_server import run_server
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from support import free_port

pytestmark = pytest.mark.e2e


def test_banner_while_down_then_same_seat_after_restart(new_page: Any, tmp_path: Path) -> None:
    port = free_port()
    with run_server(tmp_path, port) as url:
        page = new_page(base_url=url)
        code = start_solo(page, name="Comeback", mode="individual", target=500, bots="basic")
        wait_turn(page)
        assert act(page) == "bid"
        wait_turn(page)
        assert act(page) == "play"
        wait_turn(page)
        before = hand_cards(page)
        assert page.locator(".banner").count() == 0

    # The server is gone: the page says so and keeps trying.
    page.get_by_text("Connection lost").wait_for()
    page.get_by_role("button", name="Reconnect now").wait_for()
    assert page.locator(".link-dot.down, .link-dot.connecting").count() == 1

    with run_server(tmp_path, port):
        # The page's own retry timer may get there first and take the button away with the
        # banner; either way the page must come back.
        with contextlib.suppress(PlaywrightTimeoutError):
            page.get_by_role("button", name="Reconnect now").click(timeout=5_000)
        page.locator(".banner").wait_for(state="detached", timeout=30_000)
        wait_turn(page)
        assert page.url.endswith(f"/r/{code}")
        assert page.locator(".seat-plate.mine").get_by_text("Comeback").count() == 1
        assert hand_cards(page) == before
        assert act(page) == "play"


def _solo_through(new_page: Any, route: Any, name: str) -> Any:
    """A solo game whose sockets go through `route`, played up to this seat's first card
    (a play waits until the card has left the hand). Returns the page."""
    page = new_page()
    page.route_web_socket(re.compile(r"/ws/"), route)
    start_solo(page, name=name, mode="individual", target=500, bots="basic")
    done = ""
    for _ in range(4):
        wait_turn(page)
        done = act(page)
        if done == "play":
            break
    assert done == "play"
    return page


def test_a_move_cut_off_by_a_room_move_is_played_after_the_reconnect(new_page: Any) -> None:
    """The room moves (4012) just as a card is clicked: the move never reached the room. The
    page reconnects and, the room standing where it was and the card still legal, sends it
    again: the card is played without a second click."""
    cut: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            move = json.loads(message) if isinstance(message, str) else {}
            if not cut and move.get("type") == "play":
                cut.append(move)  # the room never sees it
                server.close()
                ws.close(code=4012, reason="the room moved: reconnect")
                return
            server.send(message)

        ws.on_message(to_server)

    page = _solo_through(new_page, route, "Mover")
    assert len(cut) == 1
    assert cut[0]["card"] not in hand_cards(page)
    assert len(hand_cards(page)) == 12
    page.locator(".banner").wait_for(state="detached")


def test_a_move_that_reached_the_room_is_not_sent_twice(new_page: Any) -> None:
    """The link drops right after a card is sent, before the answer: the room played it.
    After the reconnect the room has moved on (the next seq), so the page does not send the
    card again (it would be refused: the card is no longer in the hand)."""
    dropped: list[dict[str, Any]] = []
    errors: list[str] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            server.send(message)
            move = json.loads(message) if isinstance(message, str) else {}
            if not dropped and move.get("type") == "play":
                dropped.append(move)
                ws.close(code=1012, reason="restarting")

        def to_page(message: str | bytes) -> None:
            answer = json.loads(message) if isinstance(message, str) else {}
            # (The old socket, still open on the server's side, is told it was replaced.)
            if answer.get("type") == "error" and answer.get("code") != "replaced":
                errors.append(message)
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    page = _solo_through(new_page, route, "Once")
    assert len(dropped) == 1
    page.locator(".banner").wait_for(state="detached")
    wait_turn(page)  # the bots played on: it is this seat's turn again, in the next trick
    assert len(hand_cards(page)) == 12
    assert dropped[0]["card"] not in hand_cards(page)
    assert errors == []
