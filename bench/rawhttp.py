"""A small HTTP/1.1 client on asyncio's streams, for benches that simulate many players from
one process: one kept-alive connection per player, a request written whole, a response read
by its Content-Length (or its chunks). It costs a small fraction of httpx's CPU per request,
so a bench's own client is not what a loaded machine starves first.

It speaks to this server only (JSON bodies, no redirects, no TLS, no compression).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any
from urllib.parse import urlsplit


class Closed(Exception):
    """The connection closed before a whole response came (the request may have been
    handled or not)."""


class Connection:
    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.headers = headers or {}
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def request(
        self, method: str, path: str, body: Any = None, *, retry: bool = True
    ) -> tuple[int, Any]:
        """(status, the JSON body, its text when it is not JSON, or None). A connection the
        server closed under a kept-alive request is opened again and the request sent once
        more when `retry`."""
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        head += [f"{k}: {v}" for k, v in self.headers.items()]
        if body is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
        data = ("\r\n".join(head) + "\r\n\r\n").encode() + payload
        for attempt in range(2):
            try:
                return await self._exchange(data)
            except (Closed, ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if not retry or attempt:
                    raise
        raise AssertionError("unreachable")

    async def _exchange(self, data: bytes) -> tuple[int, Any]:
        if self._streams is None:
            self._streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self._streams
        writer.write(data)
        await writer.drain()
        line = await reader.readline()
        if not line:
            raise Closed("closed before the answer")
        status = int(line.split(b" ", 2)[1])
        length, chunked, close = 0, False, False
        while True:
            header = await reader.readline()
            if header in (b"\r\n", b"\n", b""):
                break
            name, _, value = header.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
            elif name == "connection" and value == "close":
                close = True
        body = await self._chunks(reader) if chunked else await reader.readexactly(length)
        if close:
            await self.close()
        try:
            return status, json.loads(body) if body else None
        except ValueError:  # (not JSON: a plain-text error of the server's)
            return status, body.decode("utf-8", "replace")

    @staticmethod
    async def _chunks(reader: asyncio.StreamReader) -> bytes:
        out = b""
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if not size:
                return out
            out += chunk[:-2]

    async def close(self) -> None:
        if self._streams is not None:
            writer = self._streams[1]
            self._streams = None
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
