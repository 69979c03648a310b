"""Helpers the test directories share: a free port, a quick player, and waiting for a
server process to answer."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any


def free_port() -> int:
    """A port nobody listens on now (a server started next may take it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def choose(view: dict[str, Any]) -> dict[str, Any]:
    """A quick player: looks when it may, bids 3 (2 in partnership), plays the first card."""
    legal = view["legal"]
    if legal[0]["type"] == "look":
        return {"type": "look"}
    want = 2 if view["mode"] == "partnership" else 3
    if {"type": "bid", "bid": want} in legal:
        return {"type": "bid", "bid": want}
    return dict(legal[0])


def wait_until_up(
    url: str,
    proc: subprocess.Popen[bytes],
    log: Path,
    *,
    path: str = "/readyz",
    name: str = "server",
    timeout: float = 60,
) -> None:
    """Return once `url + path` answers 200; raise, with the end of the process's `log`,
    when the process exits first or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited early:\n{log.read_text()[-4000:]}")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{url}{path}", timeout=1) as response,
        ):
            if response.status == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"{name} did not come up:\n{log.read_text()[-4000:]}")
