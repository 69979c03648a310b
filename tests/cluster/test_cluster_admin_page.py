"""The admin page in a browser, on two processes behind HAProxy: an administrator signed in
through HAProxy reads a report of a message said in a room owned by one process, bans its
player from the page (his chat, relayed by the other process, is refused at once with why
and until when), lifts the ban and reads the audit log; a player who is not an
administrator sees no admin page and is refused by the routes on every process."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from cluster_support import Cluster, post
from moderation_support import PASSWORD, account, administrator, answer

from ci_env import skip_or_fail
from spades.codes import ErrorCode

CHROMIUM = Path("/usr/bin/chromium")
HEADER = "X-Spades-Player"


@pytest.fixture
def pair(database_url: str, tmp_path: Path) -> Iterator[Cluster]:
    cluster = Cluster(database_url, tmp_path, size=2)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest_asyncio.fixture
async def browser() -> AsyncIterator[Any]:
    if not CHROMIUM.exists():
        skip_or_fail(f"{CHROMIUM} is missing (apt-get install chromium; .ci/run does it)")
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        launched = await pw.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            await launched.close()


async def signed_in(browser: Any, base: str, username: str) -> Any:
    context = await browser.new_context(base_url=base)
    context.set_default_timeout(30_000)
    page = await context.new_page()
    await page.goto("/")
    form = page.get_by_role("form", name="Sign in")
    await form.get_by_label("Username").fill(username)
    await form.get_by_label("Password").fill(PASSWORD)
    await form.get_by_role("button", name="Sign in", exact=True).click()
    await page.get_by_text("Signed in as").wait_for()
    return page


async def test_the_admin_page_through_haproxy(
    pair: Cluster, database_url: str, browser: Any
) -> None:
    one, two = (n.url for n in pair.nodes)
    await (await administrator(one, database_url)).aclose()
    await (await account(two, "notmod", "Pat")).aclose()
    ann = await post(two, "/api/players", {"name": "Ann"})
    bob = await post(one, "/api/players", {"name": "Bob"})
    as_ann, as_bob = {HEADER: ann["credential"]}, {HEADER: bob["credential"]}
    async with httpx.AsyncClient(timeout=30) as http:
        room = (await http.post(f"{one}/api/rooms", json={"name": "Ann"}, headers=as_ann)).json()
        code = room["code"]
        joined = await http.post(
            f"{pair.url}/api/rooms/{code}/join", json={"name": "Bob"}, headers=as_bob
        )
        token = joined.json()["token"]
        # Bob's socket on the process that does not own the room (relayed to its owner).
        owner = pair.owner_of(code)
        assert owner is not None
        relay = next(n.url for n in pair.nodes if n is not owner)
        rude = {"type": "chat", "text": "rude words", "id": "r"}
        said = await answer(relay, code, rude, token=token)
        report = {"room": code, "seat": 1, "message_at": said["at"], "seq": 0, "reason": "insults"}
        made = await http.post(f"{two}/api/reports", json=report, headers=as_ann)
        assert made.status_code == 200, made.text

    page = await signed_in(browser, pair.url, "mod")
    await page.get_by_test_id("admin-link").click()
    item = page.locator(".admin-item", has_text="rude words")
    await item.wait_for()
    assert "insults" in await item.inner_text() and code in await item.inner_text()
    await item.get_by_role("button", name="Mute or ban Bob").click()
    form = page.get_by_role("region", name="Mute or ban")
    await form.get_by_label("Ban from playing and chatting").check()
    await form.get_by_label("Reason (the player reads it)").fill("abuse")
    await form.get_by_role("button", name="Apply").click()
    in_force = page.get_by_role("region", name=re.compile(r"^Mutes and bans in force"))
    ban = in_force.locator("tbody tr", has_text="abuse")
    await ban.wait_for()
    ends = re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", await ban.inner_text())
    assert ends is not None
    chat = {"type": "chat", "text": "still here", "id": "s"}
    refused = await answer(relay, code, chat, token=token)
    assert refused["code"] == ErrorCode.BANNED
    assert f"until {ends.group(0)}: abuse" in refused["message"]
    await page.get_by_role("button", name="Lift the ban of Bob").click()
    await page.get_by_role("region", name="Mutes and bans in force (0)").wait_for()
    assert (await answer(pair.url, code, chat, token=token))["type"] == "chat"
    audit = page.get_by_role("region", name="Audit log")
    await audit.locator("tbody tr", has_text="lifted a ban of").wait_for()
    await page.context.close()

    # Anyone else: no link, no page, and every process refuses the routes.
    page = await signed_in(browser, pair.url, "notmod")
    assert await page.get_by_test_id("admin-link").count() == 0
    await page.goto("/#admin")
    await page.get_by_test_id("admin-refused").wait_for()
    assert await page.locator(".admin-item, .sanction-form").count() == 0
    cookies = {c["name"]: c["value"] for c in await page.context.cookies()}
    async with httpx.AsyncClient(cookies=cookies, timeout=30) as http:
        for base in (one, two, pair.url):
            refused = await http.get(f"{base}/api/admin/reports")
            assert refused.status_code == 403, (base, refused.text)
            assert refused.json()["code"] == ErrorCode.ADMIN_ONLY
            lift = await http.delete(
                f"{base}/api/admin/sanctions/1", headers={"X-Spades-CSRF": cookies["spades_csrf"]}
            )
            assert lift.status_code == 403 and lift.json()["code"] == ErrorCode.ADMIN_ONLY
    await page.context.close()
