"""Guest players over a real uvicorn, on SQLite and PostgreSQL: made on a first visit, named,
recorded on the seats they take (REST and the socket's `sit`), their live rooms and
finished games, and a private room's record that names its players only to them."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from api_helpers import Server, play_until_over, running_server
from sqlalchemy.engine import make_url
from test_api_postgres import ADMIN_URL, _admin

from ci_env import skip_or_fail

HEADER = "X-Spades-Player"


@pytest.fixture(params=["sqlite", "postgresql"])
async def server(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Server]:
    """A real server on SQLite, or on a throwaway PostgreSQL database (skipped without a
    PostgreSQL server, failed instead under CI=true)."""
    if request.param == "sqlite":
        async with running_server(tmp_path) as s:
            yield s
        return
    try:
        await _admin("SELECT 1")
    except Exception as exc:
        skip_or_fail(f"PostgreSQL unreachable at {make_url(ADMIN_URL)!r}: {exc!r}")
    name = f"spades_api_test_{secrets.token_hex(5)}"
    await _admin(f'CREATE DATABASE "{name}"')
    url = make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    try:
        async with running_server(tmp_path, database_url=url) as s:
            yield s
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def new_player(server: Server, name: str | None = None) -> dict[str, Any]:
    response = await server.post("/api/players", {} if name is None else {"name": name})
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


def auth(player: dict[str, Any]) -> dict[str, str]:
    return {HEADER: player["credential"]}


async def seat_players(server: Server, code: str) -> list[str | None]:
    stored = await server.app.state.store.get_room(code)
    return [s.player_id for s in stored.seats]


async def test_a_guest_is_made_named_and_kept(server: Server) -> None:
    made = await new_player(server, "  Ann Lee ")
    assert made["name"] == "Ann Lee"  # cleaned as a seat's name
    assert made["credential"] == f"{made['id']}:{made['secret']}"
    # The store keeps the secret's hash only.
    row = await server.app.state.store.get_player(made["id"])
    assert row.secret_hash == hashlib.sha256(made["secret"].encode()).hexdigest()
    assert made["secret"] not in repr(row)
    me = await server.http.get("/api/me", headers=auth(made))
    assert me.status_code == 200
    assert me.json() == {
        "id": made["id"],
        "name": "Ann Lee",
        "public": False,
        "username": None,
        "account": False,
        "admin": False,
    }
    renamed = await server.http.patch("/api/me", json={"name": " Bea "}, headers=auth(made))
    assert renamed.status_code == 200 and renamed.json()["name"] == "Bea"
    assert (await server.http.get("/api/me", headers=auth(made))).json()["name"] == "Bea"
    too_long = await server.http.patch("/api/me", json={"name": "x" * 25}, headers=auth(made))
    assert too_long.status_code == 422
    blank = await server.http.patch("/api/me", json={"name": "   "}, headers=auth(made))
    assert blank.status_code == 422
    assert (await server.http.get("/api/me", headers=auth(made))).json()["name"] == "Bea"
    # A guest made without a name has none until it picks one.
    nameless = await new_player(server)
    assert nameless["name"] is None and nameless["id"] != made["id"]


async def test_a_wrong_or_stolen_credential_is_refused_and_changes_nothing(
    server: Server,
) -> None:
    ann = await new_player(server, "Ann")
    bob = await new_player(server, "Bob")
    wrong_secret = f"{ann['id']}:{bob['secret']}"  # someone else's secret
    unknown = f"nobody123:{ann['secret']}"
    answers = []
    for credential in (wrong_secret, unknown):
        response = await server.http.patch(
            "/api/me", json={"name": "Mallory"}, headers={HEADER: credential}
        )
        assert response.status_code == 401
        answers.append(response.json())
    # An unknown player and a wrong secret get the same answer.
    assert answers[0] == answers[1] and answers[0]["code"] == "bad_player"
    for credential in ("no-colon", f"{ann['id']}:", "bad id!:x", "x" * 200):
        response = await server.http.get("/api/me", headers={HEADER: credential})
        assert response.status_code == 401 and response.json()["code"] == "bad_player"
    assert (await server.http.get("/api/me")).status_code == 401
    # Creating or joining a room with a bad credential is refused before anything is made.
    before = len(server.manager.rooms)
    response = await server.http.post(
        "/api/rooms", json={"name": "Mallory"}, headers={HEADER: wrong_secret}
    )
    assert response.status_code == 401 and len(server.manager.rooms) == before
    assert (await server.http.get("/api/me", headers=auth(ann))).json()["name"] == "Ann"


async def test_seats_know_their_players_over_rest_and_the_socket(server: Server) -> None:
    ann, bob, cid = [await new_player(server, n) for n in ("Ann", "Bob", "Cid")]
    created = (await server.http.post("/api/rooms", json={"name": "Ann"}, headers=auth(ann))).json()
    code = created["code"]
    joined = await server.http.post(
        f"/api/rooms/{code}/join", json={"name": "Bob"}, headers=auth(bob)
    )
    assert joined.status_code == 200 and joined.json()["seat"] == 1
    old_client = await server.join(code, "Old")  # a client that names no player
    assert old_client["seat"] == 2
    # On the socket: a wrong credential refuses the sit; the right one takes the seat.
    watcher = await server.client(code, None)
    await watcher.send(type="sit", name="Cid", player=f"{cid['id']}:{ann['secret']}", id="bad")
    refused = await watcher.until(lambda m: m["type"] == "error")
    assert refused["code"] == "bad_player" and refused["ref"] == "bad"
    assert await seat_players(server, code) == [ann["id"], bob["id"], None, None]
    await watcher.send(type="sit", name="Cid", player=cid["credential"], id="ok")
    seated = await watcher.until(lambda m: m["type"] == "seated")
    assert seated["seat"] == 3
    assert await seat_players(server, code) == [ann["id"], bob["id"], None, cid["id"]]
    # "Return to your game": the live room, with the seat, for each of its players.
    for who, seat in ((ann, 0), (bob, 1), (cid, 3)):
        mine = (await server.http.get("/api/me/rooms", headers=auth(who))).json()["rooms"]
        assert [(r["code"], r["seat"], r["status"]) for r in mine] == [(code, seat, "open")]
    # Cid stands up: the room is no longer theirs.
    await watcher.send(type="stand", id="up")
    await watcher.until(lambda m: m["type"] == "state" and m["room"]["seats"][3]["kind"] == "empty")
    assert (await server.http.get("/api/me/rooms", headers=auth(cid))).json()["rooms"] == []
    await watcher.close()


async def solo(server: Server, player: dict[str, Any] | None) -> int:
    """A solo game played to its end; its id."""
    headers = auth(player) if player else {}
    response = await server.http.post(
        "/api/solo", json={"name": "Ann", "mode": "individual", "target": 50}, headers=headers
    )
    created = response.json()
    client = await server.client(created["code"], created["token"])
    if player is not None:
        mine = (await server.http.get("/api/me/rooms", headers=headers)).json()["rooms"]
        assert [(r["code"], r["status"], r["seat"]) for r in mine] == [
            (created["code"], "playing", 0)
        ]
    final = await play_until_over(client)
    await client.close()
    game_id: int = final["room"]["game_id"]
    return game_id


async def show_games(server: Server, player: dict[str, Any], public: bool = True) -> None:
    response = await server.http.patch("/api/me", json={"public": public}, headers=auth(player))
    assert response.status_code == 200 and response.json()["public"] is public


async def test_finished_games_and_a_private_record(server: Server) -> None:
    ann = await new_player(server, "Ann")
    bob = await new_player(server, "Bob")
    await show_games(server, ann)  # strangers look at Ann's page below
    first, second = [await solo(server, ann) for _ in range(2)]
    assert (await server.http.get("/api/me/rooms", headers=auth(ann))).json()["rooms"] == []
    # Newest first, a page at a time.
    page = (await server.get(f"/api/players/{ann['id']}/games?limit=1")).json()
    assert page["player"] == {"id": ann["id"], "name": "Ann", "public": True}
    assert [g["game_id"] for g in page["games"]] == [second]
    assert page["next_before"] == second
    rest = (await server.get(f"/api/players/{ann['id']}/games?limit=1&before={second}")).json()
    assert [g["game_id"] for g in rest["games"]] == [first] and rest["next_before"] is None
    # A solo room is private: strangers see the seats but no name, nor the room's code.
    game = page["games"][0]
    assert game["room"] is None and game["seat"] == 0 and game["winner"] is not None
    assert [p["name"] for p in game["players"]] == [None] * 4
    own = (
        await server.http.get(f"/api/players/{ann['id']}/games?limit=1", headers=auth(ann))
    ).json()["games"][0]
    assert own["players"][0]["name"] == "Ann"
    # The record of a private game names its players only to those who sat in it.
    for headers, name in (({}, None), (auth(bob), None), (auth(ann), "Ann")):
        record = (await server.http.get(f"/api/games/{second}/record", headers=headers)).json()
        assert record["room"] is None
        assert [p["kind"] for p in record["players"]] == ["human", "bot", "bot", "bot"]
        assert record["players"][0]["name"] == name
        assert all(p["name"] for p in record["players"][1:])  # a bot's name is nobody's
    wrong = {HEADER: f"{ann['id']}:{bob['secret']}"}
    assert (await server.http.get(f"/api/games/{second}/record", headers=wrong)).status_code == 401
    # A game played without a player is nobody's: no name to anyone.
    anonymous = await solo(server, None)
    record = (await server.http.get(f"/api/games/{anonymous}/record", headers=auth(ann))).json()
    assert record["players"][0]["name"] is None
    assert (await server.get("/api/players/nobody/games")).status_code == 404
    assert (await server.get("/api/players/bad%20id/games")).status_code == 404


async def test_a_public_record_still_names_everyone(server: Server) -> None:
    ann = await new_player(server, "Ann")
    await show_games(server, ann)
    created = (
        await server.http.post(
            "/api/rooms",
            json={"name": "Ann", "public": True, "mode": "individual", "target": 50},
            headers=auth(ann),
        )
    ).json()
    client = await server.client(created["code"], created["token"])
    await client.send(type="start", id="go")
    final = await play_until_over(client)
    await client.close()
    record = (await server.get(f"/api/games/{final['room']['game_id']}/record")).json()
    assert record["room"] == created["code"] and record["players"][0]["name"] == "Ann"
    games = (await server.get(f"/api/players/{ann['id']}/games")).json()["games"]
    assert games[0]["room"] == created["code"] and games[0]["players"][0]["name"] == "Ann"


async def test_a_private_players_games_are_theirs_alone(server: Server) -> None:
    ann = await new_player(server, "Ann")
    bob = await new_player(server, "Bob")
    game = await solo(server, ann)
    # A new player is private: to a stranger, with a credential or none, Ann's page answers
    # exactly as a player nobody has.
    assert (await server.http.get("/api/me", headers=auth(ann))).json()["public"] is False
    games = f"/api/players/{ann['id']}/games"
    unknown = await server.get("/api/players/nobody123/games")
    assert unknown.status_code == 404
    for headers in ({}, auth(bob)):
        hidden = await server.http.get(games, headers=headers)
        assert (hidden.status_code, hidden.json()) == (404, unknown.json())
        assert (await server.http.head(games, headers=headers)).status_code == 404
    own = await server.http.get(games, headers=auth(ann))
    assert own.status_code == 200 and [g["game_id"] for g in own.json()["games"]] == [game]
    assert own.json()["player"] == {"id": ann["id"], "name": "Ann", "public": False}
    # A bad value is refused and changes nothing, the name sent with it included.
    for body in (
        {"public": "yes"},
        {"public": 1},
        {"public": "true"},
        {"name": "Zed", "public": "no"},
        {"public": True, "colour": "red"},
        {"public": None},
        {},
    ):
        refused = await server.http.patch("/api/me", json=body, headers=auth(ann))
        assert refused.status_code == 422, body
    me = (await server.http.get("/api/me", headers=auth(ann))).json()
    assert me == {
        "id": ann["id"],
        "name": "Ann",
        "public": False,
        "username": None,
        "account": False,
        "admin": False,
    }
    assert (await server.http.get(games, headers=auth(bob))).status_code == 404
    # Only the player can change it: another's secret is refused, nothing changes.
    wrong = {HEADER: f"{ann['id']}:{bob['secret']}"}
    stolen = await server.http.patch("/api/me", json={"public": True}, headers=wrong)
    assert stolen.status_code == 401
    assert (await server.get(games)).status_code == 404
    # Public: everyone sees the same games Ann sees.
    await show_games(server, ann)
    for headers in ({}, auth(bob)):
        shown = await server.http.get(games, headers=headers)
        assert shown.status_code == 200
        assert [g["game_id"] for g in shown.json()["games"]] == [game]
        assert shown.json()["player"] == {"id": ann["id"], "name": "Ann", "public": True}
    # Private again, with a new name, in one request.
    changed = await server.http.patch(
        "/api/me", json={"public": False, "name": "Annie"}, headers=auth(ann)
    )
    assert changed.json()["name"] == "Annie" and changed.json()["public"] is False
    hidden = await server.get(games)
    assert (hidden.status_code, hidden.json()) == (404, unknown.json())
    # The game's record keeps its own rule (a solo room is private): unchanged by either.
    record = (await server.http.get(f"/api/games/{game}/record", headers=auth(ann))).json()
    assert record["players"][0]["name"] == "Ann"
    assert (await server.get(f"/api/games/{game}/record")).json()["players"][0]["name"] is None


async def test_a_rated_room_gives_a_player_one_seat(server: Server) -> None:
    """Fair play: at a rated table a player cannot take a second seat (and partner
    themself); an unrated room lets a player fill two seats, as friends testing do."""
    ann = await new_player(server, "Ann")
    for rated in (True, False):
        room = await server.create(rated=rated)
        first = await server.http.post(
            f"/api/rooms/{room['code']}/join", json={"name": "Ann", "seat": 1}, headers=auth(ann)
        )
        assert first.status_code == 200, first.text
        second = await server.http.post(
            f"/api/rooms/{room['code']}/join", json={"name": "Ann", "seat": 2}, headers=auth(ann)
        )
        if rated:
            assert second.status_code == 409, second.text
            assert "a rated room gives a player one seat" in second.text
            assert await seat_players(server, room["room_id"]) == [None, ann["id"], None, None]
        else:
            assert second.status_code == 200, second.text
