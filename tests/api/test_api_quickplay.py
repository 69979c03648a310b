"""Quick play over a real uvicorn on SQLite, one process (the queue in its memory), the time
a manual clock: four players queued are seated together in one rated room, each told their
seat once; two far-apart ratings meet only once the window has widened; a player alone is
given bots after the wait they chose (unrated); leaving, expiry, and every refusal."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_helpers import Server, make_settings, running_server
from pydantic import ValidationError

from spades.rooms import ManualClock

HEADER = "X-Spades-Player"
POLLS = 2000  # a guard against a hang, not a timing assertion


@pytest.fixture
async def server(tmp_path: Path, clock: ManualClock) -> AsyncIterator[Server]:
    async with running_server(tmp_path, clock=clock, quickplay_expire=60.0) as s:
        yield s


async def new_player(server: Server, name: str) -> dict[str, str]:
    response = await server.post("/api/players", {"name": name})
    assert response.status_code == 201, response.text
    made: dict[str, str] = response.json()
    return made


def auth(player: dict[str, str]) -> dict[str, str]:
    return {HEADER: player["credential"]}


async def queue(server: Server, player: dict[str, str], **body: Any) -> Any:
    return await server.http.post(
        "/api/quickplay", json={"mode": "partnership", "target": 200, **body}, headers=auth(player)
    )


async def poll(server: Server, player: dict[str, str]) -> dict[str, Any]:
    response = await server.http.get("/api/quickplay", headers=auth(player))
    assert response.status_code == 200, response.text
    state: dict[str, Any] = response.json()
    return state


async def seat_of(server: Server, player: dict[str, str]) -> dict[str, Any]:
    """Poll (as the client does) until the player's seat is handed over."""
    for _ in range(POLLS):
        state = await poll(server, player)
        if state["status"] == "matched":
            return state
        assert state["status"] in ("waiting", "seating")
        await asyncio.sleep(0.005)
    raise AssertionError("never seated")


def quickplay(server: Server) -> Any:
    return server.app.state.services.quickplay


async def test_four_players_are_seated_together_in_a_rated_room(server: Server) -> None:
    players = [await new_player(server, name) for name in ("Ann", "Bob", "Cy", "Di")]
    first = await queue(server, players[0], bots_after=None)
    assert first.status_code == 200, first.text
    state = first.json()
    assert state["status"] == "waiting" and state["mode"] == "partnership"
    assert state["target"] == 200 and state["waiting"] == 1 and state["waited"] == 0
    assert state["bots_in"] is None and state["poll_seconds"] > 0
    for player in players[1:]:
        assert (await queue(server, player)).status_code == 200
    seats = [await seat_of(server, p) for p in players]
    assert {s["code"] for s in seats} == {seats[0]["code"]}
    assert sorted(s["seat"] for s in seats) == [0, 1, 2, 3]
    assert all(s["rated"] for s in seats)
    metrics = (await server.get("/metrics")).text  # (a table of people: timed)
    assert "spades_quickplay_seat_wait_seconds_count 1.0" in metrics
    # The answer lost (a network error, the page reloaded): the next poll hands the seat again.
    assert await poll(server, players[0]) == seats[0]
    code = seats[0]["code"]
    room = (await server.get(f"/api/rooms/{code}")).json()
    assert room["settings"]["rated"] is True and room["settings"]["public"] is False
    assert room["status"] == "playing" and room["settings"]["target"] == 200
    assert [s["kind"] for s in room["seats"]] == ["human"] * 4
    stored = await server.app.state.store.get_room(code)
    by_seat = {s["seat"]: p["id"] for s, p in zip(seats, players, strict=True)}
    assert {s.seat: s.player_id for s in stored.seats} == by_seat
    # Each token is its seat's.
    client = await server.client(code, seats[2]["token"])
    assert client.state["room"]["you"] == seats[2]["seat"]
    await client.close()
    # Seated in a rated game being played: queueing again is refused, naming the room.
    refused = await queue(server, players[1])
    assert refused.status_code == 409 and refused.json()["code"] == "in_rated_game"
    assert code in refused.json()["detail"]


async def test_far_apart_ratings_meet_once_the_window_has_widened(
    server: Server, clock: ManualClock
) -> None:
    players = [await new_player(server, name) for name in ("Ann", "Bob", "Cy", "Di")]
    ratings = dict(zip((p["id"] for p in players), (1500.0, 1510.0, 1520.0, 1900.0), strict=True))

    async def lookup(player_id: str, mode: str) -> float:
        return ratings[player_id]

    quickplay(server).rating = lookup
    for player in players:
        assert (await queue(server, player)).status_code == 200
    # 400 points apart: the window is 100 at once and 10 more per second waited (30 s).
    assert await quickplay(server).match_all() == 0
    clock.advance(29)
    assert await quickplay(server).match_all() == 0
    waiting = [await poll(server, p) for p in players]
    assert {w["status"] for w in waiting} == {"waiting"}
    assert {w["waited"] for w in waiting} == {29.0} and {w["waiting"] for w in waiting} == {4}
    clock.advance(1)
    seats = [await seat_of(server, p) for p in players]
    assert len({s["code"] for s in seats}) == 1 and all(s["rated"] for s in seats)
    # Partners: the best with the lowest rated, against the two between.
    seat = {p["id"]: s["seat"] for p, s in zip(players, seats, strict=True)}
    assert (seat[players[3]["id"]] - seat[players[0]["id"]]) % 2 == 0


