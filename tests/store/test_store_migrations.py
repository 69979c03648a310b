"""Alembic: empty -> head -> base -> head on both databases; models and migrations agree."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect

from spades.cli import main as spades_main
from spades.store import current_revision, downgrade, upgrade
from spades.store.db import create_engine
from spades.store.migrate import MIGRATIONS, PYPROJECT, alembic_config, head_revision
from spades.store.models import metadata

TABLES = {
    "rooms",
    "seats",
    "games",
    "game_seats",
    "actions",
    "hands",
    "chat_messages",
    "players",
    "player_ratings",
    "rating_changes",
    "game_results",
    "player_stats",
    "sessions",
    "passkeys",
    "admins",
    "reports",
    "sanctions",
    "player_mutes",
    "room_mutes",
    "audit_log",
    "auth_challenges",
}


def tables(url: str) -> set[str]:
    async def read() -> set[str]:
        engine = create_engine(url)
        try:
            async with engine.connect() as conn:
                names = await conn.run_sync(lambda c: inspect(c).get_table_names())
        finally:
            await engine.dispose()
        return set(names) - {"alembic_version"}

    return asyncio.run(read())


def differences(url: str) -> list[object]:
    def compare(conn: Connection) -> list[object]:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(context, metadata))

    async def run() -> list[object]:
        engine = create_engine(url)
        try:
            async with engine.connect() as conn:
                return await conn.run_sync(compare)
        finally:
            await engine.dispose()

    return asyncio.run(run())


def test_alembic_is_configured_from_pyproject() -> None:
    root = PYPROJECT.parent
    assert not (root / "alembic.ini").exists()
    cfg = alembic_config("sqlite+aiosqlite:///unused.db")
    assert cfg.toml_file_name is not None and Path(cfg.toml_file_name) == PYPROJECT
    assert "script_location" in cfg.toml_alembic_config
    assert Path(cfg.get_alembic_option("script_location") or "") == MIGRATIONS
    assert head_revision() is not None


def test_upgrade_downgrade_upgrade(empty_db_url: str) -> None:
    assert current_revision(empty_db_url) is None
    assert tables(empty_db_url) == set()
    upgrade(empty_db_url)
    assert current_revision(empty_db_url) == head_revision()
    assert tables(empty_db_url) == TABLES
    downgrade(empty_db_url, "base")
    assert current_revision(empty_db_url) is None
    assert tables(empty_db_url) == set()
    upgrade(empty_db_url)
    assert current_revision(empty_db_url) == head_revision()
    assert tables(empty_db_url) == TABLES


def test_models_and_migrations_agree(db_url: str) -> None:
    """`db_url` was migrated to head by Alembic; autogenerate finds nothing to add."""
    assert current_revision(db_url) == head_revision()
    assert differences(db_url) == []


async def test_upgrade_works_inside_a_running_loop(tmp_path: Path) -> None:
    """The server migrates on start-up, from inside its event loop."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'in-loop.db'}"
    upgrade(url)
    assert current_revision(url) == head_revision()


def test_spades_db_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty_db_url = f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}"
    assert spades_main(["db", "--url", empty_db_url, "current"]) == 0
    assert "at base" in capsys.readouterr().out
    assert spades_main(["db", "--url", empty_db_url, "upgrade"]) == 0
    assert f"at {head_revision()}" in capsys.readouterr().out
    assert spades_main(["db", "--url", empty_db_url, "current"]) == 0
    assert "up to date" in capsys.readouterr().out
    assert spades_main(["db", "--url", empty_db_url, "downgrade", "base"]) == 0
    assert "at base" in capsys.readouterr().out
    assert tables(empty_db_url) == set()
    # `--url` after the action works as well (the README writes it so).
    assert spades_main(["db", "upgrade", "--url", empty_db_url]) == 0
    assert f"at {head_revision()}" in capsys.readouterr().out
    assert spades_main(["db", "current", "--url", empty_db_url]) == 0
    assert "up to date" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["db", "upgrade", "--url", "notaurl"],
        ["db", "--url", "notaurl", "current"],
        ["db", "downgrade", "--url", "mysql://somewhere/db"],
        ["db", "current", "--url", ""],
    ],
)
def test_spades_db_refuses_a_bad_url_in_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert spades_main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith(f"spades db {argv[1] if argv[1] != '--url' else argv[3]}: ")
    assert "Traceback" not in captured.err


def test_spades_db_refuses_an_unknown_revision_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'rev.db'}"
    assert spades_main(["db", "upgrade", "nosuchrevision", "--url", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("spades db upgrade: ") and len(err.strip().splitlines()) == 1


def test_spades_db_command_line_exits_2_without_a_traceback(tmp_path: Path) -> None:
    """As a newcomer types it, in a process of its own."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "spades.cli", "db", "upgrade", "--url", "notaurl"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "spades db upgrade: not a database URL: 'notaurl'"
