"""Hostile input (issue 14): REST garbage gets a 4xx naming the field and stores nothing;
lone surrogates on the socket answer an error; limits weigh what a request costs and are
checked before a body is read; invite links ignore the Host header; forwarded headers are
believed only from trusted proxies; security headers; /metrics only for allowed addresses.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_helpers import ThreadServer, client_frame, free_socket, raw_socket, running_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from spades.api.limits import FRAME_COST, MESSAGE_COSTS, TokenBucket, frame_cost, limit_key
from spades.rooms import ManualClock

JSON = {"content-type": "application/json"}


async def stored_rooms(server: Any) -> int:
    return len(await server.manager.store.load_unfinished())


# --- REST garbage: 4xx naming the field, nothing stored -----------------------------------


async def test_rest_garbage_answers_4xx_naming_the_field(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create()
        code = created["code"]
        rooms_before = set(server.manager.rooms)
        seats_before = (await server.get(f"/api/rooms/{code}")).json()["seats"]
        cases = [
            ("/api/rooms", '{"name": "\\ud800"}', "name"),
            ("/api/rooms", '{"name": "x", "mode": "\\udc00"}', "mode"),
            ("/api/solo", '{"name": "a\\ud800b"}', "name"),
            ("/api/rooms", '{"name": 1e400}', "name"),
            ("/api/rooms", '{"name": NaN}', "name"),
            ("/api/rooms", '{"name": "x", "target": 1e400}', "target"),
            ("/api/rooms", '{"name": "x", "target": NaN}', "target"),
            ("/api/rooms", '{"name": "x", "target": -Infinity}', "target"),
            ("/api/rooms", '{"name": "x", "target": 99999999999999999999999}', "target"),
            (f"/api/rooms/{code}/join", '{"name": "\\ud800"}', "name"),
            (f"/api/rooms/{code}/join", '{"name": NaN}', "name"),
            (f"/api/rooms/{code}/join", '{"name": "x", "seat": NaN}', "seat"),
            (f"/api/rooms/{code}/join", '{"name": "x", "seat": 1e400}', "seat"),
            (f"/api/rooms/{code}/join", '{"name": "x", "seat": 99999999999999999999}', "seat"),
            (f"/api/rooms/{code}/join", '{"name": ""}', "name"),
        ]
        for path, body, field in cases:
            response = await server.http.post(path, content=body, headers=JSON)
            assert response.status_code == 422, (body, response.text)
            detail = response.json()["detail"]
            assert any(field in d["loc"] for d in detail), (body, detail)
            assert "input" not in detail[0]  # the input is never quoted back
        record = await server.get("/api/games/99999999999999999999999/record")
        assert record.status_code == 422 and "game_id" in record.json()["detail"][0]["loc"]
        assert (await server.get("/api/games/-1/record")).status_code == 422
        assert (await server.get("/api/games/9223372036854775807/record")).status_code == 404
        # Nothing was stored: no new room, no seat taken.
        assert set(server.manager.rooms) == rooms_before
        assert (await server.get(f"/api/rooms/{code}")).json()["seats"] == seats_before
        assert await stored_rooms(server) == 1


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 2, max_value=10**30)
    | st.floats()
    | st.text(max_size=10)
    | st.text(st.characters(categories=["Cs", "Ll"]), min_size=1, max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)
bodies = st.one_of(
    st.dictionaries(
        st.sampled_from(["name", "mode", "target", "seat", "rules", "spectator", "public"]),
        json_values,
        max_size=4,
    ).map(json.dumps),
    json_values.map(json.dumps),
    st.integers(min_value=1, max_value=3000).map(lambda n: '{"name": ' + "[" * n + "]" * n + "}"),
    st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
)


@pytest.fixture(scope="module")
def rest_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with ThreadServer(tmp_path_factory.mktemp("rest-garbage")) as server:
        created = httpx.post(f"{server.url}/api/rooms", json={"name": "Host"}).json()
        yield server, created["code"]


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=bodies, where=st.sampled_from(["/api/rooms", "/api/solo", "join"]))
def test_rest_garbage_never_answers_5xx(rest_server: Any, body: str, where: str) -> None:
    server, code = rest_server
    path = f"/api/rooms/{code}/join" if where == "join" else where
    response = httpx.post(f"{server.url}{path}", content=body.encode("utf-8", "surrogatepass"))
    assert response.status_code < 500, (body, response.text)
    if response.status_code >= 400:
        assert "detail" in response.json()


# --- WebSocket: lone surrogates -------------------------------------------------------------


async def test_lone_surrogates_on_the_socket_answer_invalid_message(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create()
        client = await server.client(created["code"], created["token"])
        frames = [
            r'{"type":"ping","id":"\ud800"}',
            r'{"type":"bid","bid":3,"id":"\udfff"}',
            r'{"type":"teleport","id":"\ud800"}',
            r'{"type":"\ud800","id":7}',
            r'{"type":"chat","text":"hi \ud800","id":8}',
            r'{"type":"ping","id":9,"\udc00":1}',
        ]
        for frame in frames:
            await client.send_raw(frame)
            error = await client.until(lambda m: m["type"] == "error")
            assert error["code"] == "invalid_message", (frame, error)
            assert error["ref"] in (None, 7, 8, 9)
        # A proper pair (an emoji written as two escapes) is fine.
        await client.send_raw(r'{"type":"ping","id":"\ud83c\udca1"}')
        assert (await client.until(lambda m: m["type"] == "pong"))["ref"] == "\U0001f0a1"
        await client.close()


# --- limits weigh what a message costs ---------------------------------------------------


def test_message_costs_weigh_work_not_count() -> None:
    now = [0.0]
    bucket = TokenBucket(1.0, 30, now=lambda: now[0])
    pings = 0
    while bucket.take(frame_cost("ping", 16)):
        pings += 1
    now[0] += 30.0  # refilled
    hellos = 0
    while bucket.take(frame_cost("hello", 40)):
        hellos += 1
    assert pings >= 4 * hellos >= 4
    assert MESSAGE_COSTS["hello"] > MESSAGE_COSTS["ping"]
    assert MESSAGE_COSTS["hint"] > MESSAGE_COSTS["ping"]
    assert frame_cost(None, 4096) == FRAME_COST + 4  # size counts: one per KiB
    # The dearest message still passes on a full bucket, however small the burst.
    assert TokenBucket(1.0, 1, now=lambda: 0.0).take(frame_cost("hello", 100))


async def test_hello_flood_is_cut_sooner_than_pings(tmp_path: Path) -> None:
    # Next to no refill: what passes is what the burst of 30 buys.
    async with running_server(tmp_path, messages_per_second=0.001, message_burst=30) as server:
        created = await server.create()
        code = created["code"]

        async def answered(kind: str) -> int:
            client = await server.client(code, None)  # its hello spent 5 already
            count = 0
            with pytest.raises(ConnectionClosed) as closed:
                for i in range(40):
                    await client.send(
                        type=kind, id=i, **({"token": None} if kind == "hello" else {})
                    )
                while True:
                    message = await client.recv()
                    if message.get("ref") is not None and message["type"] in ("pong", "state"):
                        count += 1
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
            return count

        pings = await answered("ping")
        hellos = await answered("hello")
        assert pings >= 20 and hellos <= 5, (pings, hellos)


# --- limits before the body; body size; sockets held -----------------------------------


async def test_refused_bodies_count_and_limits_run_before_parsing(tmp_path: Path) -> None:
    async with running_server(tmp_path, rooms_per_minute=2, joins_per_minute=2) as server:
        assert (
            await server.post("/api/rooms", {"name": "x", "mode": "triples"})
        ).status_code == 422
        assert (await server.http.post("/api/rooms", content=b"{", headers=JSON)).status_code == 422
        limited = await server.post("/api/rooms", {"name": "x"})
        assert limited.status_code == 429 and "detail" in limited.json()
        assert limited.headers["retry-after"] == "60"
        assert not server.manager.rooms
        # Joins the same way, even to a room that does not exist.
        for _ in range(2):
            await server.post("/api/rooms/ZZZZZZ/join", {"name": "x"})
        assert (await server.post("/api/rooms/ZZZZZZ/join", {"name": "x"})).status_code == 429


async def test_room_lookups_by_code_are_limited_per_address(tmp_path: Path) -> None:
    """A private room's code is its only key: codes cannot be tried at speed."""
    async with running_server(tmp_path, lookups_per_minute=5) as server:
        code = (await server.create())["code"]
        assert (await server.get(f"/api/rooms/{code}")).status_code == 200
        assert (await server.get(f"/api/rooms/{code}/history")).status_code == 200
        for guess in ("AAAAAA", "BBBBBB", "CCCCCC"):
            assert (await server.get(f"/api/rooms/{guess}")).status_code == 404
        limited = await server.get(f"/api/rooms/{code}")
        assert limited.status_code == 429 and "detail" in limited.json()
        assert (await server.get("/api/rooms")).status_code == 200  # the public list is not


