"""The connection drops (the server stops): a banner, then back in the same seat and hand."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import act, hand_cards, start_solo, wait_turn
from e2e_server import free_port, run_server
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

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
