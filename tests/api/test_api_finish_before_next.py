"""A game's end is stored before the room's next game starts (issue 58, "Data").

A real server on an SQLite file whose `games` table refuses, for a while, to record a
game's end (a trigger the test adds and drops: the database's own refusal, as a full disk
or a lock would give). The game is over on the table, its `finish_game` waits for a retry:
`play_again` is refused with `storage_error` and no second game is stored. Then `kill -9`,
the trigger is dropped, a new server on the same file finishes the first game from its log
(its record answers, the history lists it), and the next game starts on request.
"""

from __future__ import annotations

import contextlib
import signal
import sqlite3
from pathlib import Path

import httpx
from api_helpers import free_socket, play_until_over
from test_api_restart import open_client, start_server, wait_ready

REFUSE_FINISH = """
CREATE TRIGGER refuse_finish BEFORE UPDATE OF finished_at ON games
WHEN NEW.finished_at IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'the test refuses a game''s end'); END
"""


def sql(db: Path, statement: str) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(db, timeout=10)) as conn, conn:
        return list(conn.execute(statement))


async def test_the_next_game_waits_for_the_last_ones_end(tmp_path: Path) -> None:
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
                    "/api/solo", json={"name": "Ann", "mode": "individual", "target": 50}
                )
            ).json()
        code, token = created["code"], created["token"]
        sql(db, REFUSE_FINISH)
        client = await open_client(ws_url, code, token)
        final = await play_until_over(client)
        game_id = final["room"]["game_id"]
        await client.send(type="play_again", id="again")
        refusal = await client.until(lambda m: m["type"] == "error")
        assert refusal["code"] == "storage_error" and refusal["ref"] == "again"
        assert sql(db, "SELECT id, finished_at FROM games") == [(game_id, None)]
        async with httpx.AsyncClient(base_url=url) as http:
            assert (await http.get(f"/api/games/{game_id}/record")).status_code == 409
        first.send_signal(signal.SIGKILL)
        first.wait()

        sql(db, "DROP TRIGGER refuse_finish")
        second = start_server(db, port, log)
        await wait_ready(url, second)
        back = await open_client(ws_url, code, token)
        assert back.state["room"]["status"] == "finished"
        async with httpx.AsyncClient(base_url=url) as http:
            record = await http.get(f"/api/games/{game_id}/record")
            history = (await http.get(f"/api/rooms/{code}/history")).json()
        assert record.status_code == 200
        assert [g["game_id"] for g in history["games"]] == [game_id]
        await back.send(type="play_again", id="next")
        state = await back.until(lambda m: m["type"] == "state" and m["room"]["game_id"] != game_id)
        assert state["room"]["status"] == "playing"
        await back.close()
        assert [row[0] for row in sql(db, "SELECT id FROM games ORDER BY id")] == [
            game_id,
            state["room"]["game_id"],
        ]
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(10)
