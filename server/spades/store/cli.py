"""`spades db upgrade | current | downgrade`: Alembic migrations of the store."""

from __future__ import annotations

import argparse
import importlib
import sys

from sqlalchemy.engine import make_url

from .db import default_url


def _settings_url() -> str:
    """The server's configured URL when its settings module exists, else the environment."""
    try:
        config = importlib.import_module("spades.config")
        url = getattr(config.get_settings(), "database_url", None)
    except Exception:  # no settings module yet, or settings that do not load
        url = None
    return str(url) if url else default_url()


URL_HELP = "database URL (default: SPADES_DATABASE_URL, else sqlite+aiosqlite:///./spades.db)"


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


def run(args: argparse.Namespace) -> int:
    from . import migrate

    url = args.url or _settings_url()
    shown = make_url(url).render_as_string(hide_password=True)
    try:
        if args.db_command == "upgrade":
            migrate.upgrade(url, args.revision)
            print(f"{shown}: at {migrate.current_revision(url) or 'base'}")
        elif args.db_command == "downgrade":
            migrate.downgrade(url, args.revision)
            print(f"{shown}: at {migrate.current_revision(url) or 'base'}")
        elif args.db_command == "current":
            current = migrate.current_revision(url)
            head = migrate.head_revision()
            state = "up to date" if current == head else f"head is {head}"
            print(f"{shown}: at {current or 'base'} ({state})")
        elif args.db_command == "heads":
            print(migrate.head_revision())
    except Exception as exc:
        print(f"spades db {args.db_command}: {exc}", file=sys.stderr)
        return 1
    return 0
