"""Moderation in the SQL store: administrators, reports, sanctions (mutes and bans), the
players' own mutes and the audit log; the part of `SqlStore` the moderation routes and the
rooms' checks use (a mixin, like `accounts.AccountWrites`).

Every administrator's change writes its audit entry in its own transaction, so the log
never misses a change nor names one that did not happen.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import asdict
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import and_, delete, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .access import Access
from .fences import fence_room
from .protocol import AuditRow, ChatRow, NotFound, ReportRow, SanctionRow
from .tables import (
    ADMINS,
    AUDIT,
    CHAT,
    PLAYER_MUTES,
    PLAYERS,
    REPORTS,
    ROOM_MUTES,
    SANCTIONS,
    chat_ms,
    chunks,
)


def _sanction(r: Any) -> SanctionRow:
    return SanctionRow(
        id=r.id,
        kind=r.kind,
        reason=r.reason,
        ends_at=r.ends_at,
        player_id=r.player_id,
        network=r.network,
        created_at=r.created_at,
        created_by=r.created_by,
        lifted_at=r.lifted_at,
    )


def _report(r: Any) -> ReportRow:
    return ReportRow(
        id=r.id,
        at=r.at,
        reporter_id=r.reporter_id,
        reason=r.reason,
        player_id=r.player_id,
        room_code=r.room_code,
        game_id=r.game_id,
        seq=r.seq,
        seat=r.seat,
        name=r.name,
        message=r.message,
        message_at=r.message_at,
        closed_at=r.closed_at,
    )


def _audit(
    conn: Connection,
    at: datetime,
    actor: str | None,
    action: str,
    target: Any,
    detail: dict[str, Any],
) -> None:
    conn.execute(
        insert(AUDIT).values(
            at=at,
            actor_id=actor,
            action=action,
            target=None if target is None else str(target),
            detail=orjson.dumps(detail, default=str).decode(),
        )
    )


def _live_player(conn: Connection, player_id: str) -> None:
    found = conn.execute(
        select(PLAYERS.c.id).where(PLAYERS.c.id == player_id, PLAYERS.c.deleted_at.is_(None))
    ).first()
    if found is None:
        raise NotFound(f"no player {player_id!r}")


def _in_force(at: datetime) -> Any:
    return and_(SANCTIONS.c.lifted_at.is_(None), SANCTIONS.c.ends_at > at)


class ModerationWrites:
    """The moderation part of `SqlStore` (see `Store` for what each method promises)."""

    clock: Callable[[], datetime]
    _access: Access

    async def _run_write(self, fn: Callable[[Connection], Any]) -> Any:  # pragma: no cover
        raise NotImplementedError  # SqlStore's

    async def is_admin(self, player_id: str) -> bool:
        async with self._access.read() as conn:
            query = select(ADMINS.c.player_id).where(ADMINS.c.player_id == player_id)
            return (await conn.execute(query)).first() is not None

    async def set_admin(self, player_id: str, admin: bool) -> bool:
        now = self.clock()

        def write(conn: Connection) -> bool:
            _live_player(conn, player_id)
            if admin:
                known = conn.execute(
                    select(ADMINS.c.player_id).where(ADMINS.c.player_id == player_id)
                ).first()
                if known is not None:
                    return False
                conn.execute(insert(ADMINS).values(player_id=player_id, granted_at=now))
            elif not conn.execute(delete(ADMINS).where(ADMINS.c.player_id == player_id)).rowcount:
                return False
            _audit(conn, now, None, "grant" if admin else "revoke", player_id, {})
            return True

        return bool(await self._run_write(write))

    # --- reports -----------------------------------------------------------------------

    async def add_report(self, report: ReportRow) -> int:
        values = {k: v for k, v in asdict(report).items() if k not in ("id", "closed_at")}
        values["at"] = report.at or self.clock()

        def write(conn: Connection) -> int:
            key = conn.execute(insert(REPORTS).values(values)).inserted_primary_key
            assert key is not None
            return int(key[0])

        return int(await self._run_write(write))

    async def reports(self, *, include_closed: bool = False, limit: int = 100) -> list[ReportRow]:
        query = select(REPORTS).order_by(REPORTS.c.id.desc()).limit(limit)
        if not include_closed:
            query = query.where(REPORTS.c.closed_at.is_(None))
        async with self._access.read() as conn:
            return [_report(r) for r in await conn.execute(query)]

    async def close_report(self, report_id: int, actor_id: str | None) -> None:
        now = self.clock()

        def write(conn: Connection) -> int:
            changed = conn.execute(
                update(REPORTS)
                .where(REPORTS.c.id == report_id, REPORTS.c.closed_at.is_(None))
                .values(closed_at=now)
            ).rowcount
            if changed:
                _audit(conn, now, actor_id, "close_report", report_id, {})
            return int(changed)

        if not await self._run_write(write):
            raise NotFound(f"no open report {report_id}")

    # --- sanctions ---------------------------------------------------------------------

    async def add_sanction(self, sanction: SanctionRow) -> int:
        now = self.clock()
        values = {k: v for k, v in asdict(sanction).items() if k not in ("id", "lifted_at")}
        values["created_at"] = sanction.created_at or now

        def write(conn: Connection) -> int:
            if sanction.player_id is not None:
                _live_player(conn, sanction.player_id)
            key = conn.execute(insert(SANCTIONS).values(values)).inserted_primary_key
            assert key is not None
            new = int(key[0])
            detail = {
                "id": new,
                "reason": sanction.reason,
                "ends_at": sanction.ends_at.isoformat(),
            }
            target = sanction.player_id or sanction.network
            _audit(conn, now, sanction.created_by, sanction.kind, target, detail)
            return new

        try:
            return int(await self._run_write(write))
        except IntegrityError as exc:  # a player deleted in between
            raise NotFound(f"no player {sanction.player_id!r}") from exc

    async def lift_sanction(self, sanction_id: int, actor_id: str | None) -> None:
        now = self.clock()

        def write(conn: Connection) -> int:
            found = conn.execute(
                select(SANCTIONS).where(SANCTIONS.c.id == sanction_id, _in_force(now))
            ).one_or_none()
            if found is None:
                return 0
            conn.execute(
                update(SANCTIONS).where(SANCTIONS.c.id == sanction_id).values(lifted_at=now)
            )
            target = found.player_id or found.network
            _audit(conn, now, actor_id, f"lift_{found.kind}", target, {"id": sanction_id})
            return 1

        if not await self._run_write(write):
            raise NotFound(f"no sanction {sanction_id} in force")

    async def sanctions(self, *, in_force_at: datetime | None = None) -> list[SanctionRow]:
        query = select(SANCTIONS).order_by(SANCTIONS.c.id.desc())
        if in_force_at is not None:
            query = query.where(_in_force(in_force_at))
        async with self._access.read() as conn:
            return [_sanction(r) for r in await conn.execute(query)]

    async def sanctions_in_force(self, player_id: str | None, at: datetime) -> list[SanctionRow]:
        whom: Any = SANCTIONS.c.network.is_not(None)
        if player_id is not None:
            whom = or_(whom, SANCTIONS.c.player_id == player_id)
        query = select(SANCTIONS).where(_in_force(at), whom).order_by(SANCTIONS.c.ends_at.desc())
        async with self._access.read() as conn:
            return [_sanction(r) for r in await conn.execute(query)]

    # --- the audit log -----------------------------------------------------------------

    async def audit(
        self, actor_id: str | None, action: str, target: str | None, detail: dict[str, Any]
    ) -> None:
        now = self.clock()
        await self._run_write(lambda conn: _audit(conn, now, actor_id, action, target, detail))

    async def audit_log(self, *, limit: int = 100, before: int | None = None) -> list[AuditRow]:
        query = select(AUDIT).order_by(AUDIT.c.id.desc()).limit(limit)
        if before is not None:
            query = query.where(AUDIT.c.id < before)
        async with self._access.read() as conn:
            rows = list(await conn.execute(query))
        return [
            AuditRow(
                id=r.id,
                at=r.at,
                actor_id=r.actor_id,
                action=r.action,
                target=r.target,
                detail=orjson.loads(r.detail),
            )
            for r in rows
        ]

    async def player_names(self, player_ids: Collection[str]) -> dict[str, str]:
        wanted = sorted(set(player_ids))
        found: dict[str, str] = {}
        async with self._access.read() as conn:
            for chunk in chunks(wanted):
                query = select(PLAYERS.c.id, PLAYERS.c.name, PLAYERS.c.username).where(
                    PLAYERS.c.id.in_(chunk)
                )
                for r in await conn.execute(query):
                    if r.username or r.name:
                        found[r.id] = f"{r.name or r.username}" + (
                            f" ({r.username})" if r.username and r.username != r.name else ""
                        )
        return found

    # --- a player's own mutes ------------------------------------------------------------

    async def player_mutes(self, player_id: str) -> list[str]:
        query = select(PLAYER_MUTES.c.muted_id).where(PLAYER_MUTES.c.player_id == player_id)
        async with self._access.read() as conn:
            return sorted(r.muted_id for r in await conn.execute(query))

    async def set_player_mute(self, player_id: str, muted_id: str, muted: bool) -> None:
        def write(conn: Connection) -> None:
            where = (PLAYER_MUTES.c.player_id == player_id, PLAYER_MUTES.c.muted_id == muted_id)
            conn.execute(delete(PLAYER_MUTES).where(*where))
            if muted:
                _live_player(conn, muted_id)
                conn.execute(insert(PLAYER_MUTES).values(player_id=player_id, muted_id=muted_id))

        await self._run_write(write)

    async def chat_message(self, room_id: str, at: datetime, seat: int | None) -> ChatRow:
        # Stored times may keep microseconds; the wire's are milliseconds: the message in
        # the same millisecond, from that seat.
        wanted = chat_ms(at)
        query = (
            select(CHAT)
            .where(
                CHAT.c.room_id == room_id,
                CHAT.c.seat.is_(None) if seat is None else CHAT.c.seat == seat,
            )
            .order_by(CHAT.c.id.desc())
            .limit(500)
        )
        async with self._access.read() as conn:
            for r in await conn.execute(query):
                if chat_ms(r.at) == wanted:
                    return ChatRow(
                        seat=r.seat, name=r.name, text=r.text, at=r.at, player_id=r.player_id
                    )
        raise NotFound("no such chat message in the room")

    # --- a host's mutes in their room ----------------------------------------------------

    async def room_mutes(self, room_id: str) -> list[str]:
        query = select(ROOM_MUTES.c.subject).where(ROOM_MUTES.c.room_id == room_id)
        async with self._access.read() as conn:
            return sorted(r.subject for r in await conn.execute(query))

    async def set_room_mute(
        self, room_id: str, subject: str, muted: bool, *, fence: int | None = None
    ) -> None:
        now = self.clock()

        def write(conn: Connection) -> None:
            fence_room(conn, room_id, fence)
            where = (ROOM_MUTES.c.room_id == room_id, ROOM_MUTES.c.subject == subject)
            conn.execute(delete(ROOM_MUTES).where(*where))
            if muted:
                conn.execute(insert(ROOM_MUTES).values(room_id=room_id, subject=subject, at=now))

        try:
            await self._run_write(write)
        except IntegrityError as exc:  # no such room
            raise NotFound(f"no room {room_id!r}") from exc
