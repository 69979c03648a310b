"""Restart: kill -9 a server mid-hand, start another on the same file, finish the game."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from api_helpers import Client, free_socket, play_until_over
from websockets.asyncio.client import connect

from support import choose


def start_server(db: Path | str, port: int, log: Path) -> subprocess.Popen[bytes]:
    """`spades serve` on `port`; `db` is an SQLite file or a database URL."""
    url = db if isinstance(db, str) else f"sqlite+aiosqlite:///{db}"
    env = {
        **os.environ,
        "SPADES_DATABASE_URL": url,
        "SPADES_BOT_DELAY": "0",
        "SPADES_BOT_WORKERS": "thread",
        "SPADES_MESSAGES_PER_SECOND": "1000",
        "SPADES_MESSAGE_BURST": "1000",
    }
    command = [sys.executable, "-m", "spades.cli", "serve", "--port", str(port)]
    # The child writes to its own copy of the file: this one closes once it has started.
    with log.open("ab") as out:
        return subprocess.Popen(
            [*command, "--log-level", "warning"], env=env, stdout=out, stderr=subprocess.STDOUT
        )


async def wait_ready(url: str, process: subprocess.Popen[bytes]) -> None:
    async with httpx.AsyncClient() as http:
        for _ in range(600):
            assert process.poll() is None, "the server exited"
            try:
                if (await http.get(f"{url}/readyz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)
    raise AssertionError("the server never became ready")


async def open_client(ws_url: str, code: str, token: str) -> Client:
    client = Client(await connect(f"{ws_url}/ws/{code}"))
    await client.send(type="hello", token=token)
    await client.until(lambda m: m["type"] == "state")
    return client


def table(view: dict[str, Any]) -> dict[str, Any]:
    keys = ("hand_number", "dealer", "hand", "bids", "tricks", "current_trick", "scores", "bags")
    return {k: view[k] for k in keys}


async def test_kill_9_and_restart_keeps_every_action(tmp_path: Path) -> None:
    db, log = tmp_path / "spades.db", tmp_path / "server.log"
    sock = free_socket()
    port = sock.getsockname()[1]
    sock.close()
    url, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    first = start_server(db, port, log)
    second = None
    try:
        await wait_ready(url, first)
        async with httpx.AsyncClient(base_url=url) as http:
            created = (
                await http.post(
                    "/api/solo", json={"name": "Ann", "mode": "partnership", "target": 150}
                )
            ).json()
        code, token = created["code"], created["token"]
        client = await open_client(ws_url, code, token)
        state = client.state
        acted = -1
        # Play into the hand: bidding done and a few tricks under way.
        while not (state["view"]["phase"] == "playing" and len(state["view"]["tricks"]) >= 3):
            view = state["view"]
            if view["legal"] and state["seq"] > acted:
                acted = state["seq"]
                await client.send(**choose(view))
            state = await client.until(lambda m: m["type"] == "state")
        # Wait until the table rests on our turn, so nothing is in flight.
        while not (state["view"]["legal"] and state["view"]["to_act"] == 0):
            state = await client.until(lambda m: m["type"] == "state")
        before, seq = state["view"], state["seq"]
        first.send_signal(signal.SIGKILL)
        first.wait()

        second = start_server(db, port, log)
        await wait_ready(url, second)
        back = await open_client(ws_url, code, token)
        after = back.state
        assert after["seq"] == seq
        assert after["room"]["you"] == 0 and after["room"]["status"] == "playing"
        assert table(after["view"]) == table(before)
        assert after["view"]["legal"] == before["legal"]
        final = await play_until_over(back)
        assert final["view"]["winner"] is not None
        await back.close()
        async with httpx.AsyncClient(base_url=url) as http:
            record = (await http.get(f"/api/games/{final['room']['game_id']}/record")).json()
        # Every action from before the crash is in the record, in order.
        tricks_before = [c["card"] for t in before["tricks"] for c in t["cards"]]
        plays = [a["action"]["card"] for a in record["actions"] if a["action"]["type"] == "play"]
        assert plays[: len(tricks_before)] == tricks_before
        assert len(record["actions"]) > seq
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(10)


async def finished_game_survives_kill_9(db: Path | str, log: Path) -> None:
    """A room whose game has just ended comes back, after kill -9, showing that game's final
    state (scores, winner, game over), and Play again starts the next game."""
    sock = free_socket()
    port = sock.getsockname()[1]
    sock.close()
    url, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    first = start_server(db, port, log)
    second = None
    try:
        await wait_ready(url, first)
        async with httpx.AsyncClient(base_url=url) as http:
            created = (
                await http.post(
                    "/api/solo", json={"name": "Ann", "mode": "individual", "target": 60}
                )
            ).json()
        code, token = created["code"], created["token"]
        client = await open_client(ws_url, code, token)
        final = await play_until_over(client)
        await client.close()
        assert final["room"]["status"] == "finished"
        first.send_signal(signal.SIGKILL)
        first.wait()

        second = start_server(db, port, log)
        await wait_ready(url, second)
        back = await open_client(ws_url, code, token)
        after = back.state
        assert after["room"]["status"] == "finished"
        assert after["room"]["game_id"] == final["room"]["game_id"]
        assert after["seq"] == final["seq"]
        view = after["view"]
        assert view is not None and view["phase"] == "over"
        assert view["scores"] == final["view"]["scores"]
        assert view["winner"] == final["view"]["winner"]
        await back.send(type="play_again", id="again")
        again = await back.until(lambda m: m["type"] in ("state", "error") and m["ref"] == "again")
        assert again["type"] == "state", again
        assert again["room"]["status"] == "playing"
        assert again["room"]["game_id"] != final["room"]["game_id"]
        assert again["view"]["phase"] != "over"
        await back.close()
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(10)


async def test_a_finished_game_survives_kill_9(tmp_path: Path) -> None:
    await finished_game_survives_kill_9(tmp_path / "spades.db", tmp_path / "server.log")
