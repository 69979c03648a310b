"""`spades db upgrade | current | downgrade | heads`: Alembic migrations of the store;
`spades db stats`: players' statistics counted again from the event log.
`spades db backup PATH | restore PATH`: a copy of a live SQLite database and putting one
back (PostgreSQL: pg_dump and pg_restore, docs/operations.md "Backups").

The caller gives the database URL: `--url`, else `args.url` as the caller set it (the
`spades` command sets the server's configured one).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
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
    backup = sub.add_parser(
        "backup",
        parents=[url_after],
        help="copy the SQLite database to PATH, consistently, while the server runs",
    )
    backup.add_argument("path", metavar="PATH", help="the new file to write (must not exist)")
    restore = sub.add_parser(
        "restore",
        parents=[url_after],
        help="put the backup PATH in place of the SQLite database (the server stopped)",
    )
    restore.add_argument("path", metavar="PATH", help="a file made by `spades db backup`")


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
    if args.db_command in ("backup", "restore"):
        return _backup_or_restore(args, url)
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


PG_TOOLS = (
    "a PostgreSQL database is backed up with pg_dump and restored with pg_restore "
    "(docs/operations.md, Backups)"
)


def _backup_or_restore(args: argparse.Namespace, url: URL) -> int:
    from . import backup, migrate
    from .filelock import sqlite_file

    rendered = url.render_as_string(hide_password=False)
    database = sqlite_file(rendered)
    if database is None:
        if url.get_backend_name() == "postgresql":
            raise BadArgument(PG_TOOLS)
        raise BadArgument("an SQLite database in memory has no file to copy")
    path = Path(args.path).resolve()
    try:
        if args.db_command == "backup":
            made = backup.backup(database, path, migrate.known_revisions())
            print(f"{database} -> {path}: {made.describe()}")
        else:
            restored, aside = backup.restore(path, database, rendered, migrate.known_revisions())
            print(f"{path} -> {database}: {restored.describe()}")
            if aside is not None:
                print(f"the database it replaced is now {aside}")
            head = migrate.head_revision()
            if restored.revision != head:
                print(
                    f"its schema is older than {head}: the server upgrades it at start "
                    "(SPADES_AUTO_UPGRADE), or run `spades db upgrade`"
                )
    except backup.BackupRefused as exc:
        raise BadArgument(str(exc)) from None
    except (OSError, sqlite3.Error) as exc:  # the disk's failure, not the arguments': status 1
        print(f"spades db {args.db_command}: {exc}", file=sys.stderr)
        return 1
    return 0
