"""Browser tests: a real server process (uvicorn on a free port, temp SQLite, no bot delay)
and Debian's chromium driven by Playwright.

Without /usr/bin/chromium the tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "test-results" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} is missing (apt-get install chromium; .ci/run does it)"
    if _in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log.read_text()[-4000:]}")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{url}/healthz", timeout=1) as response,
        ):
            if response.status == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"server did not become healthy:\n{log.read_text()[-4000:]}")


@contextlib.contextmanager
def run_server(workdir: Path, port: int | None = None) -> Iterator[str]:
    """A real server process (uvicorn) on 127.0.0.1, its SQLite file in `workdir`."""
    port = port or free_port()
    env = {
        **os.environ,
        "SPADES_DATABASE_URL": f"sqlite+aiosqlite:///{workdir / 'e2e.db'}",
        "SPADES_BOT_DELAY": "0",
        "SPADES_BOT_WORKERS": "thread",
        "SPADES_ROOMS_PER_MINUTE": "10000",
        "SPADES_JOINS_PER_MINUTE": "10000",
        "SPADES_MESSAGES_PER_SECOND": "1000",
        "SPADES_MESSAGE_BURST": "1000",
        "SPADES_CLIENT_DIR": str(REPO / "client"),
    }
    log = workdir / f"server-{port}.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "spades.api.app:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--log-level",
                "warning",
            ],
            env=env,
            cwd=workdir,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


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
    """Factory: a page in a fresh browser context (own localStorage), desktop size.

    Browser errors fail the test: an uncaught exception, a console error, or a static file
    that does not load is a bug.
    """
    contexts: list[Any] = []
    errors: list[str] = []

    def make(viewport: dict[str, int] | None = None, base_url: str | None = None) -> Any:
        context = browser.new_context(
            viewport=viewport or DESKTOP,
            base_url=base_url or server,
            reduced_motion="reduce",
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
