"""Passkeys (WebAuthn credentials) and their challenges in the SQL store: the part of
`SqlStore` the passkey routes use (a mixin, like `accounts.AccountWrites`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .access import Access
from .protocol import ChallengeRow, NotFound, PasskeyRow, PasskeyTaken
from .tables import CHALLENGES, PASSKEYS, PLAYERS

CHALLENGE_KEPT = timedelta(minutes=10)  # an unanswered challenge is deleted after this


def _passkey(row: Any) -> PasskeyRow:
    return PasskeyRow(
        id=row.id,
        player_id=row.player_id,
        public_key=row.public_key,
        sign_count=int(row.sign_count),
        created_at=row.created_at,
        last_used_at=row.last_used_at,
    )


class PasskeyWrites:
    """The passkey half of `SqlStore` (see `Store` for what each method promises)."""

    clock: Callable[[], datetime]
    _access: Access

    async def _run_write(self, fn: Callable[[Connection], Any]) -> Any:  # pragma: no cover
        raise NotImplementedError  # SqlStore's

    async def add_challenge(self, challenge: ChallengeRow) -> None:
        values = {
            "id": challenge.id,
            "challenge": challenge.challenge,
            "purpose": challenge.purpose,
            "player_id": challenge.player_id,
            "created_at": challenge.created_at,
        }

        def write(conn: Connection) -> None:
            # The challenges never answered go with the next one handed out.
            stale = challenge.created_at - CHALLENGE_KEPT
            conn.execute(delete(CHALLENGES).where(CHALLENGES.c.created_at < stale))
            conn.execute(insert(CHALLENGES).values(values))

        await self._run_write(write)

    async def take_challenge(self, challenge_id: str, purpose: str) -> ChallengeRow:
        def write(conn: Connection) -> Any:
            found = conn.execute(
                select(CHALLENGES).where(
                    CHALLENGES.c.id == challenge_id, CHALLENGES.c.purpose == purpose
                )
            ).one_or_none()
            if found is not None:
                conn.execute(delete(CHALLENGES).where(CHALLENGES.c.id == challenge_id))
            return found

        found = await self._run_write(write)
        if found is None:
            raise NotFound(f"no {purpose} challenge {challenge_id!r}")
        return ChallengeRow(
            id=found.id,
            challenge=found.challenge,
            purpose=found.purpose,
            player_id=found.player_id,
            created_at=found.created_at,
        )

    async def add_passkey(self, passkey: PasskeyRow) -> None:
        values = {
            "id": passkey.id,
            "player_id": passkey.player_id,
            "public_key": passkey.public_key,
            "sign_count": passkey.sign_count,
            "created_at": passkey.created_at,
            "last_used_at": passkey.last_used_at,
        }

        def write(conn: Connection) -> None:
            known = conn.execute(
                select(PLAYERS.c.id).where(
                    PLAYERS.c.id == passkey.player_id, PLAYERS.c.deleted_at.is_(None)
                )
            ).first()
            if known is None:
                raise NotFound(f"no player {passkey.player_id!r}")
            conn.execute(insert(PASSKEYS).values(values))

        try:
            await self._run_write(write)
        except IntegrityError as exc:
            raise PasskeyTaken(f"passkey {passkey.id!r} is stored already") from exc

    async def get_passkey(self, passkey_id: str) -> PasskeyRow:
        async with self._access.read() as conn:
            found = (
                await conn.execute(select(PASSKEYS).where(PASSKEYS.c.id == passkey_id))
            ).one_or_none()
        if found is None:
            raise NotFound(f"no passkey {passkey_id!r}")
        return _passkey(found)

    async def player_passkeys(self, player_id: str) -> list[PasskeyRow]:
        async with self._access.read() as conn:
            rows = await conn.execute(
                select(PASSKEYS)
                .where(PASSKEYS.c.player_id == player_id)
                .order_by(PASSKEYS.c.created_at, PASSKEYS.c.id)
            )
            return [_passkey(r) for r in rows]

    async def use_passkey(self, passkey_id: str, sign_count: int) -> None:
        now = self.clock()

        def write(conn: Connection) -> None:
            conn.execute(
                update(PASSKEYS)
                .where(PASSKEYS.c.id == passkey_id)
                .values(sign_count=sign_count, last_used_at=now)
            )

        await self._run_write(write)


def delete_passkeys(conn: Connection, player_id: str) -> None:
    """Every passkey of the player (a deleted account's), in the caller's transaction."""
    conn.execute(delete(PASSKEYS).where(PASSKEYS.c.player_id == player_id))
