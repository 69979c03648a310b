"""Accounts and sessions in the store, on both databases: claiming an account (a username
unique whatever its case, the guest secret revoked), sessions made, read, touched and
revoked, a new password revoking the other sessions, and a deleted account's name leaving
every seat, game seat and chat line while its games stay; the migration up and down."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import inspect, text
from store_support import FakeClock

from spades.store import (
    ChallengeRow,
    NotFound,
    PasskeyRow,
    PasskeyTaken,
    PlayerRow,
    PlayerTaken,
    RoomRow,
    SeatRow,
    SessionRow,
    SqlStore,
    UsernameTaken,
    downgrade,
    open_store,
    upgrade,
)

AT = datetime(2026, 1, 1, tzinfo=UTC)
GONE = "Deleted player"


def session(sid: str, pid: str) -> SessionRow:
    return SessionRow(id=sid, player_id=pid, secret_hash=f"h-{sid}", created_at=AT, last_used_at=AT)


async def test_claiming_an_account(store: SqlStore) -> None:
    for pid in ("ann", "bob"):
        await store.create_player(PlayerRow(id=pid, secret_hash=f"g-{pid}", name=pid.title()))
    await store.claim_account("ann", "Ann_1", "argon-ann")
    got = await store.get_player("ann")
    assert (got.username, got.password_hash, got.secret_hash) == ("Ann_1", "argon-ann", "")
    assert got.has_account and got.name == "Ann"
    assert (await store.player_by_username("aNN_1")).id == "ann"
    with pytest.raises(UsernameTaken):
        await store.claim_account("bob", "ANN_1", "argon-bob")
    bob = await store.get_player("bob")
    assert (bob.username, bob.secret_hash) == (None, "g-bob")  # nothing stored
    with pytest.raises(NotFound):
        await store.claim_account("ann", "Other", "x")  # already an account
    with pytest.raises(NotFound):
        await store.claim_account("nobody", "Other", "x")
    with pytest.raises(NotFound):
        await store.player_by_username("nobody")


async def test_sessions(store: SqlStore, clock: FakeClock) -> None:
    await store.create_player(PlayerRow(id="ann", secret_hash=""))
    await store.claim_account("ann", "ann", "p1")
    for sid in ("s1", "s2", "s3"):
        await store.create_session(session(sid, "ann"))
    with pytest.raises(PlayerTaken):
        await store.create_session(session("s1", "ann"))
    with pytest.raises(NotFound):
        await store.create_session(session("s9", "nobody"))
    got = await store.get_session("s1")
    assert (got.player_id, got.secret_hash, got.last_used_at) == ("ann", "h-s1", AT)
    clock.advance(timedelta(hours=1))
    await store.touch_session("s1")
    assert (await store.get_session("s1")).last_used_at == clock.now
    await store.delete_session("s3")
    await store.delete_session("s3")  # gone already: nothing to do
    with pytest.raises(NotFound):
        await store.get_session("s3")
    # A new password keeps the session that changed it and revokes the others.
    await store.create_session(session("s4", "ann"))
    await store.set_password("ann", "p2", keep_session="s1")
    assert (await store.get_player("ann")).password_hash == "p2"
    await store.get_session("s1")
    for sid in ("s2", "s4"):
        with pytest.raises(NotFound):
            await store.get_session(sid)
    assert await store.delete_sessions("ann") == 1
    with pytest.raises(NotFound):
        await store.set_password("nobody", "p")


async def test_a_deleted_account_leaves_its_games_without_its_name(store: SqlStore) -> None:
    for pid in ("ann", "bob"):
        await store.create_player(PlayerRow(id=pid, secret_hash="", name=pid.title()))
    await store.claim_account("ann", "ann", "p")
    await store.update_player("ann", public=True)
    await store.create_session(session("s1", "ann"))
    seats = [
        SeatRow("r", 0, name="Ann", token_hash="t0", player_id="ann"),
        SeatRow("r", 1, name="Bob", token_hash="t1", player_id="bob"),
        SeatRow("r", 2, name="Bot", bot_level="basic"),
        SeatRow("r", 3, name="Bot", bot_level="basic"),
    ]
    await store.create_room(RoomRow(id="r", code="R", settings={}, host_seat=0), seats)
    game = await store.start_game("r", {"mode": "individual"}, 0, "seed")
    await store.finish_game(game, 0, [100, 0, 0, 0])
    await store.add_chat("r", 0, "Ann", "hi")
    await store.add_chat("r", 1, "Bob", "hello Ann")
    await store.delete_account("ann", shown_as=GONE)
    got = await store.get_player("ann")
    assert (got.name, got.username, got.password_hash, got.secret_hash, got.public) == (
        None,
        None,
        None,
        "",
        False,
    )
    assert got.deleted_at is not None
    with pytest.raises(NotFound):
        await store.get_session("s1")
    with pytest.raises(NotFound):
        await store.player_by_username("ann")
    assert [s.name for s in (await store.get_room("r")).seats] == [GONE, "Bob", "Bot", "Bot"]
    (played,) = await store.player_games("bob")
    assert [p["name"] for p in played.players] == [GONE, "Bob", "Bot", "Bot"]
    assert [(c["name"], c["text"]) for c in await store.recent_chat("r")] == [
        (GONE, "hi"),
        ("Bob", "hello Ann"),
    ]
    with pytest.raises(NotFound):
        await store.delete_account("ann", shown_as=GONE)
    with pytest.raises(NotFound):
        await store.create_session(session("s2", "ann"))
    # Its username is free again.
    await store.claim_account("bob", "ANN", "p")


def test_the_accounts_migration_keeps_players(empty_db_url: str) -> None:
    """0005 -> 0006 keeps a guest (no account), and 0006 -> 0005 takes the accounts and
    sessions out again without touching the player or their seat."""

    async def make_player() -> None:
        store = await open_store(empty_db_url)
        try:
            async with store.engine.begin() as conn:
                await conn.execute(
                    text(
                        "INSERT INTO players (id, secret_hash, name, created_at, public)"
                        " VALUES ('ann', 'h', 'Ann', '2026-01-01 00:00:00', false)"
                    )
                )
            seats = [SeatRow("r", 0, name="Ann", token_hash="t", player_id="ann")]
            await store.create_room(RoomRow(id="r", code="R", settings={}), seats)
        finally:
            await store.close()

    async def read() -> tuple[set[str], set[str], list[tuple[object, ...]]]:
        store = await open_store(empty_db_url)
        try:
            async with store.engine.connect() as conn:
                tables, columns = await conn.run_sync(
                    lambda c: (
                        set(inspect(c).get_table_names()),
                        {col["name"] for col in inspect(c).get_columns("players")},
                    )
                )
                rows = await conn.execute(
                    text(
                        "SELECT p.id, p.name, p.secret_hash, s.player_id FROM players p"
                        " JOIN seats s ON s.room_id = 'r' AND s.seat = 0"
                    )
                )
                return tables, columns, [tuple(r) for r in rows]
        finally:
            await store.close()

    kept = [("ann", "Ann", "h", "ann")]
    upgrade(empty_db_url, "0005")
    asyncio.run(make_player())
    upgrade(empty_db_url)
    tables, columns, rows = asyncio.run(read())
    assert "sessions" in tables and {"username", "password_hash"} <= columns and rows == kept
    downgrade(empty_db_url, "0005")
    tables, columns, rows = asyncio.run(read())
    assert "sessions" not in tables and "username" not in columns and rows == kept
    upgrade(empty_db_url)
    assert asyncio.run(read())[2] == kept


async def test_passkeys_and_their_challenges(store: SqlStore, clock: FakeClock) -> None:
    await store.create_player(PlayerRow(id="ann", secret_hash=""))
    await store.claim_account("ann", "ann", "p")
    at = clock.now
    await store.add_challenge(ChallengeRow("c1", "xyz", "login", None, at))
    with pytest.raises(NotFound):
        await store.take_challenge("c1", "register")  # another purpose's: left alone
    assert (await store.take_challenge("c1", "login")).challenge == "xyz"
    with pytest.raises(NotFound):
        await store.take_challenge("c1", "login")  # a challenge answers once
    await store.add_challenge(ChallengeRow("old", "a", "login", None, at))
    await store.add_challenge(ChallengeRow("new", "b", "login", None, at + timedelta(hours=1)))
    with pytest.raises(NotFound):
        await store.take_challenge("old", "login")  # never answered: gone with a later one
    key = PasskeyRow(id="cred1", player_id="ann", public_key="pk", sign_count=0, created_at=at)
    await store.add_passkey(key)
    with pytest.raises(PasskeyTaken):
        await store.add_passkey(key)
    with pytest.raises(NotFound):
        await store.add_passkey(PasskeyRow("cred2", "nobody", "pk", 0, at))
    await store.use_passkey("cred1", 7)
    got = await store.get_passkey("cred1")
    assert (got.player_id, got.sign_count, got.last_used_at) == ("ann", 7, clock.now)
    assert [p.id for p in await store.player_passkeys("ann")] == ["cred1"]
    await store.delete_account("ann", shown_as=GONE)
    assert await store.player_passkeys("ann") == []
