"""Alembic environment for the Spades store (async engines: aiosqlite or asyncpg)."""

from __future__ import annotations

import asyncio

from alembic import context
from alembic.util import CommandError
from sqlalchemy import Connection

from spades.store.db import create_engine
from spades.store.models import metadata

config = context.config
target_metadata = metadata


def _url() -> str:
    # Set by spades.store.migrate; the bare `alembic` command has no ini section, so
    # it falls back to the server's settings (SPADES_DATABASE_URL, else their default).
    try:
        url = config.get_main_option("sqlalchemy.url")
    except CommandError:
        url = None
    if url:
        return url
    from spades.config import get_settings

    return get_settings().database_url


def _configure(**kwargs: object) -> None:
    context.configure(
        target_metadata=target_metadata,
        compare_type=True,
        # SQLite cannot ALTER most things; batch mode rebuilds the table instead.
        render_as_batch=True,
        **kwargs,  # type: ignore[arg-type]
    )


def run_migrations_offline() -> None:
    _configure(url=_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def _run_sync(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_async() -> None:
    engine = create_engine(_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run_sync)
            await connection.commit()
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run_sync(connection)
    else:
        asyncio.run(_run_async())


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
