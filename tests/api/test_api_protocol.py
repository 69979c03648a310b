"""Bad input, tokens, reconnection and abuse over a real WebSocket."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_helpers import ThreadServer, running_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as sync_connect

from spades.api.models import CLIENT_TYPES
from support import choose


async def test_refused_actions_answer_errors_and_change_nothing(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create("/api/solo", mode="partnership", target=200)
        code = created["code"]
        client = await server.client(code, created["token"])
        room = server.manager.rooms[code]
        state = client.state
        while state["view"]["to_act"] != 0:
            state = await client.until(lambda m: m["type"] == "state")
        seq = room.seq
        tries: list[tuple[Any, str]] = [
            ({"type": "play", "card": "AS"}, "wrong_phase"),
            ({"type": "bid", "bid": 14}, "invalid_message"),
            ({"type": "bid", "bid": "lots"}, "invalid_message"),
            ({"type": "start"}, "wrong_status"),
            ({"type": "settings", "settings": {"target": 5}}, "game_in_progress"),
            ({"type": "stand"}, "game_in_progress"),
            ({"type": "set_seat", "seat": 0, "to": "bot"}, "own_seat"),
            ({"type": "teleport"}, "unknown_type"),
            ({"type": "chat", "text": "x" * 1000}, "too_long"),
            ({"type": "chat", "text": "   "}, "empty_text"),
            ({"type": "play_again"}, "wrong_status"),
            ({"type": "bid", "bid": 3, "extra": 1}, "invalid_message"),
            # Wrong JSON types are refused, never converted into a move.
            ({"type": "bid", "bid": True}, "invalid_message"),
            ({"type": "bid", "bid": "5"}, "invalid_message"),
            ({"type": "bid", "bid": 5.0}, "invalid_message"),
            ({"type": "set_seat", "seat": "1", "to": "bot"}, "invalid_message"),
            ("not json at all", "bad_json"),
            ([1, 2, 3], "invalid_message"),
        ]
        for i, (message, code_expected) in enumerate(tries):
            if isinstance(message, dict):
                await client.send(**message, id=i)
            elif isinstance(message, str):
                await client.send_raw(message)
            else:
                await client.send_raw(json.dumps(message))
            error = await client.until(lambda m: m["type"] == "error")
            assert error["code"] == code_expected, (message, error)
            if isinstance(message, dict):
                assert error["ref"] == i
        assert room.seq == seq
        # An id too big to echo is refused (or left out of an error's `ref`), not a crash.
        for huge in (2**63, -(2**63) - 1, 10**40):
            await client.send_raw(json.dumps({"type": "ping", "id": huge}))
            error = await client.until(lambda m: m["type"] == "error")
            assert error["code"] == "invalid_message" and error["ref"] is None
            await client.send_raw(json.dumps({"type": "teleport", "id": huge}))
            error = await client.until(lambda m: m["type"] == "error")
            assert error["code"] == "unknown_type" and error["ref"] is None
        await client.send(type="ping", id=2**63 - 1)
        assert (await client.until(lambda m: m["type"] == "pong"))["ref"] == 2**63 - 1
        # Now a legal bid, then plays that break the rules.
        await client.send(type="bid", bid=2, id="bid")
        await client.until(lambda m: m["type"] == "state" and m["ref"] == "bid")
        state = client.state
        while state["view"]["to_act"] != 0 or state["view"]["phase"] != "playing":
            state = await client.until(lambda m: m["type"] == "state")
        hand = state["view"]["hand"]
        legal = {a["card"] for a in state["view"]["legal"]}
        seq = room.seq
        mine = set(hand)
        not_mine = next(c for c in ("AS", "KS", "QS", "JS", "2C", "3C") if c not in mine)
        await client.send(type="play", card=not_mine, id="x")
        error = await client.until(lambda m: m["type"] == "error")
        assert error["code"] == "card_not_in_hand"
        illegal = [c for c in hand if c not in legal]
        if illegal:
            await client.send(type="play", card=illegal[0], id="y")
            error = await client.until(lambda m: m["type"] == "error")
            assert error["code"] in ("must_follow_suit", "spades_not_broken")
        await client.send(type="bid", bid=3, id="z")
        error = await client.until(lambda m: m["type"] == "error")
        assert error["code"] == "wrong_phase"
        assert room.seq == seq
        await client.close()


async def test_forged_and_stale_tokens_cannot_act(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create(mode="individual", target=100)
        code = created["code"]
        guest = await server.join(code, "Guest")
        host = await server.client(code, created["token"])
        forged = await server.client(code, "A" * 22)
        assert any(m["type"] == "error" and m["code"] == "bad_token" for m in forged.messages)
        assert forged.state["room"]["you"] is None
        await forged.send(type="start", id=1)
        assert (await forged.until(lambda m: m["type"] == "error"))["code"] == "host_only"
        await forged.send(type="stand", id=2)
        assert (await forged.until(lambda m: m["type"] == "error"))["code"] == "not_seated"
        # The host removes the guest: the old token is stale from then on.
        guest_ws = await server.client(code, guest["token"])
        assert guest_ws.state["room"]["you"] == 1
        # A seated connection's hello with a wrong token is refused and changes nothing:
        # the player keeps the seat (and stays connected).
        await guest_ws.send(type="hello", token="B" * 22, id="wrong")
        assert (await guest_ws.until(lambda m: m["type"] == "error"))["code"] == "bad_token"
        await host.send(type="ping", id="p")
        await host.until(lambda m: m["type"] == "pong")
        seats = server.manager.rooms[code].room_dict(None)["seats"]
        assert seats[1]["connected"] and guest_ws.state["room"]["you"] == 1
        await host.send(type="set_seat", seat=1, to="empty", id="kick")
        await guest_ws.until(lambda m: m["type"] == "state" and m["room"]["you"] is None)
        stale = await server.client(code, guest["token"])
        assert any(m["type"] == "error" and m["code"] == "bad_token" for m in stale.messages)
        assert stale.state["room"]["you"] is None
        room = (await server.get(f"/api/rooms/{code}")).json()
        assert room["seats"][1]["kind"] == "empty"
        assert "token" not in json.dumps(room)
        for c in (host, forged, guest_ws, stale):
            await c.close()


async def test_reconnect_mid_trick_and_take_over_from_another_tab(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create("/api/solo", mode="individual", target=100)
        code, token = created["code"], created["token"]
        client = await server.client(code, token)
        state = client.state
        acted = -1
        # Play until a trick is under way and it is our turn in it.
        while True:
            view = state["view"]
            current = view["current_trick"]
            if view["legal"] and current and current["cards"] and view["to_act"] == 0:
                break
            if view["legal"] and state["seq"] > acted:
                acted = state["seq"]
                await client.send(**choose(view))
            state = await client.until(lambda m: m["type"] == "state")
        before = state["view"]
        await client.close()
        back = await server.client(code, token)
        after = back.state["view"]
        assert back.state["room"]["you"] == 0
        assert after["hand"] == before["hand"]
        assert after["current_trick"] == before["current_trick"]
        assert after["legal"] == before["legal"]
        # A second tab with the same token takes the seat over.
        tab = await server.client(code, token)
        replaced = await back.until(lambda m: m["type"] == "error")
        assert replaced["code"] == "replaced"
        with pytest.raises(ConnectionClosed) as closed:
            await back.until(lambda m: False)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
        assert tab.state["room"]["you"] == 0
        await tab.send(**choose(tab.state["view"]), id="go")
        moved = await tab.until(lambda m: m["type"] in ("state", "error") and m["ref"] == "go")
        assert moved["type"] == "state"
        await tab.close()


async def test_abuse_closes_the_connection(tmp_path: Path) -> None:
    # A hello costs 5 of the burst (limits.MESSAGE_COSTS), a ping or an oversize frame 1.
    async with running_server(tmp_path, messages_per_second=2.0, message_burst=10) as server:
        created = await server.create(mode="individual")
        code = created["code"]
        flood = await server.client(code, None)
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(50):
                await flood.send(type="ping")
            await flood.until(lambda m: False)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        big = await server.client(code, None)
        await big.send_raw(json.dumps({"type": "chat", "text": "x" * 5000}))
        error = await big.until(lambda m: m["type"] == "error")
        assert error["code"] == "too_large"
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(3):
                await big.send_raw("y" * 5000)
            await big.until(lambda m: False)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        # The room is fine and other connections still work.
        ok = await server.client(code, None)
        await ok.send(type="ping", id="p")
        assert (await ok.until(lambda m: m["type"] == "pong"))["ref"] == "p"
        await ok.close()


async def test_a_message_to_a_room_stopped_meanwhile_means_reconnect(tmp_path: Path) -> None:
    """A room stopped here while a socket still holds it (handed to another process, its
    lease lost, the server stopping) answers that socket's next message with close 4012
    (reconnect), not with an error the player would read as the room being closed."""
    async with running_server(tmp_path) as server:
        created = await server.create(mode="individual")
        code = created["code"]
        host = await server.client(code, created["token"])
        await server.manager.rooms[code].stop()  # not through drop(): the socket stays open
        await host.send(type="chat", text="anyone?", id="c")
        with pytest.raises(ConnectionClosed) as closed:
            await host.until(lambda m: False)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4012
        assert not [m for m in host.messages if m["type"] == "error"]


async def test_unknown_room_is_refused(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        ws = await connect(f"{server.ws_url}/ws/NOROOM")
        with pytest.raises(ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4004


# --- hypothesis: garbage from a seated guest of a room waiting to start -------------------

# Text with lone UTF-16 surrogates (json.dumps writes them as \ud800 escapes) besides
# ordinary text; numbers JSON cannot hold (NaN, Infinity) or a 64-bit integer cannot.
any_text = st.text(max_size=20) | st.text(
    st.characters(categories=["Cs", "Lu", "Nd"]), min_size=1, max_size=6
)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 2, max_value=10**30)
    | st.floats()
    | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)
# Nesting deeper than any parser's recursion (still under SPADES_MAX_MESSAGE_BYTES).
deep = st.integers(min_value=1, max_value=1900).map(lambda n: "[" * n + "]" * n)
# Everything a guest could do that legitimately changes the room is left out.
GUEST_CHANGES = {"stand", "chat", "hello", "sit", "back"}  # (`back` is answered by a state)
typed = st.builds(
    lambda kind, extra: {**extra, "type": kind},
    st.sampled_from([*sorted(CLIENT_TYPES - GUEST_CHANGES), "nope", "", "STATE", "\ud800"]),
    st.dictionaries(
        st.sampled_from(["id", "seat", "to", "bid", "card", "settings", "token", "text", "x"]),
        json_values,
        max_size=4,
    ),
)
# The cases an attacker found, as frames (hypothesis mixes them with the rest).
NASTY = [
    '{"type": "ping", "id": "\\ud800"}',
    '{"type": "bid", "bid": 1, "id": "\\udfff"}',
    '{"type": "teleport", "id": "x\\ud800"}',
    '{"type": "ping", "id": 1, "\\ud800": 1}',
    '{"type": "ping", "id": NaN}',
    '{"type": "bid", "bid": 1e400, "id": -Infinity}',
    '{"type": "ping", "id": 99999999999999999999999}',
    '{"type": "settings", "settings": {"target": NaN}, "id": 1}',
]
frames = st.lists(
    st.one_of(
        st.sampled_from(NASTY),
        st.text(max_size=200),
        st.binary(max_size=200),
        json_values.map(json.dumps),
        typed.map(json.dumps),
        st.builds(
            lambda kind, nested: f'{{"type": "{kind}", "id": 1, "settings": {nested}}}',
            st.sampled_from(["settings", "bid", "ping", "nope"]),
            deep,
        ),
    ),
    min_size=1,
    max_size=8,
)


@pytest.fixture(scope="module")
def garbage_room(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with ThreadServer(tmp_path_factory.mktemp("garbage")) as server:
        created = httpx.post(f"{server.url}/api/rooms", json={"name": "Host"}).json()
        code = created["code"]
        guest = httpx.post(f"{server.url}/api/rooms/{code}/join", json={"name": "Guest"}).json()
        yield server, code, guest["token"]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batch=frames)
def test_garbage_never_crashes_or_changes_anything(garbage_room: Any, batch: list[Any]) -> None:
    server, code, token = garbage_room
    room = server.app.state.manager.rooms[code]
    with sync_connect(f"{server.ws_url}/ws/{code}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        while json.loads(ws.recv(timeout=30))["type"] != "state":
            pass
        before = (room.room_dict(), room.settings, room.seq, room.status)
        for frame in batch:
            ws.send(frame)
        ws.send(json.dumps({"type": "ping", "id": "end"}))
        replies = []
        while True:
            reply = json.loads(ws.recv(timeout=30))
            if reply["type"] == "pong" and reply["ref"] == "end":
                break
            replies.append(reply)
        # Every frame gets exactly one answer (a guest of a room that has not started
        # has nothing else coming), and the connection stays open.
        assert len(replies) == len(batch), (batch, replies)
        assert all(r["type"] in ("error", "pong") for r in replies), replies
        assert (room.room_dict(), room.settings, room.seq, room.status) == before


async def test_chat_is_plain_text_shared_and_replayed(tmp_path: Path) -> None:
    async with running_server(tmp_path, chat_length=40) as server:
        created = await server.create(mode="individual")
        code = created["code"]
        host = await server.client(code, created["token"])
        watcher = await server.client(code, None)
        await host.send(type="chat", text="  hello <b>all</b>\x07 ", id="c")
        said = await watcher.until(lambda m: m["type"] == "chat")
        assert said["text"] == "hello <b>all</b>" and said["name"] == "Host" and said["seat"] == 0
        await host.until(lambda m: m["type"] == "chat")
        await watcher.send(type="chat", text="hi from the rail")
        await host.until(lambda m: m["type"] == "chat" and m["seat"] is None)
        late = await server.client(code, None)
        first_state = next(i for i, m in enumerate(late.messages) if m["type"] == "state")
        chats = [await late.until(lambda m: m["type"] == "chat") for _ in range(2)]
        assert first_state == 0
        assert [c["text"] for c in chats] == ["hello <b>all</b>", "hi from the rail"]
        for c in (host, watcher, late):
            await c.close()


async def test_lobby_sit_stand_settings_bots_and_start(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create(mode="partnership", target=300)
        code = created["code"]
        host = await server.client(code, created["token"])
        friend = await server.client(code, None)
        await friend.send(type="sit", seat=None, name="Friend", id="sit")
        seated = await friend.until(lambda m: m["type"] == "seated")
        assert seated["seat"] == 1 and seated["ref"] == "sit" and len(seated["token"]) >= 22
        state = await friend.until(lambda m: m["type"] == "state" and m["room"]["you"] == 1)
        assert state["room"]["seats"][1]["name"] == "Friend"
        assert "token" not in json.dumps(host.state)  # nobody else saw the new token
        await host.send(type="settings", settings={"target": 150, "rules": {"nil": False}}, id="s")
        state = await host.until(lambda m: m["type"] == "state" and m["ref"] == "s")
        assert state["room"]["settings"]["target"] == 150
        assert state["room"]["settings"]["rules"]["nil"] is False  # every option is shown
        await friend.send(type="settings", settings={"target": 200}, id="no")
        assert (await friend.until(lambda m: m["type"] == "error"))["code"] == "host_only"
        # null is refused, as the REST API refuses it (leaving a field out keeps it).
        for nulled in ({"target": None}, {"public": None}, {"rules": {"nil": None}}):
            await host.send(type="settings", settings=nulled, id="null")
            error = await host.until(lambda m: m["type"] == "error")
            assert error["code"] == "bad_request" and "null" in error["message"], error
        assert server.manager.rooms[code].settings.target == 150
        await host.send(type="set_seat", seat=2, to="bot", id="b")
        state = await host.until(lambda m: m["type"] == "state" and m["ref"] == "b")
        assert state["room"]["seats"][2]["kind"] == "bot"
        await friend.send(type="stand", id="up")
        state = await friend.until(lambda m: m["type"] == "state" and m["ref"] == "up")
        assert state["room"]["you"] is None and state["room"]["seats"][1]["kind"] == "empty"
        await friend.send(type="sit", seat=3, name="Friend", id="sit3")
        token3 = (await friend.until(lambda m: m["type"] == "seated"))["token"]
        assert token3 != seated["token"]
        await host.send(type="start", id="go")
        state = await host.until(lambda m: m["type"] == "state" and m["ref"] == "go")
        assert state["room"]["status"] == "playing"
        assert [s["kind"] for s in state["room"]["seats"]] == ["human", "bot", "bot", "human"]
        assert state["view"]["rules"]["target"] == 150 and state["view"]["rules"]["nil"] is False
        assert state["view"]["commitment"]
        late = await server.post(f"/api/rooms/{code}/join", {"name": "Late"})
        assert late.status_code == 409
        for c in (host, friend):
            await c.close()
