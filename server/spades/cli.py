"""`spades serve | db | admin | simulate | bot | score`.

Each subcommand lives in its own module with `configure(parser)` and `run(args) -> int`,
imported only when needed so `spades score` never loads the web stack.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from typing import NoReturn

COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("spades.api.serve", "run the room server"),
    "db": (
        "spades.store.cli",
        "database migrations (upgrade, downgrade, current), statistics recounted (stats) and "
        "SQLite backups (backup, restore)",
    ),
    "admin": ("spades.store.admin_cli", "grant or revoke the administrator role (moderation)"),
    "simulate": ("spades.bots.simulate", "play many bot games and report"),
    "bot": ("spades.bots.protocol", "a bot on stdin/stdout: one JSON view in, one action out"),
    "score": ("spades.score_cli", "score hand records (JSON or JSON lines)"),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # the parent package itself is missing
        return False


def _available() -> dict[str, tuple[str, str]]:
    return {name: spec for name, spec in COMMANDS.items() if _installed(spec[0])}


class _Parser(argparse.ArgumentParser):
    """A bad argument is one line (what is wrong and where the usage is), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = _available()
    parser = _Parser(prog="spades", description="Spades room server")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in commands.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if argv and argv[0] == name:
            importlib.import_module(module).configure(p)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    if args.command in ("db", "admin") and args.url is None:
        args.url = _configured_database_url()
    handler = importlib.import_module(commands[args.command][0])
    return int(handler.run(args) or 0)


def _configured_database_url() -> str | None:
    """The server's database URL (its settings: SPADES_DATABASE_URL, else the default),
    for `spades db` without `--url`; None when the settings do not load."""
    try:
        from spades.config import get_settings

        return str(get_settings().database_url)
    except Exception:
        return None


if __name__ == "__main__":
    sys.exit(main())