async def test_rest_bodies_are_size_limited_before_parsing(tmp_path: Path) -> None:
    async with running_server(tmp_path, max_body_bytes=2048) as server:
        big = {"name": "x", "junk": "y" * 4000}
        response = await server.post("/api/rooms", big)
        assert response.status_code == 413 and "detail" in response.json()

        # No Content-Length (chunked): counted as it arrives, refused once over.
        host, port = server.url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        chunk = b"1c2\r\n" + b" " * 450 + b"\r\n"
        writer.write(
            b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + chunk * 5 + b"0\r\n\r\n"
        )
        await writer.drain()
        status = await asyncio.wait_for(reader.readline(), 30)
        assert status.split()[1] == b"413", status
        writer.close()
        assert not server.manager.rooms
        assert (await server.post("/api/rooms", {"name": "ok"})).status_code == 200


async def test_sockets_held_per_address_are_capped(tmp_path: Path) -> None:
    async with running_server(tmp_path, sockets_per_address=2) as server:
        code = (await server.create())["code"]
        first = await server.client(code, None)
        second = await server.client(code, None)
        refused = await connect(f"{server.ws_url}/ws/{code}")
        with pytest.raises(ConnectionClosed) as closed:
            await refused.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4029
        await first.close()
        await second.send(type="ping", id="p")  # the server has seen the first one go
        await second.until(lambda m: m["type"] == "pong")
        third = await server.client(code, None)  # a slot is free again
        await third.close()
        await second.close()