async def test_a_player_alone_gets_bots_after_the_wait_chosen(
    server: Server, clock: ManualClock
) -> None:
    alone = await new_player(server, "Ann")
    patient = await new_player(server, "Bob")
    state = (await queue(server, alone, mode="individual", target=300, bots_after=10)).json()
    assert state["bots_in"] == 10 and state["mode"] == "individual"
    other = (await queue(server, patient, mode="individual", target=300)).json()
    assert other["waiting"] == 2 and other["waiting_mode"] == 2
    clock.advance(9)
    assert (await poll(server, alone))["bots_in"] == 1
    clock.advance(1)
    seat = await seat_of(server, alone)
    assert seat["rated"] is False
    room = (await server.get(f"/api/rooms/{seat['code']}")).json()
    assert room["settings"]["rated"] is False and room["settings"]["mode"] == "individual"
    assert [s["kind"] for s in room["seats"]].count("bot") == 3
    assert room["status"] == "playing"
    metrics = (await server.get("/metrics")).text  # (bots: no wait for people to time)
    assert "spades_quickplay_seat_wait_seconds_count 0.0" in metrics
    # The other player, who chose to wait for people, still waits.
    assert (await poll(server, patient))["status"] == "waiting"


async def test_leaving_expiry_and_refusals(server: Server, clock: ManualClock) -> None:
    ann = await new_player(server, "Ann")
    bob = await new_player(server, "Bob")
    nameless = (await server.post("/api/players", {})).json()
    no_credential = await server.post("/api/quickplay", {"mode": "partnership", "target": 200})
    assert no_credential.status_code == 401
    assert no_credential.json()["code"] == "player_required"
    bad_mode = await queue(server, ann, mode="triples")
    assert bad_mode.status_code == 422 and bad_mode.json()["code"] == "unknown_mode"
    bad_target = await queue(server, ann, target=123)
    assert bad_target.status_code == 422 and bad_target.json()["code"] == "not_a_preset"
    assert (await queue(server, nameless)).status_code == 422  # no name anywhere
    assert (await queue(server, nameless, name="Cy")).status_code == 200
    assert (await queue(server, ann)).status_code == 200
    twice = await queue(server, ann, mode="individual")
    assert twice.status_code == 409 and twice.json()["code"] == "already_queued"
    left = await server.http.delete("/api/quickplay", headers=auth(ann))
    assert left.status_code == 200 and left.json()["status"] == "left"
    gone = await server.http.delete("/api/quickplay", headers=auth(ann))
    assert gone.status_code == 404 and gone.json()["code"] == "not_queued"
    assert (await poll(server, nameless))["waiting"] == 1  # Ann left, Cy waits
    # Bob queues, then stops polling (his page was closed): dropped after the expiry.
    assert (await queue(server, bob)).status_code == 200
    clock.advance(45)
    assert (await poll(server, nameless))["waiting"] == 2  # (Cy polls; Bob does not)
    clock.advance(20)
    await quickplay(server).match_all()
    expired = await server.http.get("/api/quickplay", headers=auth(bob))
    assert expired.status_code == 404 and expired.json()["code"] == "not_queued"
    assert (await poll(server, nameless))["waiting"] == 1
    assert (await queue(server, bob)).status_code == 200  # and may queue again


async def test_a_rated_room_is_the_hosts_choice_and_bots_at_the_start_unrate_it(
    server: Server,
) -> None:
    made = await server.create(rated=True)
    lobby = (await server.get("/api/rooms")).json()["rooms"]
    assert [r["settings"]["rated"] for r in lobby if r["code"] == made["code"]] == [True]
    host = await server.client(made["code"], made["token"])
    await host.send(type="settings", settings={"rated": False}, id="unrate")
    refused = await host.until(lambda m: m["type"] == "error")
    assert refused["code"] == "bad_request" and refused["ref"] == "unrate"
    await host.send(type="start", id="go")  # three empty seats: bots fill them
    await host.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    room = (await server.get(f"/api/rooms/{made['code']}")).json()
    assert room["settings"]["rated"] is False
    stored = await server.app.state.store.get_room(made["code"])
    assert stored.room.settings["rated"] is False
    await host.close()
    solo = await server.create("/api/solo", rated=True)
    assert (await server.get(f"/api/rooms/{solo['code']}")).json()["settings"]["rated"] is False


