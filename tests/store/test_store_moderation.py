"""Moderation in the store, on both databases: the administrator role (audited, unknown
players refused), a report with its chat message found to the millisecond, sanctions in
force (a player's and every address range's) until they end or are lifted, a player's own
mutes, and the audit log paged newest first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from store_support import FakeClock

from spades.store import NotFound, PlayerRow, RoomRow, SeatRow, SqlStore
from spades.store.protocol import ReportRow, SanctionRow


async def players(store: SqlStore, *ids: str) -> None:
    for pid in ids:
        await store.create_player(PlayerRow(id=pid, secret_hash=f"h-{pid}", name=pid))


async def test_the_role_and_the_audit_log(store: SqlStore) -> None:
    await players(store, "ann", "bob")
    assert not await store.is_admin("ann")
    assert await store.set_admin("ann", True)
    assert not await store.set_admin("ann", True)  # already: nothing written
    assert await store.is_admin("ann") and not await store.is_admin("bob")
    assert await store.set_admin("ann", False)
    assert not await store.set_admin("bob", False)
    with pytest.raises(NotFound):
        await store.set_admin("nobody", True)
    log = await store.audit_log()
    assert [(e.action, e.target, e.actor_id) for e in log] == [
        ("revoke", "ann", None),
        ("grant", "ann", None),
    ]
    older = await store.audit_log(before=log[0].id, limit=5)
    assert [e.action for e in older] == ["grant"]


async def test_a_report_keeps_the_message_it_names(store: SqlStore) -> None:
    await players(store, "ann", "bob")
    seats = [SeatRow(room_id="r", seat=i, name=n) for i, n in enumerate(["Ann", "Bob"])]
    await store.create_room(RoomRow(id="r", code="R", settings={}, host_seat=0), seats)
    await store.add_chat("r", 1, "Bob", "rude words")
    (said,) = await store.recent_chat("r")
    at = datetime.fromtimestamp(said["at"] / 1000, UTC)
    found = await store.chat_message("r", at, 1)
    assert (found.name, found.text) == ("Bob", "rude words")
    with pytest.raises(NotFound):
        await store.chat_message("r", at, 0)  # said from another seat
    report = ReportRow(
        reporter_id="ann", reason="insults", player_id="bob", room_code="R", seat=1,
        name=found.name, message=found.text, message_at=found.at, game_id=3, seq=9,
    )  # fmt: skip
    rid = await store.add_report(report)
    (kept,) = await store.reports()
    assert (kept.id, kept.message, kept.seq, kept.reporter_id) == (rid, "rude words", 9, "ann")
    await store.close_report(rid, "ann")
    assert await store.reports() == []
    assert [r.id for r in await store.reports(include_closed=True)] == [rid]
    with pytest.raises(NotFound):
        await store.close_report(rid, "ann")


async def test_sanctions_in_force_until_they_end_or_are_lifted(store: SqlStore) -> None:
    await players(store, "ann", "bob")
    now = datetime.now(UTC)
    ban = SanctionRow(
        kind="ban", reason="cheating", ends_at=now + timedelta(hours=1), player_id="bob",
        created_by="ann",
    )  # fmt: skip
    ban_id = await store.add_sanction(ban)
    net = SanctionRow(
        kind="mute", reason="spam", ends_at=now + timedelta(minutes=5), network="10.0.0.0/8"
    )
    await store.add_sanction(net)
    ended = SanctionRow(
        kind="ban", reason="old", ends_at=now - timedelta(minutes=1), player_id="ann"
    )
    await store.add_sanction(ended)
    with pytest.raises(NotFound):
        await store.add_sanction(SanctionRow(kind="ban", reason="x", ends_at=now, player_id="zed"))
    bobs = await store.sanctions_in_force("bob", now)
    assert [(s.kind, s.player_id, s.network) for s in bobs] == [
        ("ban", "bob", None),
        ("mute", None, "10.0.0.0/8"),
    ]
    assert [s.network for s in await store.sanctions_in_force("ann", now)] == ["10.0.0.0/8"]
    assert len(await store.sanctions()) == 3
    assert len(await store.sanctions(in_force_at=now)) == 2
    await store.lift_sanction(ban_id, "ann")
    assert [s.kind for s in await store.sanctions_in_force("bob", now)] == ["mute"]
    with pytest.raises(NotFound):
        await store.lift_sanction(ban_id, "ann")
    actions = [(e.action, e.actor_id) for e in await store.audit_log()]
    assert actions == [("lift_ban", "ann"), ("ban", None), ("mute", None), ("ban", "ann")]


async def test_a_players_own_mutes(store: SqlStore) -> None:
    await players(store, "ann", "bob", "cid")
    await store.set_player_mute("ann", "bob", True)
    await store.set_player_mute("ann", "cid", True)
    await store.set_player_mute("ann", "bob", True)  # twice: once
    assert await store.player_mutes("ann") == ["bob", "cid"]
    assert await store.player_mutes("bob") == []
    await store.set_player_mute("ann", "bob", False)
    assert await store.player_mutes("ann") == ["cid"]
    with pytest.raises(NotFound):
        await store.set_player_mute("ann", "nobody", True)


async def test_a_hosts_mutes_are_kept_with_the_room(store: SqlStore, clock: FakeClock) -> None:
    await players(store, "ann", "bob")
    seats = [SeatRow(room_id="r", seat=i, name=n) for i, n in enumerate(["Ann", "Bob"])]
    await store.create_room(RoomRow(id="r", code="R", settings={}, host_seat=0), seats)
    await store.create_room(RoomRow(id="s", code="S", settings={}, host_seat=0), [])
    await store.set_room_mute("r", "player:bob", True)
    await store.set_room_mute("r", "name:Cy", True)
    await store.set_room_mute("r", "player:bob", True)  # twice: once
    assert await store.room_mutes("r") == ["name:Cy", "player:bob"]
    assert await store.room_mutes("s") == []  # the room's own
    await store.set_room_mute("r", "name:Cy", False)
    await store.set_room_mute("r", "name:Nobody", False)  # not muted: nothing to do
    assert await store.room_mutes("r") == ["player:bob"]
    with pytest.raises(NotFound):
        await store.set_room_mute("nope", "player:bob", True)
    # They go with the room.
    await store.update_room("r", status="abandoned")
    clock.advance(timedelta(days=1))
    await store.purge_abandoned(timedelta(hours=1))
    assert await store.room_mutes("r") == []


async def test_a_chat_message_keeps_its_speakers_player(store: SqlStore, clock: FakeClock) -> None:
    await players(store, "eve")
    await store.create_room(RoomRow(id="r", code="R", settings={}, host_seat=0), [])
    await store.add_chat("r", None, "Spectator 1", "hello", player_id="eve")
    clock.advance(timedelta(seconds=1))
    await store.add_chat("r", None, "Spectator 2", "hi")
    first, second = await store.recent_chat("r")
    assert "player_id" not in first  # never shown to the room
    found = await store.chat_message("r", datetime.fromtimestamp(first["at"] / 1000, UTC), None)
    assert (found.text, found.player_id) == ("hello", "eve")
    other = await store.chat_message("r", datetime.fromtimestamp(second["at"] / 1000, UTC), None)
    assert (other.text, other.player_id) == ("hi", None)


async def test_the_names_an_administrator_reads(store: SqlStore) -> None:
    await players(store, "ann", "bob")
    await store.create_player(PlayerRow(id="nameless", secret_hash="h"))
    await store.claim_account("bob", "bobby", "hash")
    names = await store.player_names(["ann", "bob", "nameless", "nobody", "ann"])
    assert names == {"ann": "ann", "bob": "bob (bobby)"}
    assert await store.player_names([]) == {}