async def _closed_by_server(reader: asyncio.StreamReader, within: float) -> bool:
    """Closed unanswered: an end of stream, or a reset (the kernel sends one instead when
    the server closes while bytes the client just sent are still unread)."""
    try:
        return await asyncio.wait_for(reader.read(1024), within) == b""
    except ConnectionResetError:
        return True
    except (TimeoutError, ConnectionError):
        return False


async def test_slow_request_heads_are_closed_and_capped_per_address(tmp_path: Path) -> None:
    """Slowloris: connections that never finish a request head are closed after
    SPADES_REQUEST_HEAD_SECONDS, and one address may hold only so many before they are
    WebSockets; everyone else is served all the while."""
    async with running_server(
        tmp_path, request_head_seconds=1.0, http_connections_per_address=3
    ) as server:
        port = int(server.url.rsplit(":", 1)[1])
        slow = []
        for _ in range(3):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and never the end
            await writer.drain()
            slow.append((reader, writer))
        # A fourth from the same address is closed at once.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await _closed_by_server(reader, 5)
        writer.close()
        # The slow ones are closed when their time is up, still without an answer.
        for reader, writer in slow:
            writer.write(b"X-Dribble: 1\r\n")
            assert await _closed_by_server(reader, 5)
            writer.close()
        # Then the address is served again, and a kept-alive connection's next request
        # gets the same time for its head.
        async with httpx.AsyncClient(base_url=server.url) as http:
            assert (await http.get("/healthz")).status_code == 200
            assert (await http.get("/healthz")).status_code == 200
        # WebSockets are not held to the HTTP cap once upgraded.
        code = (await server.create())["code"]
        clients = [await server.client(code, None) for _ in range(4)]
        for client in clients:
            await client.close()


