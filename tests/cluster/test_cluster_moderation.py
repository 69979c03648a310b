"""Moderation across two processes behind HAProxy: an administrator's ban made through one
process refuses a sit (on the room's owner, through a socket relayed to it, and through
HAProxy) and a join on the other at once, since every process reads the sanctions from
PostgreSQL; a room owned by one process is closed by an administrator through the other; a
report, a site-wide mute and a ban hold on every process (chat seated, relayed or watching,
quick chat, quick play's queue), the admin routes refuse everyone else on every process,
and the audit log has all of it; the host's mute holds after the room moves to the other
process (read from PostgreSQL by its new owner)."""

from __future__ import annotations

import contextlib
import json
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cluster_support import Cluster, post, ws_url
from moderation_support import administrator, answer
from websockets.asyncio.client import connect

from spades.codes import ErrorCode

HEADER = "X-Spades-Player"


@pytest.fixture
def pair(database_url: str, tmp_path: Path) -> Iterator[Cluster]:
    cluster = Cluster(database_url, tmp_path, size=2)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def test_a_ban_made_on_one_process_holds_on_the_other(
    pair: Cluster, database_url: str
) -> None:
    one, two = (n.url for n in pair.nodes)
    # An administrator signed in on process 1 (granted by the command line).
    async with contextlib.aclosing(await administrator(one, database_url)) as mod:
        bob = await post(two, "/api/players", {"name": "Bob"})
        room = await post(two, "/api/rooms", {"name": "Host"})
        assert pair.owner_of(room["code"]) is pair.nodes[1]
        ban = {"kind": "ban", "player_id": bob["id"], "reason": "cheating", "minutes": 60}
        banned = await mod.post("/api/admin/sanctions", json=ban)
        assert banned.status_code == 200, banned.text
        # A room owned by process 2, closed by the administrator through process 1.
        other = await post(two, "/api/rooms", {"name": "Other"})
        async with connect(ws_url(two, other["code"]), ping_interval=None) as watcher:
            await watcher.send(json.dumps({"type": "hello", "token": other["token"]}))
            closed = await mod.post(
                f"/api/admin/rooms/{other['code']}/close", json={"reason": "abuse"}
            )
            assert closed.status_code == 204, closed.text
            while (told := json.loads(await watcher.recv()))["type"] != "error":
                pass
            assert told["code"] == ErrorCode.ABANDONED and "abuse" in told["message"]
        audit = (await mod.get("/api/admin/audit")).json()["entries"]
    sit = {"type": "sit", "name": "Bob", "player": bob["credential"], "id": "sit"}
    # On the owner, relayed to it from process 1, and through HAProxy.
    for base in (two, one, pair.url):
        refused = await answer(base, room["code"], sit)
        assert refused["type"] == "error" and refused["code"] == ErrorCode.BANNED, refused
        assert "cheating" in refused["message"] and "until" in refused["message"]
    async with httpx.AsyncClient(base_url=pair.url, timeout=30) as http:
        joined = await http.post(
            f"/api/rooms/{room['code']}/join",
            json={"name": "Bob"},
            headers={"X-Spades-Player": bob["credential"]},
        )
        assert joined.status_code == 403 and joined.json()["code"] == ErrorCode.BANNED
    assert [(e["action"], e["target"]) for e in audit[:2]] == [
        ("close_room", other["code"]),
        ("ban", bob["id"]),
    ]


