"""`spades serve`'s WebSocket protocol: frames written straight to the transport, and the
parse fast path for game moves, give exactly what the ordinary paths give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from api_helpers import play_until_over, running_server
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
]
NOT_FAST = [
    '{"type":"play","card":7}',
    '{"type":"bid","bid":14}',
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
