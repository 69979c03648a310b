"""A REST body over `SPADES_MAX_BODY_BYTES` is answered 413 with the API's JSON refusal
(issue 58, "Operations"), whatever its size past the HTTP head's own limit (64 KiB) and
however it comes: with a Content-Length, chunked, written at once with its head or in
pieces. Nothing is created; the server goes on serving. A real uvicorn server, as
`spades serve` runs it, over TCP."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from api_helpers import running_server

HEAD = b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"


async def _answer(
    port: int, request: bytes, *, pieces: int = 1
) -> tuple[int, dict[str, str], bytes]:
    """Send `request` (in `pieces` writes) and read the whole answer until the server
    closes: its status, headers and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    step = -(-len(request) // pieces)
    for start in range(0, len(request), step):
        writer.write(request[start : start + step])
        await writer.drain()
    raw = await asyncio.wait_for(reader.read(), 15)  # until the server closes
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def _json_body(size: int) -> bytes:
    return json.dumps({"name": "x", "junk": "y" * size}).encode()


def _chunked(body: bytes, chunk: int = 4096) -> bytes:
    out = b""
    for start in range(0, len(body), chunk):
        part = body[start : start + chunk]
        out += f"{len(part):x}\r\n".encode() + part + b"\r\n"
    return out + b"0\r\n\r\n"


@pytest.mark.parametrize("size", [20_000, 70_000, 300_000])
@pytest.mark.parametrize("pieces", [1, 7])
async def test_a_body_over_the_limit_is_answered_413(
    tmp_path: Path, size: int, pieces: int
) -> None:
    async with running_server(tmp_path) as server:  # the default limit, 16 KiB
        port = int(server.url.rsplit(":", 1)[1])
        body = _json_body(size)
        sized = HEAD + f"Content-Length: {len(body)}\r\n\r\n".encode() + body
        chunked = HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + _chunked(body)
        for request in (sized, chunked):
            status, headers, answer = await _answer(port, request, pieces=pieces)
            assert status == 413, (status, answer[:200])
            assert headers["content-type"] == "application/json"
            assert headers["connection"] == "close"
            assert json.loads(answer) == {"detail": "request bodies are at most 16384 bytes"}
        # The same through an ordinary HTTP client.
        response = await server.http.post(
            "/api/rooms", content=body, headers={"content-type": "application/json"}
        )
        assert response.status_code == 413 and "detail" in response.json()
        assert not server.manager.rooms
        assert (await server.post("/api/rooms", {"name": "ok"})).status_code == 200


async def test_a_client_that_waits_for_100_continue_is_answered_without_sending(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path) as server:
        port = int(server.url.rsplit(":", 1)[1])
        request = HEAD + b"Content-Length: 5000000\r\nExpect: 100-continue\r\n\r\n"
        status, _, answer = await _answer(port, request)
        assert status == 413 and "detail" in json.loads(answer)


async def test_a_large_head_is_still_closed_but_a_large_body_is_not(tmp_path: Path) -> None:
    """The head's limit counts the head alone: a body written with it does not count."""
    async with running_server(tmp_path, max_head_bytes=4096) as server:
        port = int(server.url.rsplit(":", 1)[1])
        body = b'{"name": "x"' + b" " * 10_000 + b"}"  # under the body limit, over the head's
        fine = HEAD + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body
        status, _, answer = await _answer(port, fine)
        assert status == 200, answer[:200]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(HEAD + b"X-Big: " + b"a" * 8000 + b"\r\n\r\n")
        await writer.drain()
        try:
            closed = await asyncio.wait_for(reader.read(1024), 5)
        except ConnectionError:
            closed = b""
        assert closed == b""  # closed unanswered, as before
        writer.close()
