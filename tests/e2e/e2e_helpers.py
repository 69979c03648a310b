"""Page helpers shared by the browser tests: start games from the home page, act on a turn."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from e2e_server import DESKTOP, PHONE

MY_MOVE = ".bid-panel button.bid, .hand .card.legal, .bid-panel [data-action='look']"
TURN_SELECTOR = (
    ".hand-sheet, .game-over, .bid-panel [data-action='look'], "
    ".bid-panel button.bid, .hand .card.legal"
)
SHEET_BUTTON = re.compile(r"^(Continue|See final results)$")


def fill_create_form(
    page: Any,
    *,
    mode: str = "individual",
    target: int | None = None,
    bots: str = "basic",
    deficit: int | None = None,
) -> None:
    form = page.locator("form[data-form='create']")
    label = "Every player for themself" if mode == "individual" else "Partners (2 vs 2)"
    form.get_by_label(label).check()
    if target is not None:
        form.get_by_label("Custom target score").fill(str(target))
    form.get_by_label("Bot level", exact=True).select_option(bots)
    if deficit is not None:
        form.locator("summary", has_text="More rules").click()
        form.get_by_label("Blind nil when behind by").fill(str(deficit))


def fill_solo_choices(
    page: Any,
    *,
    mode: str = "individual",
    target: int | None = None,
    bots: str = "basic",
    turn: int | None = None,
) -> None:
    """Play solo's own choices (mode, target, turn timer, bot level)."""
    solo = page.locator("form[data-form='solo']")
    solo.get_by_label("Individual" if mode == "individual" else "Partners with a bot").check()
    if target is not None:
        preset = solo.locator(f"input[name='solo-target'][value='{target}']")
        if preset.count():
            preset.check()
        else:
            solo.get_by_label("Other solo target").fill(str(target))
    solo.get_by_label("Solo bot level").select_option(bots)
    if turn is not None:
        solo.get_by_label("Solo turn timer").select_option(str(turn))


def start_solo(
    page: Any, *, name: str = "Tester", deficit: int | None = None, **choices: Any
) -> str:
    """From the home page, set Play solo's choices and click it. Returns the room code."""
    page.goto("/")
    page.get_by_label("Your name").fill(name)
    if deficit is not None:
        # Play solo's own rule options, under its own "More rules".
        solo = page.locator("form[data-form='solo']")
        solo.locator("summary", has_text="More rules").click()
        solo.get_by_label("Blind nil when behind by").fill(str(deficit))
    fill_solo_choices(page, **choices)
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    page.locator(".table-screen").wait_for()
    return str(page.url.rsplit("/", 1)[1])


CARD_CODES = "els => els.map(e => e.dataset.card)"


def open_with_token(page: Any, made: dict[str, Any], *, wait_for: str = ".table-screen") -> None:
    """Open the room of a REST answer (`code`, `token`) as its seat: the token where the
    page keeps it, then the room's page (until `wait_for` shows: the table, or `.lobby`)."""
    page.goto("/")
    page.evaluate(
        "([code, token]) => localStorage.setItem(`spades.token.${code}`, token)",
        [made["code"], made["token"]],
    )
    page.goto(f"/r/{made['code']}")
    page.locator(wait_for).wait_for()


def hand_cards(page: Any) -> list[str]:
    return list(page.locator(".hand .card.in-hand").evaluate_all(CARD_CODES))


def trick_cards(page: Any) -> list[str]:
    return list(page.locator(".trick .played .card").evaluate_all(CARD_CODES))


def act(page: Any, *, bid: str | None = None) -> str:
    """Do what the page asks for now. Returns "sheet", "over", "look", "bid", "play" or ""."""
    if page.locator(".hand-sheet").count():
        page.locator(".hand-sheet").get_by_role("button", name=SHEET_BUTTON).click()
        return "sheet"
    if page.locator(".game-over").count():
        return "over"
    if page.locator(".bid-panel [data-action='look']").count():
        page.get_by_role("button", name="Show my cards").click()
        page.locator(".bid-panel [data-action='look']").wait_for(state="detached")
        return "look"
    bids = page.locator(".bid-panel button.bid:not([data-bid='blind nil'])")
    if bids.count():
        wanted = page.get_by_role("button", name=bid, exact=True) if bid else None
        if wanted is None or not wanted.count():
            wanted = bids.nth(min(2, bids.count() - 1))
        wanted.click()
        # Accepted: the bid buttons go away until the next hand.
        page.locator(".bid-panel button.bid").first.wait_for(state="detached")
        return "bid"
    cards = page.locator(".hand .card.legal")
    if cards.count():
        card = cards.first
        code = card.get_attribute("data-card")
        card.click()
        # Once the server has accepted it, that card is no longer a legal play (it left the
        # hand; a new deal may hold the same card, but not as a legal play during bidding).
        # Offline no card is highlighted: that is no answer, so wait for the link too.
        page.wait_for_function(
            "code => !document.querySelector('.table-screen.offline') && "
            "!document.querySelector(`.hand .card.legal[data-card='${code}']`)",
            arg=code,
        )
        return "play"
    return ""


def wait_turn(page: Any, timeout: float = 15_000) -> None:
    page.locator(TURN_SELECTOR).first.wait_for(state="visible", timeout=timeout)


def shoot(page: Any, folder: Path, name: str) -> None:
    """Screenshots of the current screen at desktop and phone size."""
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        page.screenshot(path=str(folder / f"{name}-{label}.png"))
    page.set_viewport_size(DESKTOP)


class LinkSwitch:
    """A page's WebSockets routed through Playwright, so a test can take the link down:
    `drop()` closes the open socket and refuses new ones (1011) until `restore()`."""

    def __init__(self, page: Any) -> None:
        self.sockets: list[Any] = []
        self.down = False
        page.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: Any) -> None:
        if self.down:
            ws.close(code=1011, reason="server away")
            return
        ws.connect_to_server()
        self.sockets.append(ws)

    def drop(self) -> None:
        self.down = True
        self.sockets[-1].close(code=1011, reason="server away")

    def restore(self) -> None:
        self.down = False
