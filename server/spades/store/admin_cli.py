"""`spades admin grant USERNAME | revoke USERNAME | list`: the administrator role.

The caller gives the database URL as for `spades db` (`--url`, else the server's). A
refusal (no such account, a bad URL) is one line on stderr and exit status 2; each change is
written to the audit log (no actor: the command line).
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from .cli import URL_HELP, BadArgument, database_url
from .protocol import NotFound


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help=URL_HELP)
    sub = parser.add_subparsers(dest="admin_command", metavar="ACTION", required=True)
    grant = sub.add_parser("grant", help="make the account USERNAME an administrator")
    grant.add_argument("username", metavar="USERNAME")
    revoke = sub.add_parser("revoke", help="take the administrator role from USERNAME")
    revoke.add_argument("username", metavar="USERNAME")


def run(args: argparse.Namespace) -> int:
    command = f"spades admin {args.admin_command}"
    try:
        url = database_url(args.url)
        print(asyncio.run(_change(url.render_as_string(hide_password=False), args)))
    except (BadArgument, NotFound) as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # the database's failure: status 1
        reason = str(exc).strip().splitlines() or [type(exc).__name__]
        print(f"{command}: {reason[0]}", file=sys.stderr)
        return 1
    return 0


async def _change(url: str, args: argparse.Namespace) -> str:
    from .sql import open_store

    store = await open_store(url, writer_process=False)
    try:
        player = await store.player_by_username(args.username)
        if player.deleted_at is not None:
            raise NotFound(f"no account {args.username!r}")
        granted = args.admin_command == "grant"
        changed = await store.set_admin(player.id, granted)
    finally:
        await store.close()
    name = player.username
    if granted:
        return f"{name} is an administrator" + ("" if changed else " already")
    return f"{name} is no longer an administrator" if changed else f"{name} was not one"
