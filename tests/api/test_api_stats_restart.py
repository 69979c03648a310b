"""Acceptance (issue 56, statistics) across kill -9: a player's statistics equal their
recomputation from the event log (each finished game's record replayed) after games
finished across a `kill -9` of the server, each counted once:

- a game killed mid-hand and finished by the next process;
- a game whose end was in the log when the process died but whose finish was not stored
  (the database as a kill -9 between the last append and the finish leaves it: the finish's
  transaction, statistics included, never committed): the next process replays the log
  and finishes it;
- a game whose finish committed but whose room still says playing (a finish in doubt, run
  again by the next process): counted once all the same.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import httpx
from api_helpers import free_socket, play_until_over
from test_api_restart import open_client, start_server, wait_ready

from spades.engine.stats import COUNTERS, Counts, rates, record_stats
from support import choose

HEADER = "X-Spades-Player"


class Process:
    """One `spades serve` at a time on the same SQLite file and port."""

    def __init__(self, tmp_path: Path) -> None:
        self.db, self.log = tmp_path / "spades.db", tmp_path / "server.log"
        sock = free_socket()
        self.port = sock.getsockname()[1]
        sock.close()
        self.url, self.ws_url = f"http://127.0.0.1:{self.port}", f"ws://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        self.proc = start_server(self.db, self.port, self.log)
        await wait_ready(self.url, self.proc)

    def kill_9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


async def solo(http: httpx.AsyncClient, player: dict[str, Any], mode: str) -> dict[str, Any]:
    body = {"name": "Ann", "mode": mode, "target": 50}
    made: dict[str, Any] = (
        await http.post("/api/solo", json=body, headers={HEADER: player["credential"]})
    ).json()
    return made


async def recomputed(http: httpx.AsyncClient, player: dict[str, Any]) -> list[dict[str, Any]]:
    """The player's statistics from their finished games' records (the event log)."""
    sums = {"partnership": Counts(), "individual": Counts()}
    headers = {HEADER: player["credential"]}
    page = (await http.get(f"/api/players/{player['id']}/games", headers=headers)).json()
    for game in page["games"]:
        record = (await http.get(f"/api/games/{game['game_id']}/record")).json()
        seat = record_stats(record)[game["seat"]]
        sums[seat.mode] = sums[seat.mode] + seat.counts
    return [{"mode": m, **c.to_dict(), **rates(c)} for m, c in sums.items()]


def unfinish(db: Path, game_id: int, room: str, *, counted: bool) -> None:
    """The game's end as not stored, the room as playing (the server is down). Unless
    `counted`, the statistics its finish added are taken back too (the finish's whole
    transaction undone)."""
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(
            "UPDATE games SET finished_at = NULL, winner = NULL, final_scores = NULL WHERE id = ?",
            (game_id,),
        )
        conn.execute("UPDATE rooms SET status = 'playing' WHERE id = ?", (room,))
        if not counted:
            rows = conn.execute(
                f"SELECT player_id, mode, {', '.join(COUNTERS)} FROM game_results "
                "WHERE game_id = ? AND player_id IS NOT NULL",
                (game_id,),
            ).fetchall()
            assert rows, "the game counted for its player"
            for player_id, mode, *values in rows:
                minus = ", ".join(f"{name} = {name} - ?" for name in COUNTERS)
                conn.execute(
                    f"UPDATE player_stats SET {minus} WHERE player_id = ? AND mode = ?",
                    (*values, player_id, mode),
                )
            conn.execute("DELETE FROM game_results WHERE game_id = ?", (game_id,))
    conn.close()


async def finished(http: httpx.AsyncClient, player: dict[str, Any], game_id: int) -> None:
    """Until the game is among the player's finished games: its finish, statistics
    included, is stored (a guard against hangs, not a timing)."""
    path, headers = f"/api/players/{player['id']}/games", {HEADER: player["credential"]}
    for _ in range(600):
        games = (await http.get(path, headers=headers)).json()["games"]
        if game_id in [g["game_id"] for g in games]:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game_id} was never finished")


async def test_games_finished_across_kill_9_count_once(tmp_path: Path) -> None:
    server = Process(tmp_path)
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            ann = (await http.post("/api/players", json={"name": "Ann"})).json()
            # 1. Killed mid-hand, finished by the next process.
            made = await solo(http, ann, "partnership")
            client = await open_client(server.ws_url, made["code"], made["token"])
            state = client.state
            while len(state["view"]["tricks"]) < 2 or not state["view"]["legal"]:
                if state["view"]["legal"]:
                    await client.send(**choose(state["view"]))
                state = await client.until(lambda m: m["type"] == "state")
            server.kill_9()
            await server.start()
            back = await open_client(server.ws_url, made["code"], made["token"])
            assert (await play_until_over(back))["room"]["status"] == "finished"
            await back.close()
            # 2 and 3. Over in the log, the finish not stored (or in doubt) at the kill.
            for counted, mode in ((False, "individual"), (True, "partnership")):
                made = await solo(http, ann, mode)
                client = await open_client(server.ws_url, made["code"], made["token"])
                final = await play_until_over(client)
                await client.close()
                server.kill_9()
                unfinish(server.db, final["room"]["game_id"], made["code"], counted=counted)
                await server.start()
                await finished(http, ann, final["room"]["game_id"])
            mine = (await http.get("/api/me/stats", headers={HEADER: ann["credential"]})).json()
            assert mine["modes"] == await recomputed(http, ann)
            assert [m["games"] for m in mine["modes"]] == [2, 1]
    finally:
        server.stop()
