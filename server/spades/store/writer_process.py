"""The server's end of a writer process: SQLite's (`sqlite_log.py` is the child's script) or
PostgreSQL's (`pg_log.py`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import marshal
import os
import sys
from typing import Any

from . import sqlite_log
from .protocol import StoreError

log = logging.getLogger(__name__)


class WriterLost(StoreError):
    """The writer process died, or its answer was lost: the batch may or may not be stored.

    Reading the log tells which (`SqlStore` does, row by row).
    """


class WriterRefused(StoreError):
    """The writer process rolled the batch back (nothing of it was stored)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "integrity": a remembered count was behind the log; or "error"


class WriterProcess:
    """Commits batches of appends through a child process.

    One batch at a time (the store's writer task sees to that). The child is started on
    the first batch and again after it was lost; it ends when this end closes its stdin, or
    when the server dies (its stdin then closes too).
    """

    def __init__(
        self, script: str, *args: str, env: dict[str, str] | None = None, name: str = "writer"
    ) -> None:
        self.args = [script, *args]
        self.env = env
        self.name = name
        self._proc: asyncio.subprocess.Process | None = None

    @classmethod
    def sqlite(cls, path: str) -> WriterProcess:
        return cls(sqlite_log.__file__, path, name="SQLite writer")

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    async def _start(self) -> asyncio.subprocess.Process:
        # -I: the standard library only (the script's folder and PYTHON* variables are not
        # looked at), so the child starts in a few milliseconds and shadows nothing.
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            *self.args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=None if self.env is None else {**os.environ, **self.env},
        )
        try:
            ready = await self._answer(proc)
        except BaseException:
            self._kill(proc)
            raise
        if ready != ("ready", None):
            self._kill(proc)
            raise WriterLost(f"the {self.name} did not start: {ready!r}")
        return proc

    async def _answer(self, proc: asyncio.subprocess.Process) -> Any:
        assert proc.stdout is not None
        try:
            head = await proc.stdout.readexactly(sqlite_log.HEADER.size)
            (size,) = sqlite_log.HEADER.unpack(head)
            body = await proc.stdout.readexactly(size)
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            raise WriterLost(f"the {self.name} stopped (exit {proc.returncode})") from exc
        return marshal.loads(body)

    async def commit(
        self, rows: list[sqlite_log.Row], now: str, hands: list[sqlite_log.Hand] | None = None
    ) -> list[sqlite_log.Outcome]:
        """SQLite's: store `rows` (and finished `hands`' rows) in one transaction: the rows'
        outcomes, or WriterRefused (nothing stored) or WriterLost (unknown)."""
        return list(await self.request((now, rows, hands) if hands else (now, rows)))

    async def request(self, payload: Any) -> Any:
        """Send one request and wait for its answer: the value of an ("ok", value) answer;
        WriterRefused for any other kind; WriterLost when the child died meanwhile."""
        # Encoded first: a value marshal cannot carry fails this request alone, and the
        # child, which has seen nothing of it, goes on.
        data = sqlite_log.frame(payload)
        if self._proc is None or self._proc.returncode is not None:
            self._proc = await self._start()
        proc = self._proc
        assert proc.stdin is not None
        try:
            proc.stdin.write(data)
            await proc.stdin.drain()
            kind, value = await self._answer(proc)
        except BaseException as exc:
            # Cancelled or broken in the middle of a request: the child's answer can no
            # longer be matched to it, so this child is done; the next batch starts another.
            self._proc = None
            self._kill(proc)
            if isinstance(exc, (WriterLost, ConnectionError, OSError)):
                # Dead before anyone reads the log: on SQLite what it holds is then final
                # (PostgreSQL's server may still finish a statement the child had sent).
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(10):
                        await proc.wait()
                if isinstance(exc, WriterLost):
                    raise
                raise WriterLost(f"the {self.name} stopped: {exc!r}") from exc
            raise
        if kind != "ok":
            raise WriterRefused(kind, str(value))
        return value

    @staticmethod
    def _kill(proc: asyncio.subprocess.Process) -> None:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()

    async def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            async with asyncio.timeout(10):
                await proc.wait()
        except TimeoutError:
            log.warning("the %s did not stop; killing it", self.name)
            self._kill(proc)
            await proc.wait()
