"""`spades db upgrade | current | downgrade | heads`: Alembic migrations of the store;
`spades db stats`: players' statistics counted again from the event log.

The caller gives the database URL: `--url`, else `args.url` as the caller set it (the
`spades` command sets the server's configured one).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

URL_HELP = "database URL (default: the server's, SPADES_DATABASE_URL)"
BACKENDS = ("sqlite", "postgresql")


class BadArgument(Exception):
    """A URL or revision the command cannot use: one line for the user, exit status 2."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help=URL_HELP)
    # `--url` also after the action (`spades db upgrade --url ...`), as people write it;
    # not given there, it leaves the one before the action alone.
    url_after = argparse.ArgumentParser(add_help=False)
    url_after.add_argument("--url", default=argparse.SUPPRESS, help=URL_HELP)
    sub = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    up = sub.add_parser(
        "upgrade", parents=[url_after], help="migrate to a newer revision (default: head)"
    )
    up.add_argument("revision", nargs="?", default="head")
    down = sub.add_parser(
        "downgrade", parents=[url_after], help="migrate back (default: one revision)"
    )
    down.add_argument("revision", nargs="?", default="-1")
    sub.add_parser("current", parents=[url_after], help="print the revision the database is at")
    sub.add_parser("heads", parents=[url_after], help="print the newest revision of the migrations")
    sub.add_parser(
        "stats",
        parents=[url_after],
        help="count players' statistics again from the event log (every finished game "
        "replayed; also counts games finished before the statistics existed)",
    )


def database_url(text: str | None) -> URL:
    """`text` as a database URL the store can open, or BadArgument."""
    if not text:
        raise BadArgument("no database URL: give --url")
    try:
        url = make_url(text)
    except ArgumentError:
        raise BadArgument(f"not a database URL: {text!r}") from None
    if url.get_backend_name() not in BACKENDS:
        raise BadArgument(
            f"not an SQLite or PostgreSQL URL: {url.render_as_string(hide_password=True)!r}"
        )
    return url


def run(args: argparse.Namespace) -> int:
    command = f"spades db {args.db_command}"
    try:
        return _run(args, command)
    except BadArgument as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, command: str) -> int:
    from alembic.util import CommandError

    from . import migrate

    if args.db_command == "heads":
        print(migrate.head_revision())
        return 0
    url = database_url(args.url)
    shown = url.render_as_string(hide_password=True)
    try:
        if args.db_command in ("upgrade", "downgrade"):
            move = migrate.upgrade if args.db_command == "upgrade" else migrate.downgrade
            move(url, args.revision)
            print(f"{shown}: at {migrate.current_revision(url) or 'base'}")
        elif args.db_command == "stats":
            done = _recount(url)
            print(
                f"{shown}: {done.games} finished games counted again, {done.seats} seats "
                f"with a player"
                + (f", {done.refused} refused by the replay" if done.refused else "")
            )
        elif args.db_command == "current":
            current = migrate.current_revision(url)
            head = migrate.head_revision()
            state = "up to date" if current == head else f"head is {head}"
            print(f"{shown}: at {current or 'base'} ({state})")
    except CommandError as exc:  # Alembic's refusal of the arguments (a revision it lacks)
        raise BadArgument(str(exc)) from None
    except Exception as exc:  # the database's failure, not the arguments': status 1
        reason = str(exc).strip().splitlines() or [type(exc).__name__]
        print(f"{command}: {reason[0]}", file=sys.stderr)
        return 1
    return 0


def _recount(url: URL) -> Any:
    import asyncio

    from .db import create_engine
    from .stats_recount import recount

    async def run() -> Any:
        engine = create_engine(url)
        try:
            return await recount(engine)
        finally:
            await engine.dispose()

    return asyncio.run(run())
