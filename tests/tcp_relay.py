"""A TCP relay a test can cut or stall, to take a real service (PostgreSQL, Redis) away
from the code under test without stopping the server other tests share."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any


class Relay:
    """A TCP relay to a service (PostgreSQL, Redis) that can be cut or stalled."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.server: asyncio.Server | None = None
        self.port = 0
        self.stalled = False
        self._links: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        """Refuse new connections and drop the open ones (the server went away)."""
        assert self.server is not None
        self.server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        for task in list(self._links):
            task.cancel()
        await asyncio.gather(*self._links, return_exceptions=True)
        await self.server.wait_closed()
        self.server = None

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))
        links = [
            asyncio.create_task(self._pipe(reader, up_writer)),
            asyncio.create_task(self._pipe(up_reader, writer)),
        ]
        self._links.update(links)
        for link in links:
            link.add_done_callback(self._links.discard)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                while self.stalled:
                    await asyncio.sleep(0.01)
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            self._writers.discard(writer)
            writer.transport.abort()


class RelayThread:
    """A `Relay` on an event loop of its own thread: other processes (a cluster's servers)
    reach it for the whole test, whatever the test's own loop is doing (or whether it has
    one: fixtures are synchronous). Its methods block until the relay has done it."""

    def __init__(self, host: str, port: int) -> None:
        self.relay = Relay(host, port)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.relay.port

    def _run(self, coro: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def start(self) -> None:
        self.thread.start()
        self._run(self.relay.start())

    def cut(self) -> None:
        """Refuse connections and drop the open ones, until `restore()`."""
        self._run(self.relay.cut())

    def restore(self) -> None:
        """Accept connections again, on the same port."""
        self._run(self.relay.start())

    def stall(self, stalled: bool) -> None:
        """Hold (or let go) every byte in flight: the service hangs without refusing."""
        self.loop.call_soon_threadsafe(setattr, self.relay, "stalled", stalled)

    def close(self) -> None:
        if self.relay.server is not None:
            self.cut()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
