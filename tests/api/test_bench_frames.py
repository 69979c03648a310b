"""The load generator's own reading of the server's frames (`SeatClient._take_frames`)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _client() -> tuple[Any, list[bytes]]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    load = importlib.import_module("bench.load")
    client = load.SeatClient(None, None, 0, "token", False, "ws://127.0.0.1:1/ws/ABCD")
    got: list[bytes] = []
    client.on_message = got.append
    client._own_frames = True
    return client, got


def _text(payload: bytes) -> bytes:
    size = len(payload)
    if size < 126:
        return bytes([0x81, size]) + payload
    if size < 65_536:
        return bytes([0x81, 126]) + size.to_bytes(2, "big") + payload
    return bytes([0x81, 127]) + size.to_bytes(8, "big") + payload


def test_whole_frames_of_every_length_encoding() -> None:
    client, got = _client()
    messages = [b"a" * 5, b"b" * 300, b"c" * 70_000]
    assert client._take_frames(b"".join(_text(m) for m in messages)) == b""
    assert got == messages


def test_a_frame_cut_anywhere_is_read_once_it_is_whole() -> None:
    messages = [b'{"type":"event"}', b"x" * 200, b"y" * 70_000, b"z"]
    stream = b"".join(_text(m) for m in messages)
    for cut in (1, 2, 3, 5, 17, 150, 1000, len(stream) - 1):
        client, got = _client()
        assert client._take_frames(stream[:cut]) == b""
        assert client._take_frames(stream[cut:]) == b""
        assert got == messages, cut


def test_anything_but_a_whole_text_frame_goes_to_websockets_from_its_boundary() -> None:
    ping = bytes([0x89, 0])
    close = bytes([0x88, 2]) + (4012).to_bytes(2, "big")
    fragment = bytes([0x01, 1]) + b"p"
    for other in (ping, close, fragment):
        client, got = _client()
        rest = _text(b"after")
        assert client._take_frames(_text(b"first") + other + rest) == other + rest
        assert got == [b"first"]
    # A partial frame kept from before is part of what is handed over.
    client, got = _client()
    assert client._take_frames(_text(b"one")[:2]) == b""
    assert client._take_frames(_text(b"one")[2:] + ping) == ping
    assert got == [b"one"]
