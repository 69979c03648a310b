"""An optional account, in real Chromium (issue 56): a guest with a finished game creates an
account with a password; a second browser context signs in and sees the same history and
registers a passkey with Chromium's virtual authenticator; a third context (given that
authenticator's credential) signs in with the passkey; a live game of the account shows
"Return to your game" on the second context's home page, and the button opens the
player's own seat there. The pages are on http://localhost (WebAuthn takes no IP address
as its relying party)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from test_e2e_players import axe_violations, overflow
from test_e2e_stats import stat_rows
from websockets.sync.client import connect

from support import choose
from wire import receive

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"


def finish_solo(server: str, credential: str) -> None:
    """A solo game of the guest (its credential) played to the end over the API."""
    import httpx

    made = httpx.post(
        f"{server}/api/solo",
        json={"name": "Acme", "mode": "individual", "target": 50},
        headers={"X-Spades-Player": credential},
    ).json()
    held: dict[str, Any] | None = None
    asked = None  # the seq of the state our last action answered
    with connect(f"{server.replace('http', 'ws', 1)}/ws/{made['code']}", max_size=None) as ws:
        ws.send(json.dumps({"type": "hello", "token": made["token"]}))
        while True:
            message = json.loads(ws.recv(timeout=30))
            if message["type"] not in ("state", "event"):
                continue
            held = receive(held, message)
            view = held["view"]
            if view is None:
                continue
            if view["phase"] == "over":
                return
            if view["legal"] and held["seq"] != asked:
                asked = held["seq"]
                ws.send(json.dumps(choose(view)))


def virtual_authenticator(page: Any) -> tuple[Any, str]:
    """Chromium's virtual authenticator for `page` (a platform one that verifies its user
    and keeps discoverable credentials): the CDP session and the authenticator's id."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    options = {
        "protocol": "ctap2",
        "transport": "internal",
        "hasResidentKey": True,
        "hasUserVerification": True,
        "isUserVerified": True,
        "automaticPresenceSimulation": True,
    }
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})
    return cdp, made["authenticatorId"]


def test_an_account_on_three_browsers(new_page: Any, server: str) -> None:
    local = server.replace("127.0.0.1", "localhost")
    first = new_page(base_url=local)
    first.goto("/")
    first.get_by_role("heading", name="Your account").wait_for()
    first.wait_for_function("!!localStorage.getItem('spades.player')")
    guest = first.evaluate("JSON.parse(localStorage.getItem('spades.player'))")
    finish_solo(server, f"{guest['id']}:{guest['secret']}")
    assert axe_violations(first) == [] and overflow(first) == []

    # The guest creates an account: the same player, signed in by a cookie from now on.
    form = first.get_by_role("form", name="Create an account")
    form.get_by_label("Username").fill("acme_e2e")
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Create account").click()
    first.get_by_text("Signed in as").wait_for()
    assert first.locator(".signed-in strong").inner_text() == "acme_e2e"
    assert first.evaluate("localStorage.getItem('spades.player')") is None
    assert "spades_session" not in first.evaluate("document.cookie")  # HttpOnly
    assert axe_violations(first) == [] and overflow(first) == []

    # A second browser signs in and sees the same finished game.
    second = new_page(base_url=local)
    second.goto("/")
    form = second.get_by_role("form", name="Sign in")
    form.get_by_label("Username").fill("ACME_E2E")
    form.get_by_label("Password").fill("not the password")
    form.get_by_role("button", name="Sign in", exact=True).click()
    second.get_by_role("alert").wait_for()
    assert "wrong username or password" in second.get_by_role("alert").inner_text().lower()
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    second.get_by_text("Signed in as").wait_for()
    second.get_by_role("link", name="Your finished games").click()
    second.get_by_role("heading", name="Your finished games").wait_for()
    assert second.get_by_role("link", name=re.compile(r"^Review game")).count() == 1
    assert stat_rows(second)["Games"] == "1"  # and the guest's statistics came along

    # A passkey registered there; a third browser, holding it, signs in with it alone.
    cdp, authenticator = virtual_authenticator(second)
    second.goto("/")
    second.get_by_role("button", name="Add a passkey").click()
    second.locator("#account [role=status]", has_text="Passkey added").wait_for()
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    assert len(held["credentials"]) == 1
    third = new_page(base_url=local)
    cdp3, authenticator3 = virtual_authenticator(third)
    cdp3.send(
        "WebAuthn.addCredential",
        {"authenticatorId": authenticator3, "credential": held["credentials"][0]},
    )
    third.goto("/")
    third.get_by_role("button", name="Sign in with a passkey").click()
    third.get_by_text("Signed in as").wait_for()
    assert third.locator(".signed-in strong").inner_text() == "acme_e2e"

    # A live game started on the first browser: the second one's home page offers it.
    csrf = next(c["value"] for c in first.context.cookies() if c["name"] == "spades_csrf")
    made = first.request.post(
        "/api/solo",
        data={"name": "Acme", "mode": "individual", "target": 500},
        headers={"X-Spades-CSRF": csrf},
    ).json()
    second.goto("/")
    back = second.get_by_role("link", name="Return to your game")
    back.wait_for()
    back.click()
    second.wait_for_url(re.compile(f"/r/{made['code']}$"))
    second.locator(".table-screen").wait_for()
    assert second.evaluate(f"localStorage.getItem('spades.token.{made['code']}')")