async def test_a_signed_in_browser_queues_by_its_session(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as browser:
        made = (await browser.post("/api/players", json={"name": "Sid"})).json()
        claimed = await browser.post(
            "/api/account",
            json={"username": "sid", "password": "correct horse battery"},
            headers=auth(made),
        )
        assert claimed.status_code == 201, claimed.text
        body = {"mode": "partnership", "target": 200}
        no_csrf = await browser.post("/api/quickplay", json=body)  # a change: CSRF needed
        assert no_csrf.status_code == 403 and no_csrf.json()["code"] == "csrf_failed"
        csrf = {"X-Spades-CSRF": browser.cookies["spades_csrf"]}
        queued = await browser.post("/api/quickplay", json=body, headers=csrf)
        assert queued.status_code == 200 and queued.json()["status"] == "waiting"
        assert (await browser.get("/api/quickplay")).json()["status"] == "waiting"
        left = await browser.delete("/api/quickplay", headers=csrf)
        assert left.json()["status"] == "left"


async def test_a_poll_that_waits_is_answered_when_the_seat_is_made(
    tmp_path: Path, clock: ManualClock
) -> None:
    """`?wait=`: the poll answers the moment the table is made, not at its next turn; and
    `wait_seconds` says how long a poll may wait (half the expiry)."""
    async with running_server(tmp_path, clock=clock, quickplay_expire=1200.0) as server:
        await _waits(server, clock)


async def _waits(server: Server, clock: ManualClock) -> None:
    ann = await new_player(server, "Ann")
    state = (await queue(server, ann, mode="individual", bots_after=10)).json()
    assert state["wait_seconds"] == 600.0  # half of this server's expiry (no timeout here)
    service = quickplay(server)
    waiting = asyncio.create_task(
        server.http.get("/api/quickplay", params={"wait": 600}, headers=auth(ann), timeout=None)
    )
    for _ in range(POLLS):  # until the poll listens
        if ann["id"] in service._polls:
            break
        await asyncio.sleep(0.005)
    assert ann["id"] in service._polls and not waiting.done()
    clock.advance(10)  # bots now: the matcher makes the table
    await service.match_all()
    answer = await waiting
    assert answer.status_code == 200 and answer.json()["status"] == "matched"
    assert ann["id"] not in service._polls
    # A poll asking to wait longer than the server allows waits as long as it allows.
    bob = await new_player(server, "Bob")
    assert (await queue(server, bob)).status_code == 200
    bad = await server.http.get("/api/quickplay", params={"wait": -1}, headers=auth(bob))
    assert bad.status_code == 422


async def test_a_seat_whose_answer_was_lost_is_handed_on_the_next_request(
    server: Server, clock: ManualClock
) -> None:
    """Matched while their poll was lost (or their page reloaded): the player's next request,
    a poll or pressing Play now again, hands them the same seat."""
    ann, bob = await new_player(server, "Ann"), await new_player(server, "Bob")
    assert (await queue(server, ann, bots_after=5)).status_code == 200
    assert (await queue(server, bob, bots_after=5)).status_code == 200
    clock.advance(5)
    service = quickplay(server)
    assert await service.match_all() == 2  # two tables, made while nobody polled
    for _ in range(POLLS):
        if service.tables == 2:
            break
        await asyncio.sleep(0.01)
    again = await queue(server, ann, bots_after=5)  # the page reloaded: Play now again
    assert again.status_code == 200 and again.json()["status"] == "matched"
    assert await poll(server, ann) == again.json()  # and again, for a while
    seat = await poll(server, bob)
    assert seat["status"] == "matched" and seat["code"] != again.json()["code"]
    left = await server.http.delete("/api/quickplay", headers=auth(bob))  # (Cancel, too late)
    assert left.status_code == 200 and left.json() == seat
    # Once handed, a seat does not hold the player: Play now queues them anew.
    anew = await queue(server, bob, bots_after=5)
    assert anew.status_code == 200 and anew.json()["status"] == "waiting"


async def test_the_targets_quick_play_offers_are_a_setting(tmp_path: Path) -> None:
    for bad in ("", "abc", "200,x", "10", "200,20000"):
        with pytest.raises(ValidationError):
            make_settings(tmp_path, quickplay_targets=bad)
    async with running_server(tmp_path, quickplay_targets="100, 50,100") as server:
        schema = (await server.get("/api/settings")).json()
        assert schema["quickplay"] == {"targets": [50, 100]}
        ann = await new_player(server, "Ann")
        assert (await queue(server, ann, target=50)).status_code == 200
        bob = await new_player(server, "Bob")
        refused = await queue(server, bob, target=200)
        assert refused.status_code == 422 and refused.json()["code"] == "not_a_preset"
        assert "50, 100" in refused.json()["detail"]