async def test_report_mute_ban_and_refusals_across_two_processes(
    pair: Cluster, database_url: str
) -> None:
    """A room made on process 2 (it may move to where HAProxy sends its requests); Bob's
    sockets on both processes, so one of them is relayed to the owner. A report made
    through HAProxy is read through process 2; a mute made through process 1 and a ban
    made through process 2 refuse Bob's chat at once everywhere (seated on either process,
    watching through HAProxy), his quick chat and his queueing for quick play, saying why
    and until when; the admin routes refuse him on every process; the audit log has it
    all."""
    one, two = (n.url for n in pair.nodes)
    mod = await administrator(one, database_url)
    ann = await post(two, "/api/players", {"name": "Ann"})
    bob = await post(one, "/api/players", {"name": "Bob"})
    as_ann, as_bob = {HEADER: ann["credential"]}, {HEADER: bob["credential"]}
    async with httpx.AsyncClient(timeout=30) as http:
        made = await http.post(f"{two}/api/rooms", json={"name": "Ann"}, headers=as_ann)
        room = made.json()
        code = room["code"]
        assert pair.owner_of(code) is pair.nodes[1]
        joined = await http.post(
            f"{pair.url}/api/rooms/{code}/join", json={"name": "Bob"}, headers=as_bob
        )
        assert joined.status_code == 200, joined.text
        token = joined.json()["token"]
        chat = {"type": "chat", "text": "rude words", "id": "rude"}
        said = await answer(one, code, chat, token=token)
        assert said["type"] == "chat" and said["seat"] == 1
        report = {"room": code, "seat": 1, "message_at": said["at"], "reason": "insults"}
        reported = await http.post(f"{pair.url}/api/reports", json=report, headers=as_ann)
        assert reported.status_code == 200, reported.text

        # Only administrators, on every process.
        for base in (one, two, pair.url):
            for path in ("/api/admin/reports", "/api/admin/sanctions", "/api/admin/audit"):
                assert (await http.get(base + path)).status_code == 401
                refused = await http.get(base + path, headers=as_bob)
                assert refused.status_code == 403, (base, path)
                assert refused.json()["code"] == ErrorCode.ADMIN_ONLY
            body = {"kind": "ban", "player_id": ann["id"], "reason": "x", "minutes": 5}
            forged = await http.post(f"{base}/api/admin/sanctions", json=body, headers=as_bob)
            assert forged.status_code == 403

    listed = (await mod.get(f"{two}/api/admin/reports")).json()["reports"]
    found = next(r for r in listed if r["id"] == reported.json()["id"])
    assert (found["player_id"], found["reporter_id"], found["room"]) == (bob["id"], ann["id"], code)
    assert (found["message"], found["player_name"]) == ("rude words", "Bob")

    # A site-wide mute through process 1: refused on the relayed seat and when watching.
    mute = {"kind": "mute", "player_id": bob["id"], "reason": "spam", "minutes": 30}
    muted = await mod.post(f"{one}/api/admin/sanctions", json=mute)
    assert muted.status_code == 200, muted.text
    hello = {"type": "chat", "text": "hello?", "id": "hello?", "player": bob["credential"]}
    for base, seat_token in ((one, token), (two, token), (pair.url, None)):
        refused = await answer(base, code, hello, token=seat_token)
        assert refused["type"] == "error" and refused["code"] == ErrorCode.MUTED, (base, refused)
        assert "spam" in refused["message"] and "until" in refused["message"]
    lifted = await mod.delete(f"{two}/api/admin/sanctions/{muted.json()['id']}")
    assert lifted.status_code == 204
    assert (await answer(one, code, hello, token=token))["type"] == "chat"

    # A ban through process 2: no chat (seated, relayed, watching), no quick chat, no queue.
    ban = {"kind": "ban", "player_id": bob["id"], "reason": "cheating", "minutes": 60}
    banned = await mod.post(f"{two}/api/admin/sanctions", json=ban)
    assert banned.status_code == 200, banned.text
    until = f"until {banned.json()['ends_at'][:16].replace('T', ' ')} UTC: cheating"
    quick = {"type": "quick", "phrase": "good_game", "id": "quick"}
    for base, seat_token in ((one, token), (two, token), (pair.url, None)):
        refused = await answer(base, code, {**hello, "text": "hi", "id": "hi"}, token=seat_token)
        assert refused["type"] == "error" and refused["code"] == ErrorCode.BANNED, (base, refused)
        assert until in refused["message"]
        if seat_token is not None:
            refused = await answer(base, code, quick, token=seat_token)
            assert refused["code"] == ErrorCode.BANNED and until in refused["message"]
    queue = {"mode": "partnership", "target": 300}
    async with httpx.AsyncClient(timeout=30) as http:
        for base in (one, two, pair.url):
            queued = await http.post(f"{base}/api/quickplay", json=queue, headers=as_bob)
            assert queued.status_code == 403 and queued.json()["code"] == ErrorCode.BANNED
            assert until in queued.json()["detail"]

    entries = (await mod.get(f"{pair.url}/api/admin/audit")).json()["entries"]
    assert [(e["action"], e["target"], e["actor_name"]) for e in entries[:3]] == [
        ("ban", bob["id"], "Mod (mod)"),
        ("lift_mute", bob["id"], "Mod (mod)"),
        ("mute", bob["id"], "Mod (mod)"),
    ]
    assert entries[0]["detail"]["reason"] == "cheating"
    await mod.aclose()


async def test_the_hosts_mute_holds_after_the_room_moves_to_the_other_process(
    pair: Cluster,
) -> None:
    """The host mutes Bob in a room owned by process 1, which is then killed: process 2
    takes the room, reads the mute from PostgreSQL and refuses Bob's chat, until the host
    unmutes him there."""
    one, two = (n.url for n in pair.nodes)
    bob = await post(one, "/api/players", {"name": "Bob"})
    room = await post(one, "/api/rooms", {"name": "Ann"})
    code = room["code"]
    async with httpx.AsyncClient(timeout=30) as http:
        joined = await http.post(
            f"{one}/api/rooms/{code}/join",
            json={"name": "Bob"},
            headers={HEADER: bob["credential"]},
        )
    assert joined.status_code == 200, joined.text
    token = joined.json()["token"]
    assert pair.owner_of(code) is pair.nodes[0]
    muting = {"type": "mute", "seat": 1, "id": "mute"}
    assert (await answer(one, code, muting, token=room["token"]))["type"] == "muted"
    chat = {"type": "chat", "text": "can you hear me", "id": "can you hear me"}
    assert (await answer(two, code, chat, token=token))["code"] == ErrorCode.MUTED
    pair.nodes[0].signal(signal.SIGKILL)
    pair.nodes[0].wait_exit()
    refused = await answer(two, code, chat, token=token)  # process 2 takes the room
    assert refused["type"] == "error" and refused["code"] == ErrorCode.MUTED, refused
    assert pair.owner_of(code) is pair.nodes[1]
    # Watching does not get round it (the chat names his player).
    watching = {**chat, "player": bob["credential"]}
    assert (await answer(pair.url, code, watching))["code"] == ErrorCode.MUTED
    unmuting = {"type": "mute", "seat": 1, "muted": False, "id": "unmute"}
    assert (await answer(two, code, unmuting, token=room["token"]))["muted"] is False
    assert (await answer(pair.url, code, chat, token=token))["type"] == "chat"
