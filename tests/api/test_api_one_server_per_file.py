"""A second `spades serve` on the SQLite file a live server uses refuses to start: one
line on stderr, a non-zero exit, the database untouched (issue 58, "Operations"). The
lock goes with the process however it ends: after a `kill -9`, a new server starts at
once (its SQLite writer process working as before), though the killed one's own writer
process may still be running for a moment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from api_helpers import free_socket
from test_api_restart import open_client, start_server, wait_ready

from support import choose


def _port() -> int:
    sock = free_socket()
    port = int(sock.getsockname()[1])
    sock.close()
    return port


def _serve_once(db: Path, port: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SPADES_DATABASE_URL": f"sqlite+aiosqlite:///{db}"}
    return subprocess.run(
        [sys.executable, "-m", "spades.cli", "serve", "--port", str(port)],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _children(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (from any of its threads)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


async def play_moves(port: int, created: dict[str, str], moves: int) -> None:
    """Play until the game is `moves` actions further on (the bots' count too)."""
    client = await open_client(f"ws://127.0.0.1:{port}", created["code"], created["token"])
    state, acted = client.state, -1
    seq = state["seq"]
    while state["seq"] < seq + moves:
        if state["view"]["legal"] and state["seq"] > acted:
            acted = state["seq"]
            await client.send(**choose(state["view"]))
        state = await client.until(lambda m: m["type"] == "state")
    await client.close()


async def test_a_second_server_on_the_same_file_refuses_to_start(tmp_path: Path) -> None:
    db, log = tmp_path / "spades.db", tmp_path / "server.log"
    port = _port()
    url = f"http://127.0.0.1:{port}"
    first = start_server(db, port, log)
    third = None
    try:
        await wait_ready(url, first)
        async with httpx.AsyncClient(base_url=url) as http:
            created = (await http.post("/api/solo", json={"name": "Ann", "target": 50})).json()
        await play_moves(port, created, 3)  # (the SQLite writer starts with the first)
        files = sorted(p.name for p in tmp_path.iterdir())

        second = _serve_once(db, _port())
        assert second.returncode == 3, second.stderr
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1, second.stderr
        assert lines[0].startswith("spades serve: another server is already running on")
        assert str(db) in lines[0] and f"process {first.pid} " in lines[0]
        assert sorted(p.name for p in tmp_path.iterdir()) == files
        assert (tmp_path / "spades.db.lock").read_text() == f"{first.pid}\n"
        async with httpx.AsyncClient(base_url=url) as http:  # the first one serves on
            assert (await http.get("/readyz")).status_code == 200

        writers = _children(first.pid)
        assert writers, "the server runs its SQLite writer process"
        first.send_signal(signal.SIGKILL)
        first.wait()
        # At once: the killed server's writer may not have noticed yet, and holds nothing.
        third = start_server(db, port, log)
        await wait_ready(url, third)
        await play_moves(port, created, 3)  # stored (by the new server's writer) again
        assert _children(third.pid)
    finally:
        for process in (first, third):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(10)
