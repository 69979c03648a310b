"""Readiness: what `/readyz` answers, on the main port and on a port of its own.

HAProxy's health check decides which processes get sockets, and cuts every socket of a
process it marks down (`on-marked-down shutdown-sessions`). Answered by the event loop,
the check fails whenever the loop is busy: after a peer dies, its players all reconnect to
the survivors, whose loops then run a second or more late; they missed their checks, were
marked down one after the other (the last one too), and every socket of the cluster was
cut again and again (docs/performance.md, "Reconnect storm").

So with `SPADES_HEALTH_PORT` set, a thread of its own answers `/readyz` there. It reads
what the event loop last found (the verdict of `services.is_ready`, and a beat
every quarter second). A busy loop still beats, so a busy process stays in the pool; a
paused process (SIGSTOP, a stalled host) answers nothing and fails the check within
HAProxy's `timeout check`; a loop that has not turned for `STALL_SECONDS` (a hang) answers
503. The thread only reads two attributes: it takes no lock the loop holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

log = logging.getLogger(__name__)

BEAT_SECONDS = 0.25  # how often the loop says it turns
CHECK_SECONDS = 0.5  # how often the loop works the verdict out again
CHECK_TIMEOUT = 5.0  # a verdict that takes longer (the database's ping) is "not ready"
# A loop that has not turned for this long is hung: not ready. A loop merely busy (a burst
# of reconnects after a failover ran it a second late) is not, so this is well above that.
STALL_SECONDS = 5.0


class Readiness:
    """The loop's side (`run`) and the thread's (`answer`, served by `serve`)."""

    def __init__(
        self, check: Callable[[], Awaitable[bool]], *, stall: float = STALL_SECONDS
    ) -> None:
        self.check = check  # the verdict (services.is_ready), on the loop
        self.stall = stall
        self.ok = False
        self.beat = time.monotonic()
        self._server: ThreadingHTTPServer | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def answer(self) -> bool:
        """On the thread: the last verdict, if the loop turned lately."""
        return self.ok and time.monotonic() - self.beat < self.stall

    async def _beat(self) -> None:
        while True:
            self.beat = time.monotonic()
            await asyncio.sleep(BEAT_SECONDS)

    async def _check(self) -> None:
        while True:
            try:
                self.ok = await asyncio.wait_for(self.check(), CHECK_TIMEOUT)
            except asyncio.CancelledError:
                raise
            except Exception:
                self.ok = False
            await asyncio.sleep(CHECK_SECONDS)

    def serve(self, host: str, port: int) -> None:
        """Start the loop's tasks and the thread; the port is taken before this returns
        (a port in use fails the start, with the OSError)."""
        server = _Server((host, port), _Handler)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._beat()), loop.create_task(self._check())]
        server.daemon_threads = True
        server.readiness = self  # type: ignore[attr-defined]
        self._server = server
        threading.Thread(target=server.serve_forever, name="readyz", daemon=True).start()
        log.info("readiness answered on %s:%d by a thread of its own", host, port)

    def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self._server is not None:
            with contextlib.suppress(Exception):
                self._server.shutdown()
                self._server.server_close()
            self._server = None


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A checker that hung up before its answer (HAProxy closes a check's connection
        as soon as it has its verdict, or at `timeout check`) is no error worth a
        traceback in the log; anything else is logged as before."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        readiness: Readiness = self.server.readiness  # type: ignore[attr-defined]
        if path == "/readyz":
            ok = readiness.answer()
        elif path == "/healthz":
            ok = True
        else:
            self.send_error(404)
            return
        body = json.dumps({"ready": ok} if path == "/readyz" else {"status": "ok"}).encode()
        self.send_response(200 if ok else 503)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one check a second per balancer: not worth a log line
