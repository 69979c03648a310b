"""`spades serve --host H --port P`: migrate the database, then run the room server."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import re
import signal
import sys
from types import FrameType
from typing import Any

import uvicorn
from pydantic import ValidationError

from spades.config import Settings, get_settings
from spades.logs import client_faults_at_info, setup_logging

from .httpprotocol import http_protocol
from .wsprotocol import GameSocketProtocol

LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
# What the store can open: SQLite or PostgreSQL, with or without a driver name.
DATABASE_URL = re.compile(r"(sqlite|postgresql)(\+\w+)?://.*", re.DOTALL)


def port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {value}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=port, default=8000, help="port to listen on")
    parser.add_argument("--database-url", default=None, help="overrides SPADES_DATABASE_URL")
    parser.add_argument(
        "--log-level", type=str.lower, choices=LOG_LEVELS, default="info", help="default: info"
    )
    parser.add_argument(
        "--log-format",
        choices=("text", "json"),
        default=None,
        help="overrides SPADES_LOG_FORMAT (json: one object per line)",
    )


# How long a thread waiting for the GIL lets the running one go on (CPython's default: 5 ms).
# The store's append thread lets go of the GIL around each SQLite call and must win it back
# from a busy event loop every time, several times per group commit, so at the default a
# small commit waits several whole intervals on a loaded server. Only a waiting thread makes
# the loop switch, so the shorter interval costs nothing while the loop runs alone.
SWITCH_INTERVAL = 0.001
STARTUP_FAILURE = 3  # uvicorn's exit status when the app failed to start
DRAIN_SECONDS = 10.0  # a drain taking longer than this is cut short (leases then lapse)


def ws_max_size(settings: Settings) -> int:
    # Frames up to this size reach the endpoint, which answers `ErrorCode.TOO_LARGE` for
    # anything over max_message_bytes; bigger ones are cut by the protocol layer itself
    # (`CloseCode.TOO_BIG`).
    return max(65_536, 4 * settings.max_message_bytes)


def uvicorn_config(app: Any, settings: Settings, **options: Any) -> uvicorn.Config:
    """The uvicorn settings of `spades serve` (the tests' in-process servers use them too)."""
    config = uvicorn.Config(
        app,
        # Request heads must come whole in time, and one address may hold only so many
        # connections before they are WebSockets (httpprotocol.py: slow-client attacks).
        http=http_protocol(settings),
        ws=GameSocketProtocol,  # direct frame writes on the hot path (wsprotocol.py)
        ws_max_size=ws_max_size(settings),
        # State messages are small and frequent: compressing each one cost more CPU than
        # the bandwidth it saved (permessage-deflate was ~10% of a loaded server's CPU).
        ws_per_message_deflate=False,
        # Forwarded headers are the app's own setting (SPADES_FORWARDED_ALLOW_IPS, app.py):
        # uvicorn's default would believe any local process.
        proxy_headers=False,
        **options,
    )
    client_faults_at_info()  # after the Config set uvicorn's loggers up
    return config


def _refuse(reason: str) -> int:
    """A bad argument or setting: one line on stderr, exit status 2 (argparse's own)."""
    print(f"spades serve: {reason}", file=sys.stderr)
    return 2


def _settings_problem(exc: ValidationError) -> str:
    """The environment variables that do not parse, as one line."""
    problems = [
        f"SPADES_{'_'.join(str(p) for p in error['loc']).upper()}: {error['msg']}"
        for error in exc.errors()
    ]
    return "; ".join(problems)


def run(args: argparse.Namespace) -> int:
    from .app import create_app

    try:
        settings = get_settings()
    except ValidationError as exc:
        return _refuse(_settings_problem(exc))
    if args.database_url:
        settings = settings.model_copy(update={"database_url": args.database_url})
    if not DATABASE_URL.fullmatch(settings.database_url):
        source = "--database-url" if args.database_url else "SPADES_DATABASE_URL"
        return _refuse(
            f"{source} {settings.database_url!r} is not a database URL "
            "(sqlite:///./spades.db or postgresql://user:password@host/database)"
        )
    if settings.health_port and not settings.health_host:
        settings = settings.model_copy(update={"health_host": args.host})
    log_format = args.log_format or settings.log_format
    setup_logging(args.log_level, log_format)
    from spades.store.filelock import DatabaseInUse, lock_database

    try:
        # Held until the process ends: one server per SQLite file (store/filelock.py).
        lock = lock_database(settings.database_url)
    except DatabaseInUse as exc:
        print(f"spades serve: {exc}", file=sys.stderr)
        return STARTUP_FAILURE
    sys.setswitchinterval(SWITCH_INTERVAL)
    extra: dict[str, Any] = {}
    if log_format == "json":
        extra["log_config"] = None  # uvicorn's own lines go through the JSON handler too
    app = create_app(settings)
    config = uvicorn_config(
        app, settings, host=args.host, port=args.port, log_level=args.log_level.lower(), **extra
    )
    server = DrainingServer(config, app)
    try:
        with contextlib.suppress(KeyboardInterrupt):  # as uvicorn.run: Ctrl-C is a normal stop
            server.run()
    finally:
        if lock is not None:
            lock.release()
    return 0 if server.started else STARTUP_FAILURE


class DrainingServer(uvicorn.Server):
    """In a cluster, SIGTERM first hands every room to the other processes (their sockets
    are told to reconnect at once), then the server stops as usual."""

    def __init__(self, config: uvicorn.Config, app: Any) -> None:
        super().__init__(config)
        self.app = app
        self._draining = False

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        # Quick play's polls that wait for a seat answer now: the server waits for every
        # request to end before it stops.
        services = getattr(self.app.state, "services", None)
        if services is not None:
            asyncio.get_event_loop().call_soon_threadsafe(services.quickplay.close_polls)
        cluster = getattr(self.app.state, "cluster", None)
        if sig != signal.SIGTERM or cluster is None or self._draining:
            super().handle_exit(sig, frame)
            return
        self._draining = True
        loop = asyncio.get_event_loop()
        loop.call_soon_threadsafe(lambda: loop.create_task(self._drain(cluster, sig, frame)))

    async def _drain(self, cluster: Any, sig: int, frame: FrameType | None) -> None:
        try:
            await asyncio.wait_for(cluster.drain(), DRAIN_SECONDS)
        except Exception:
            logging.getLogger(__name__).exception("drain failed")
        super().handle_exit(sig, frame)
