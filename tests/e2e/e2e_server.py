"""The real server process and browser settings the browser tests share."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from support import free_port, wait_until_up

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


@contextlib.contextmanager
def run_server(
    workdir: Path, port: int | None = None, extra_env: dict[str, str] | None = None
) -> Iterator[str]:
    """A real server process (uvicorn) on 127.0.0.1, its SQLite file in `workdir`
    (`extra_env`: settings that differ from the shared test server's)."""
    port = port or free_port()
    env = {
        **os.environ,
        "SPADES_DATABASE_URL": f"sqlite+aiosqlite:///{workdir / 'e2e.db'}",
        "SPADES_BOT_DELAY": "0",
        "SPADES_BOT_WORKERS": "thread",
        "SPADES_ROOMS_PER_MINUTE": "10000",
        "SPADES_JOINS_PER_MINUTE": "10000",
        "SPADES_LOOKUPS_PER_MINUTE": "10000",
        "SPADES_SOCKETS_PER_ADDRESS": "0",  # every page of every test is 127.0.0.1
        "SPADES_HTTP_CONNECTIONS_PER_ADDRESS": "0",
        "SPADES_MESSAGES_PER_SECOND": "1000",
        "SPADES_MESSAGE_BURST": "1000",
        "SPADES_CLIENT_DIR": str(REPO / "client"),
        **(extra_env or {}),
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
        wait_until_up(url, proc, log, path="/healthz")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
