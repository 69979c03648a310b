"""A SQLite file the server could open only for reading (its permissions, a read-only
mount, an immutable file): writes fail as the database being unavailable, and once the
file is writable again the store writes without a restart (SQLite keeps a connection
opened read-only so for its whole life, so the store must open new ones)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from spades.store import ActionRow, RoomRow, SeatRow, StorageUnavailable, open_store


@pytest.fixture
def frozen(sqlite_template: Path, tmp_path: Path) -> Iterator[Path]:
    """A migrated database file made immutable (`chattr +i`: read-only even for root)."""
    path = tmp_path / "spades.db"
    shutil.copyfile(sqlite_template, path)
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed: cannot make a file read-only for root")
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"this filesystem or user cannot make a file immutable: {made.stderr!r}")
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False)


@pytest.mark.parametrize("writer_process", [True, False])
async def test_a_database_opened_read_only_is_written_once_it_is_writable(
    frozen: Path, writer_process: bool
) -> None:
    store = await open_store(f"sqlite+aiosqlite:///{frozen}", writer_process=writer_process)
    try:
        room = RoomRow(id="r", code="R", settings={})
        with pytest.raises(StorageUnavailable):
            await store.create_room(room, [SeatRow("r", 0, name="A")])
        subprocess.run(["chattr", "-i", str(frozen)], check=True)
        await store.create_room(room, [SeatRow("r", 0, name="A")])
        game = await store.start_game("r", {}, 0, "seed")
        await store.append_action(ActionRow(game, 1, 0, {"type": "bid", "bid": 3}))
        subprocess.run(["chattr", "+i", str(frozen)], check=True)
        # Made read-only while running: the open connections may still write (Unix), or
        # fail as unavailable; either way nothing half-stored, and writable again it works.
        try:
            await store.append_action(ActionRow(game, 2, 1, {"type": "bid", "bid": 4}))
            stored = 2
        except StorageUnavailable:
            stored = 1
        subprocess.run(["chattr", "-i", str(frozen)], check=True)
        await store.append_action(ActionRow(game, stored + 1, 2, {"type": "bid", "bid": 2}))
        assert len((await store.export_game(game, in_progress=True))["actions"]) == stored + 1
    finally:
        subprocess.run(["chattr", "-i", str(frozen)], check=False)
        await store.close()
