"""Accounts and sessions in the SQL store: the writes and reads `SqlStore` takes from here
(a mixin, so sql.py keeps to the rooms and games). Each write is one transaction."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .access import Access
from .passkeys import delete_passkeys
from .protocol import NotFound, PlayerRow, PlayerTaken, SessionRow, UsernameTaken
from .tables import CHAT, GAME_SEATS, GAMES, PLAYERS, SEATS, SESSIONS, player_row, session_row


def username_key(username: str) -> str:
    """How usernames are compared: lower-cased (they are ASCII: `rooms.players`)."""
    return username.lower()


class AccountWrites:
    """The account half of `SqlStore` (see `Store` for what each method promises)."""

    clock: Callable[[], datetime]
    _access: Access

    async def _run_write(self, fn: Callable[[Connection], Any]) -> Any:  # pragma: no cover
        raise NotImplementedError  # SqlStore's

    async def player_by_username(self, username: str) -> PlayerRow:
        key = username_key(username)
        async with self._access.read() as conn:
            found = (
                await conn.execute(select(PLAYERS).where(PLAYERS.c.username_key == key))
            ).one_or_none()
        if found is None:
            raise NotFound(f"no account {username!r}")
        return player_row(found)

    async def claim_account(self, player_id: str, username: str, password_hash: str) -> None:
        values = {
            "username": username,
            "username_key": username_key(username),
            "password_hash": password_hash,
            "secret_hash": "",  # the guest secret is revoked: sessions only from now on
        }

        def write(conn: Connection) -> int:
            guest = update(PLAYERS).where(
                PLAYERS.c.id == player_id,
                PLAYERS.c.username_key.is_(None),
                PLAYERS.c.deleted_at.is_(None),
            )
            return int(conn.execute(guest.values(values)).rowcount)

        try:
            claimed = await self._run_write(write)
        except IntegrityError as exc:
            raise UsernameTaken(f"username {username!r} is taken") from exc
        if not claimed:
            raise NotFound(f"no guest player {player_id!r}")

    async def set_password(
        self, player_id: str, password_hash: str, *, keep_session: str | None = None
    ) -> None:
        def write(conn: Connection) -> int:
            changed = conn.execute(
                update(PLAYERS)
                .where(PLAYERS.c.id == player_id, PLAYERS.c.deleted_at.is_(None))
                .values(password_hash=password_hash)
            ).rowcount
            _delete_sessions(conn, player_id, keep_session)
            return int(changed)

        if not await self._run_write(write):
            raise NotFound(f"no player {player_id!r}")

    async def delete_account(self, player_id: str, *, shown_as: str) -> None:
        now = self.clock()

        def write(conn: Connection) -> int:
            # The names this player sat under, room by room, for the chat they wrote there.
            named = {
                (r.room_id, r.name)
                for r in conn.execute(
                    select(SEATS.c.room_id, SEATS.c.name).where(SEATS.c.player_id == player_id)
                )
            } | {
                (r.room_id, r.name)
                for r in conn.execute(
                    select(GAMES.c.room_id, GAME_SEATS.c.name)
                    .join(GAMES, GAMES.c.id == GAME_SEATS.c.game_id)
                    .where(GAME_SEATS.c.player_id == player_id)
                )
            }
            for room_id, name in named:
                if name is not None and name != shown_as:
                    conn.execute(
                        update(CHAT)
                        .where(CHAT.c.room_id == room_id, CHAT.c.name == name)
                        .values(name=shown_as)
                    )
            conn.execute(update(SEATS).where(SEATS.c.player_id == player_id).values(name=shown_as))
            conn.execute(
                update(GAME_SEATS).where(GAME_SEATS.c.player_id == player_id).values(name=shown_as)
            )
            _delete_sessions(conn, player_id, None)
            delete_passkeys(conn, player_id)
            return int(
                conn.execute(
                    update(PLAYERS)
                    .where(PLAYERS.c.id == player_id, PLAYERS.c.deleted_at.is_(None))
                    .values(
                        name=None,
                        username=None,
                        username_key=None,
                        password_hash=None,
                        secret_hash="",
                        public=False,
                        deleted_at=now,
                    )
                ).rowcount
            )

        if not await self._run_write(write):
            raise NotFound(f"no player {player_id!r}")

    # --- sessions ----------------------------------------------------------------------

    async def create_session(self, session: SessionRow) -> None:
        values = {
            "id": session.id,
            "player_id": session.player_id,
            "secret_hash": session.secret_hash,
            "created_at": session.created_at,
            "last_used_at": session.last_used_at,
            "user_agent": session.user_agent,
        }

        def write(conn: Connection) -> None:
            known = conn.execute(
                select(PLAYERS.c.id).where(
                    PLAYERS.c.id == session.player_id, PLAYERS.c.deleted_at.is_(None)
                )
            ).first()
            if known is None:
                raise NotFound(f"no player {session.player_id!r}")
            conn.execute(insert(SESSIONS).values(values))

        try:
            await self._run_write(write)
        except IntegrityError as exc:
            raise PlayerTaken(f"session {session.id!r} already exists") from exc

    async def get_session(self, session_id: str) -> SessionRow:
        async with self._access.read() as conn:
            found = (
                await conn.execute(select(SESSIONS).where(SESSIONS.c.id == session_id))
            ).one_or_none()
        if found is None:
            raise NotFound(f"no session {session_id!r}")
        return session_row(found)

    async def touch_session(self, session_id: str) -> None:
        now = self.clock()

        def write(conn: Connection) -> None:
            conn.execute(
                update(SESSIONS).where(SESSIONS.c.id == session_id).values(last_used_at=now)
            )

        await self._run_write(write)

    async def delete_session(self, session_id: str) -> None:
        def write(conn: Connection) -> None:
            conn.execute(delete(SESSIONS).where(SESSIONS.c.id == session_id))

        await self._run_write(write)

    async def delete_sessions(self, player_id: str, *, keep: str | None = None) -> int:
        return int(await self._run_write(lambda conn: _delete_sessions(conn, player_id, keep)))


def _delete_sessions(conn: Connection, player_id: str, keep: str | None) -> int:
    where = [SESSIONS.c.player_id == player_id]
    if keep is not None:
        where.append(SESSIONS.c.id != keep)
    return int(conn.execute(delete(SESSIONS).where(*where)).rowcount)
