"""Browser tests: a real server process (uvicorn on a free port, temp SQLite, no bot delay)
and Debian's chromium driven by Playwright.

Without /usr/bin/chromium the tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_server import CHROMIUM, CHROMIUM_ARGS, DESKTOP, SCREENSHOTS, run_server

from ci_env import skip_or_fail


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} is missing (apt-get install chromium; .ci/run does it)"
    skip_or_fail(reason)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of the real server process shared by the browser tests."""
    _require_chromium()
    with run_server(tmp_path_factory.mktemp("e2e-server")) as url:
        yield url


@pytest.fixture(scope="session")
def browser(server: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


# Console errors a test may cause on purpose: API answers like 404 (checked by the test
# itself) and a socket failing while the server is down.
EXPECTED_CONSOLE = ("Failed to load resource", "WebSocket connection to")


def _console(msg: Any, errors: list[str]) -> None:
    if msg.type == "error" and not msg.text.startswith(EXPECTED_CONSOLE):
        errors.append(f"console: {msg.text}")


@pytest.fixture
def new_page(browser: Any, server: str) -> Iterator[Any]:
    """Factory: a page in a fresh browser context (own localStorage), desktop size unless
    `viewport` says otherwise; other keywords go to the context (is_mobile, has_touch).

    Browser errors fail the test: an uncaught exception, a console error, or a static file
    that does not load is a bug.
    """
    contexts: list[Any] = []
    errors: list[str] = []

    def make(
        viewport: dict[str, int] | None = None, base_url: str | None = None, **options: Any
    ) -> Any:
        context = browser.new_context(
            viewport=viewport or DESKTOP,
            base_url=base_url or server,
            reduced_motion="reduce",
            **options,  # e.g. is_mobile, has_touch for a phone
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: _console(msg, errors))
        page.on(
            "response",
            lambda r: (
                errors.append(f"{r.status} {r.url}")
                if r.status >= 400 and "/api/" not in r.url
                else None
            ),
        )
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"errors in the page: {errors}"


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