async def test_slow_request_bodies_are_closed(tmp_path: Path) -> None:
    """A "slow POST": a whole head that announces a body, then the body a byte at a time.
    The connection is closed SPADES_REQUEST_BODY_SECONDS after the head, with nothing made;
    a body that comes in time is served as ever."""
    async with running_server(
        tmp_path, request_head_seconds=5.0, request_body_seconds=1.0
    ) as server:
        port = int(server.url.rsplit(":", 1)[1])
        body = b'{"name": "Slow"}'
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head = (
            b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)
        )
        writer.write(head + body[:1])
        await writer.drain()
        started = asyncio.get_running_loop().time()
        closed = False
        for byte in body[1:6]:  # a byte every 0.4 s: past the second before the end
            await asyncio.sleep(0.4)
            try:
                writer.write(bytes([byte]))
                await writer.drain()
            except ConnectionError:
                closed = True
                break
        closed = closed or await _closed_by_server(reader, 5)
        assert closed and asyncio.get_running_loop().time() - started < 5
        writer.close()
        assert (await server.http.get("/api/rooms")).json()["rooms"] == []
        # A body that comes whole (or just slower than a packet, within the time) is served.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(head + body[:5])
        await writer.drain()
        await asyncio.sleep(0.3)
        writer.write(body[5:])
        answer = await asyncio.wait_for(reader.read(4096), 5)
        assert answer.startswith(b"HTTP/1.1 201") or answer.startswith(b"HTTP/1.1 200"), answer
        writer.close()


