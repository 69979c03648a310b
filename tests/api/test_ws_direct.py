"""`spades serve`'s WebSocket protocol: frames written straight to the transport, and the
parse fast path for game moves, give exactly what the ordinary paths give."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from api_helpers import client_frame, play_until_over, raw_socket, running_server
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from spades.api.models import CLIENT_MESSAGE
from spades.api.ws import parse_frame
from spades.api.wsprotocol import text_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 200_000])
def test_a_direct_frame_is_what_websockets_reads(size: int) -> None:
    payload = ("é" * size).encode()[:size]
    reader = StreamReader()
    reader.feed_data(text_frame(payload))
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        next(parser)
    except StopIteration as done:
        frame = done.value
    else:  # pragma: no cover - the parser wanted more bytes than the frame has
        raise AssertionError("the frame is incomplete")
    assert frame.opcode is Opcode.TEXT and frame.fin
    assert frame.data == payload


async def test_states_and_events_go_out_directly_and_arrive_whole(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create("/api/solo", mode="partnership", target=50)
        client = await server.client(created["code"], created["token"])
        room = server.manager.rooms[created["code"]]
        conns = list(room.audience.connections.values())
        assert conns and all(c.direct is not None for c in conns)
        final = await play_until_over(client)
        assert any(m["type"] == "event" for m in client.wire)
        # What the client pieced together from direct frames is the seat's own view.
        assert final["view"] == room.game.view(0)


GAME_MOVES = [
    '{"type":"play","card":"7C"}',
    '{"type":"play","card":"10H","id":5}',
    '{"type":"bid","bid":3,"id":"x"}',
    '{"type":"bid","bid":0}',
    '{"type":"bid","bid":"nil"}',
    '{"type":"bid","bid":"blind nil","id":null}',
    '{"id":-9223372036854775808,"type":"look"}',
    '{"type":"bid","bid":13}',
    '{"type":"play","card":"ABCD"}',
    '{"type":"play","card":"7C","id":"' + "x" * 64 + '"}',
]
NOT_FAST = [
    '{"type":"play","card":7}',
    '{"type":"bid","bid":14}',
    '{"type":"bid","bid":-1}',
    '{"type":"bid","bid":"nil "}',
    '{"type":"play","card":"ABCDE"}',
    '{"type":"bid","bid":true}',
    '{"type":"bid","bid":"3"}',
    '{"type":"play","card":"7C","bid":1}',
    '{"type":"play","card":"7C","id":1.5}',
    '{"type":"play","card":"7C","id":9223372036854775808}',
    '{"type":"look","x":1}',
    '{"type":"play","card":"\\ud800"}',
    '{"type":"play","card":"7C","id":"' + "x" * 65 + '"}',
]


@pytest.mark.parametrize("text", GAME_MOVES + NOT_FAST)
def test_the_move_fast_path_answers_as_the_models(text: str) -> None:
    message, error = parse_frame(text)
    try:
        expected = CLIENT_MESSAGE.validate_python(json.loads(text)).model_dump()
    except Exception:
        assert message is None and error is not None
        return
    if "\\ud800" in text:
        assert message is None and error["code"] == "invalid_message"
        return
    assert message == expected and list(message) == list(expected)


async def _messages(reader: asyncio.StreamReader, count: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    buffer = StreamReader()
    while len(out) < count:
        buffer.feed_data(await asyncio.wait_for(reader.read(65536), 10))
        while True:
            parser = Frame.parse(buffer.read_exact, mask=False)
            try:
                next(parser)
            except StopIteration as done:
                frame = done.value
                if frame.opcode is Opcode.TEXT:
                    out.append(json.loads(frame.data))
                continue
            break
    return out


@pytest.mark.parametrize("split", ["whole", "split", "ping-first", "fragmented"])
async def test_frames_read_here_or_by_websockets_mean_the_same(tmp_path: Path, split: str) -> None:
    """Several frames in one segment, a frame split over segments, a client ping and a
    fragmented message: each is read, in order, and answered."""
    async with running_server(tmp_path) as server:
        created = await server.create("/api/rooms", name="Host")
        reader, writer = await raw_socket(server, created["code"])
        hello = client_frame(json.dumps({"type": "hello", "token": created["token"]}).encode())
        pings = b"".join(
            client_frame(json.dumps({"type": "ping", "id": n}).encode()) for n in range(3)
        )
        if split == "whole":
            writer.write(hello + pings)
        elif split == "split":
            writer.write(hello + pings[:5])
            await writer.drain()
            await asyncio.sleep(0.05)
            writer.write(pings[5:])
        elif split == "ping-first":
            writer.write(client_frame(b"are you there", opcode=9) + hello + pings)
        else:
            text = json.dumps({"type": "ping", "id": 0}).encode()
            writer.write(
                hello
                + client_frame(text[:5], fin=False)
                + client_frame(text[5:], opcode=0)
                + pings[len(client_frame(json.dumps({"type": "ping", "id": 0}).encode())) :]
            )
        await writer.drain()
        replies = await _messages(reader, 4)
        assert replies[0]["type"] == "state"
        assert [(r["type"], r["ref"]) for r in replies[1:]] == [("pong", n) for n in range(3)]
        writer.close()


async def _frames_for(reader: asyncio.StreamReader, seconds: float) -> list[Frame]:
    """Every frame the server sends within `seconds` (fewer if it closes the socket)."""
    frames: list[Frame] = []
    buffer = StreamReader()
    deadline = asyncio.get_running_loop().time() + seconds
    while (left := deadline - asyncio.get_running_loop().time()) > 0:
        try:
            data = await asyncio.wait_for(reader.read(65536), left)
        except TimeoutError:
            break
        if not data:
            break
        buffer.feed_data(data)
        while True:
            parser = Frame.parse(buffer.read_exact, mask=False)
            try:
                next(parser)
            except StopIteration as done:
                frames.append(done.value)
                continue
            break
    return frames


async def test_keepalive_pings_only_a_silent_socket_and_closes_it_without_a_pong(
    tmp_path: Path,
) -> None:
    """A client that talks needs no ping (its data proves it alive); one that is silent
    for the whole interval is pinged, and closed when no pong comes back."""
    options = {"ws_ping_interval": 0.3, "ws_ping_timeout": 0.3}
    async with running_server(tmp_path, uvicorn_options=options) as server:
        created = await server.create("/api/rooms", name="Host")
        reader, writer = await raw_socket(server, created["code"])
        writer.write(
            client_frame(json.dumps({"type": "hello", "token": created["token"]}).encode())
        )
        chatty: list[Frame] = []
        for n in range(12):  # 1.2 s, four ping intervals, talking every 0.1 s
            writer.write(client_frame(json.dumps({"type": "ping", "id": n}).encode()))
            chatty += await _frames_for(reader, 0.1)
        assert not [f for f in chatty if f.opcode is Opcode.PING]
        assert [json.loads(f.data)["type"] for f in chatty].count("pong") >= 10

        silent = await _frames_for(reader, 2.0)  # now quiet, and never answering
        opcodes = [f.opcode for f in silent]
        assert Opcode.PING in opcodes
        assert opcodes[-1] is Opcode.CLOSE  # the keepalive timed out: closed (1011)
        writer.close()


class _Transport:
    """Only what the reading flags touch (the rest of the protocol is not involved)."""

    def __init__(self) -> None:
        self.reading = False

    def is_closing(self) -> bool:
        return False

    def resume_reading(self) -> None:
        self.reading = True


async def test_draining_the_queue_does_not_read_a_peer_that_does_not_read() -> None:
    """A socket paused for a backlog of messages and, at the same time, for a peer that
    does not read its answers: the app taking the last queued message must not resume
    reading it (its pings would pile pongs up); the peer reading again does."""
    from spades.api.wsprotocol import GameSocketProtocol

    proto = GameSocketProtocol.__new__(GameSocketProtocol)
    proto.queue = asyncio.Queue()
    proto.queue.put_nowait({"type": "websocket.receive", "text": "{}"})
    proto.transport = _Transport()  # type: ignore[assignment]
    proto.read_paused = True
    proto.write_paused = True
    assert (await proto.receive())["text"] == "{}"
    assert not proto.transport.reading  # type: ignore[attr-defined]
    proto.write_paused = False  # as resume_writing finds it: the backlog is gone
    proto.queue.put_nowait({"type": "websocket.receive", "text": "[]"})
    proto.read_paused = True
    await proto.receive()
    assert proto.transport.reading  # type: ignore[attr-defined]


async def test_a_ping_flood_is_closed_while_a_few_pings_are_answered(tmp_path: Path) -> None:
    """Control pings are answered within a budget (a library's keepalive is one every 20 s
    or so); a flood of them, each costing a pong outside the message rate limit, gets the
    socket closed with 1008, and the room goes on for everyone else."""
    from spades.api.wsprotocol import PING_BURST

    async with running_server(tmp_path) as server:
        created = await server.create("/api/rooms", name="Host")
        reader, writer = await raw_socket(server, created["code"])
        hello = json.dumps({"type": "hello", "token": created["token"]}).encode()
        writer.write(client_frame(hello))
        writer.write(b"".join(client_frame(b"p%d" % n, opcode=9) for n in range(3)))
        frames = await _frames_for(reader, 0.5)
        assert [f.data for f in frames if f.opcode is Opcode.PONG] == [b"p0", b"p1", b"p2"]

        writer.write(b"".join(client_frame(b"x", opcode=9) for _ in range(2000)))
        flood = await _frames_for(reader, 2.0)
        pongs = [f for f in flood if f.opcode is Opcode.PONG]
        assert len(pongs) <= PING_BURST
        assert flood[-1].opcode is Opcode.CLOSE
        assert flood[-1].data[:2] == (1008).to_bytes(2, "big")
        writer.close()

        # The server still answers a fresh socket.
        reader, writer = await raw_socket(server, created["code"])
        writer.write(client_frame(hello))
        assert any(f.opcode is Opcode.TEXT for f in await _frames_for(reader, 0.5))
        writer.close()
