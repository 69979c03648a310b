"""Readiness on a port of its own (SPADES_HEALTH_PORT, issue 58): a thread answers what the
event loop last found, so a loop that is busy (late by a second, as a survivor's is after a
peer died) still answers "ready" at once, and HAProxy does not take it out of the pool and
cut its sockets; a loop that has not turned for the stall time is not ready; a draining
process is not ready; a port already taken fails the start."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from api_helpers import running_server

from spades.api.readiness import Readiness
from support import free_port


def ask(port: int, path: str = "/readyz") -> tuple[int, float]:
    """(status, seconds it took), asked from a thread of the caller's (not the loop's)."""
    started = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    return status, time.monotonic() - started


def ask_later(port: int, after: float) -> Callable[[], tuple[int, float]]:
    """Ask from a thread `after` seconds from now; the returned call waits for its answer."""
    answer: list[tuple[int, float]] = []

    def run() -> None:
        time.sleep(after)
        answer.append(ask(port))

    thread = threading.Thread(target=run)
    thread.start()

    def result() -> tuple[int, float]:
        thread.join(10)
        return answer[0]

    return result


async def test_a_busy_loop_is_still_ready_a_hung_one_is_not() -> None:
    verdict = {"ok": True}

    async def check() -> bool:
        return verdict["ok"]

    port = free_port()
    readiness = Readiness(check, stall=1.0)
    readiness.serve("127.0.0.1", port)
    try:
        await asyncio.sleep(0.3)  # the first verdict and beat
        assert (await asyncio.to_thread(ask, port))[0] == 200
        # The loop blocked for 0.7 s (a busy loop: it turns again within the stall time):
        # the thread answers 200 while it is blocked, without waiting for it.
        later = ask_later(port, 0.3)
        time.sleep(0.7)
        status, took = later()
        assert status == 200 and took < 0.3
        await asyncio.sleep(0.3)
        # Blocked past the stall time (a hung loop): 503, still answered at once.
        later = ask_later(port, 1.4)
        time.sleep(1.6)
        status, took = later()
        assert status == 503 and took < 0.3
        await asyncio.sleep(0.3)
        assert (await asyncio.to_thread(ask, port))[0] == 200  # turning again
        verdict["ok"] = False  # draining, Redis out of reach...: what is_ready says
        await asyncio.sleep(0.7)
        assert (await asyncio.to_thread(ask, port))[0] == 503
        assert (await asyncio.to_thread(ask, port, "/healthz"))[0] == 200
        assert (await asyncio.to_thread(ask, port, "/other"))[0] == 404
    finally:
        readiness.stop()


async def test_a_server_answers_readyz_on_its_health_port_and_not_while_draining(
    tmp_path: Path,
) -> None:
    port = free_port()
    async with running_server(tmp_path, health_port=port, health_host="127.0.0.1") as server:
        deadline = time.monotonic() + 10
        while (await asyncio.to_thread(ask, port))[0] != 200:
            assert time.monotonic() < deadline, "the health port never said ready"
            await asyncio.sleep(0.1)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as response:
            assert json.load(response) == {"ready": True}
        manager: Any = server.app.state.services.manager
        manager.draining = True
        await asyncio.sleep(0.7)
        assert (await asyncio.to_thread(ask, port))[0] == 503
        assert (await server.http.get("/readyz")).status_code == 503  # the main port agrees
        manager.draining = False


def test_a_health_port_in_use_fails_the_start(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {
            **os.environ,
            "SPADES_DATABASE_URL": f"sqlite:///{tmp_path / 'spades.db'}",
            "SPADES_HEALTH_PORT": str(port),
        }
        done = subprocess.run(
            [sys.executable, "-m", "spades.cli", "serve", "--port", str(free_port())],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 3, done.stderr
    assert "Address already in use" in done.stderr