async def test_a_request_head_too_large_is_closed(tmp_path: Path) -> None:
    """The HTTP parser has no size limit of its own: a head of 128 MB held the event loop
    for seconds. Past SPADES_MAX_HEAD_BYTES the connection is closed, unanswered."""
    async with running_server(tmp_path) as server:
        port = int(server.url.rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ")
        with contextlib.suppress(ConnectionError):
            for _ in range(64):  # 4 MB, 64 KB at a time
                writer.write(b"a" * 65_536)
                await writer.drain()
        try:  # closed (or reset, as the rest was still coming), never answered
            answer = await asyncio.wait_for(reader.read(1024), 5)
        except ConnectionError:
            answer = b""
        assert answer == b""
        writer.close()
        # An ordinary head of a few kilobytes is served.
        big_but_fine = {"x-fine": "b" * 8_000}
        assert (await server.http.get("/healthz", headers=big_but_fine)).status_code == 200


async def test_a_peer_that_does_not_read_is_not_read_either(tmp_path: Path) -> None:
    """A ping flood from a socket that never reads: each ping (a control frame, outside
    the message rate limit) queued a pong, and the server's memory grew without bound.
    Once the socket's send buffer is full the server stops reading it, so the flooder's
    own writes stall; everyone else is served all the while."""
    async with running_server(tmp_path) as server:
        code = (await server.create())["code"]
        _reader, writer = await raw_socket(server, code)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        ping = client_frame(b"p" * 125, opcode=0x9)
        burst = ping * 1000  # 131 KB
        sent = 0

        async def flood() -> None:
            nonlocal sent
            for _ in range(400):  # 52 MB, if the server read it all
                writer.write(burst)
                await writer.drain()
                sent += len(burst)

        with contextlib.suppress(TimeoutError, ConnectionError):
            await asyncio.wait_for(flood(), 10)
        assert sent < 400 * len(burst), "the server read every ping of a peer that never reads"
        assert (await server.get("/healthz")).status_code == 200
        writer.close()


async def test_text_that_is_not_utf8_closes_with_1007_and_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_server(tmp_path) as server:
        code = (await server.create())["code"]
        reader, writer = await raw_socket(server, code)
        with caplog.at_level(logging.INFO):
            writer.write(client_frame(b"\xff\xfe\xfd"))
            closing = await asyncio.wait_for(reader.read(4), 10)
        assert closing[:2] == b"\x88\x02" and int.from_bytes(closing[2:4], "big") == 1007
        writer.close()
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert (await server.get("/healthz")).status_code == 200


# --- invite links, forwarded headers ------------------------------------------------------


async def test_host_header_cannot_poison_invite_links(tmp_path: Path) -> None:
    evil = {"host": "evil.example"}
    async with running_server(tmp_path) as server:
        created = (await server.http.post("/api/rooms", json={"name": "H"}, headers=evil)).json()
        code = created["code"]
        assert created["invite_url"] == f"/r/{code}"
        room = await server.http.get(f"/api/rooms/{code}", headers=evil)
        assert room.json()["invite_url"] == f"/r/{code}"
        host = await server.client(code, created["token"])
        assert host.state["room"]["invite_url"] == f"/r/{code}"
        lobby = (await server.http.get("/api/rooms", headers=evil)).json()["rooms"]
        assert all("evil" not in r["invite_url"] for r in lobby)
        await host.close()
    async with running_server(tmp_path, public_url="https://spades.example/") as server:
        created = (await server.http.post("/api/rooms", json={"name": "H"}, headers=evil)).json()
        code = created["code"]
        assert created["invite_url"] == f"https://spades.example/r/{code}"
        await server.http.get(f"/api/rooms/{code}", headers=evil)
        host = await server.client(code, created["token"])
        assert host.state["room"]["invite_url"] == f"https://spades.example/r/{code}"
        await host.close()


async def test_forwarded_for_is_believed_only_from_trusted_proxies(tmp_path: Path) -> None:
    def as_from(address: str) -> dict[str, str]:
        return {"x-forwarded-for": address}

    for sub in ("trusted", "other"):
        (tmp_path / sub).mkdir()

    # Not trusted (the default): every request is the peer's, whatever it claims.
    async with running_server(tmp_path, rooms_per_minute=2) as server:
        for address in ("10.0.0.1", "10.0.0.2"):
            response = await server.http.post(
                "/api/rooms", json={"name": "x"}, headers=as_from(address)
            )
            assert response.status_code == 200
        response = await server.http.post(
            "/api/rooms", json={"name": "x"}, headers=as_from("10.0.0.3")
        )
        assert response.status_code == 429
    # Trusted (a proxy on this machine): each forwarded address has a bucket of its own.
    async with running_server(
        tmp_path / "trusted", rooms_per_minute=2, forwarded_allow_ips="127.0.0.1"
    ) as server:
        for address in ("10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.3"):
            response = await server.http.post(
                "/api/rooms", json={"name": "x"}, headers=as_from(address)
            )
            assert response.status_code == 200, address
        response = await server.http.post(
            "/api/rooms", json={"name": "x"}, headers=as_from("10.0.0.1")
        )
        assert response.status_code == 429
        assert (
            await server.post("/api/rooms", {"name": "x"})
        ).status_code == 200  # the proxy's own
    # A proxy elsewhere is not believed.
    async with running_server(
        tmp_path / "other", rooms_per_minute=1, forwarded_allow_ips="192.0.2.7"
    ) as server:
        assert (
            await server.http.post("/api/rooms", json={"name": "x"}, headers=as_from("10.0.0.1"))
        ).status_code == 200
        assert (
            await server.http.post("/api/rooms", json={"name": "x"}, headers=as_from("10.0.0.2"))
        ).status_code == 429


# --- security headers, /metrics -----------------------------------------------------------


async def test_security_headers_on_every_answer(tmp_path: Path) -> None:
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    (client_dir / "index.html").write_text("<!doctype html><title>x</title>")
    (client_dir / "app.js").write_text("export {};")
    async with running_server(tmp_path, client_dir=str(client_dir)) as server:
        for path in ("/", "/r/ABC234", "/app.js", "/api/rooms", "/api/rooms/ZZZZZZ", "/healthz"):
            headers = (await server.get(path)).headers
            csp = headers["content-security-policy"]
            assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp, path
            assert "'unsafe-inline'" not in csp.replace("style-src-attr 'unsafe-inline'", "")
            assert headers["x-content-type-options"] == "nosniff"
            assert headers["referrer-policy"] == "no-referrer"
        refused = await server.post("/api/rooms", {"name": "x", "mode": "nope"})
        assert refused.headers["x-content-type-options"] == "nosniff"
        docs = await server.get("/docs")
        assert (
            docs.status_code == 200
            and "frame-ancestors 'none'" in docs.headers["content-security-policy"]
        )


async def test_metrics_only_for_allowed_addresses(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:  # default: loopback only
        assert (await server.get("/metrics")).status_code == 200
        relayed = await server.http.get("/metrics", headers={"x-forwarded-for": "203.0.113.9"})
        assert relayed.status_code == 403  # came through a proxy we do not trust
    async with running_server(tmp_path, metrics_allow="10.1.0.0/16") as server:
        assert (await server.get("/metrics")).status_code == 403
    async with running_server(
        tmp_path, metrics_allow="10.1.0.0/16", forwarded_allow_ips="127.0.0.1"
    ) as server:
        allowed = await server.http.get("/metrics", headers={"x-forwarded-for": "10.1.2.3"})
        assert allowed.status_code == 200
        other = await server.http.get("/metrics", headers={"x-forwarded-for": "203.0.113.9"})
        assert other.status_code == 403


# --- behind HAProxy (deploy/haproxy.cfg's frontend) ----------------------------------------

REPO = Path(__file__).resolve().parents[2]
SET_FORWARDED_FOR = "http-request set-header X-Forwarded-For %[src]"


def haproxy_binary() -> str:
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        if os.environ.get("CI", "").lower() in ("1", "true"):
            pytest.fail("CI requires haproxy (Debian's package)")
        pytest.skip("haproxy is not installed")
    return found


async def test_behind_haproxy_a_client_cannot_choose_its_address(tmp_path: Path) -> None:
    assert SET_FORWARDED_FOR in (REPO / "deploy" / "haproxy.cfg").read_text()
    haproxy = haproxy_binary()
    async with running_server(
        tmp_path, rooms_per_minute=2, forwarded_allow_ips="127.0.0.1"
    ) as server:
        listen = free_socket()
        port = listen.getsockname()[1]
        listen.close()
        config = tmp_path / "haproxy.cfg"
        config.write_text(
            "defaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n"
            "    timeout server 30s\n"
            f"frontend web\n    bind 127.0.0.1:{port}\n    {SET_FORWARDED_FOR}\n"
            "    default_backend servers\n"
            f"backend servers\n    server s1 {server.url.removeprefix('http://')}\n"
        )
        proc = subprocess.Popen([haproxy, "-db", "-f", str(config)])
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                for _ in range(100):  # until HAProxy listens
                    with contextlib.suppress(httpx.TransportError):
                        if (await http.get("/healthz")).status_code == 200:
                            break
                    await asyncio.sleep(0.05)
                # Forged headers do not reach the server: one client, one bucket.
                codes = [
                    (
                        await http.post(
                            "/api/rooms", json={"name": "x"}, headers={"x-forwarded-for": f}
                        )
                    ).status_code
                    for f in ("10.0.0.1", "10.0.0.2", "10.0.0.3")
                ]
                assert codes == [200, 200, 429]
                assert (
                    await http.get("/metrics")
                ).status_code == 200  # 127.0.0.1, via a trusted proxy
        finally:
            proc.terminate()
            proc.wait(10)


async def test_a_malformed_request_is_logged_at_info_not_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A scanner's garbage is answered 400 and is no operator's concern: uvicorn's warning
    about it goes out at INFO (and not at all when the log level is warning)."""
    uvicorn_log = logging.getLogger("uvicorn.error")  # uvicorn's loggers do not reach root
    async with running_server(tmp_path) as server:
        port = int(server.url.rsplit(":", 1)[1])
        uvicorn_log.addHandler(caplog.handler)
        with caplog.at_level(logging.INFO, logger="uvicorn.error"):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"\x16\x03\x01 not http at all\r\n\r\n")
            answer = await asyncio.wait_for(reader.read(1024), 5)
            writer.close()
        uvicorn_log.removeHandler(caplog.handler)
        assert answer.startswith(b"HTTP/1.1 400")
        lines = [r for r in caplog.records if r.getMessage() == "Invalid HTTP request received."]
        assert lines and all(r.levelno == logging.INFO for r in lines)
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_process_holds_at_most_max_rooms(tmp_path: Path) -> None:
    """Many addresses, each within its per-minute allowance, must not fill the process's
    memory with rooms: past SPADES_MAX_ROOMS a new room is refused with 503 and Retry-After,
    while the rooms already there go on (joined, played) as before."""
    clock = ManualClock(1_000_000.0)
    async with running_server(tmp_path, clock=clock, max_rooms=2) as server:
        kept = (await server.create())["code"]
        solo = await server.post("/api/solo", {"name": "Sol"})
        assert solo.status_code == 200
        for path in ("/api/rooms", "/api/solo"):
            refused = await server.post(path, {"name": "Late"})
            assert refused.status_code == 503, refused.text
            assert refused.headers["retry-after"] == "60" and "full" in refused.json()["detail"]
        assert set(server.manager.rooms) == {kept, solo.json()["code"]}
        assert (await server.post(f"/api/rooms/{kept}/join", {"name": "Bo"})).status_code == 200
        clock.advance(server.settings.abandon_after + 1)  # nobody came: both are abandoned
        assert set(await server.manager.sweep()) == {kept, solo.json()["code"]}
        assert (await server.post("/api/rooms", {"name": "Next"})).status_code == 200


async def test_a_socket_that_never_says_hello_is_closed(tmp_path: Path) -> None:
    """An idle WebSocket holds a descriptor and a place in its address's cap: without a
    `hello` within SPADES_HELLO_SECONDS it is closed with 4008; one that said hello stays."""
    async with running_server(tmp_path, hello_seconds=0.5) as server:
        code = (await server.create())["code"]
        silent = await connect(f"{server.ws_url}/ws/{code}", ping_interval=None)
        player = await server.client(code, None)
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(silent.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4008
        await asyncio.sleep(0.6)
        await player.send(type="ping", id="p")
        assert (await player.until(lambda m: m["type"] == "pong"))["ref"] == "p"
        await player.close()


async def test_head_answers_as_get_without_the_body(tmp_path: Path) -> None:
    """Health checks and link checkers send HEAD: every route answers it as its GET, with
    the same status and headers and no body (FastAPI's routes alone answered 404)."""
    async with running_server(tmp_path) as server:
        code = (await server.create())["code"]
        for path in ("/healthz", "/readyz", "/api/rooms", f"/api/rooms/{code}", "/"):
            got, head = await server.http.get(path), await server.http.head(path)
            assert head.status_code == got.status_code == 200, path
            assert head.content == b"", path
            assert head.headers.get("content-length") == got.headers.get("content-length")
            assert head.headers["content-type"] == got.headers["content-type"], path
        assert (await server.http.head("/api/rooms/ZZZZZZ")).status_code == 404


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::ffff:198.51.100.4", "198.51.100.4"),
        ("fe80::1%eth0", "fe80::/64"),
        ("?", "?"),
    ],
)
def test_limits_count_an_ipv6_client_by_its_64(address: str, key: str) -> None:
    assert limit_key(address) == key


async def test_addresses_of_one_ipv6_network_share_one_allowance(tmp_path: Path) -> None:
    """A client with a /64 has 2^64 addresses: they count as one for the limits."""
    async with running_server(
        tmp_path, rooms_per_minute=2, forwarded_allow_ips="127.0.0.1"
    ) as server:
        for n in (1, 2):
            answer = await server.http.post(
                "/api/rooms", json={"name": "x"}, headers={"x-forwarded-for": f"2001:db8::{n}"}
            )
            assert answer.status_code == 200
        for address in ("2001:db8::3", "2001:db8::abcd:1"):
            answer = await server.http.post(
                "/api/rooms", json={"name": "x"}, headers={"x-forwarded-for": address}
            )
            assert answer.status_code == 429, address
        other = {"x-forwarded-for": "2001:db8:0:1::1"}  # the next /64: another client
        assert (await server.http.post("/api/rooms", json={"name": "x"}, headers=other)).is_success
