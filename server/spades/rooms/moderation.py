"""Sanctions as the rooms enforce them: a ban refuses a seat, a chat message and a room (to
create or to join); a mute refuses chat. Read from the store at each check (no cache), so a
ban made through any process of a cluster holds on every other at once.

A sanction names a player (a seat's player, or the player of a REST request) or an address
range (CIDR) the connection's address falls in. The refusal says why and until when.
"""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime

from spades.codes import ErrorCode
from spades.store.protocol import SanctionRow, Store

from .errors import RoomError


class Sanctioned(RoomError):
    """Refused by a ban (`ErrorCode.BANNED`) or a mute (`ErrorCode.MUTED`)."""

    def __init__(self, message: str, code: ErrorCode, ends_at: datetime | None = None) -> None:
        super().__init__(message, code=code)
        self.ends_at = ends_at


def valid_network(text: str) -> str:
    """`text` as a CIDR range in its canonical form (`ValueError` when it is not one)."""
    return str(ipaddress.ip_network(text.strip(), strict=False))


def covers(network: str | None, address: str | None) -> bool:
    if not network or not address:
        return False
    try:
        return ipaddress.ip_address(address) in ipaddress.ip_network(network, strict=False)
    except ValueError:  # a socket with no address ("?"), a range of the other family
        return False


def when(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def refusal(row: SanctionRow) -> Sanctioned:
    whom = "you are" if row.player_id is not None else "your address range is"
    if row.kind == "ban":
        what, code = f"{whom} banned from playing and chatting", ErrorCode.BANNED
    else:
        what, code = f"{whom} muted site-wide", ErrorCode.MUTED
    return Sanctioned(f"{what} until {when(row.ends_at)}: {row.reason}", code, row.ends_at)


async def in_force(store: Store, player_id: str | None, address: str | None) -> list[SanctionRow]:
    """The sanctions in force now on this player or address, the longest first."""
    rows = await store.sanctions_in_force(player_id, datetime.now(UTC))
    return [
        r
        for r in rows
        if (r.player_id is not None and r.player_id == player_id) or covers(r.network, address)
    ]


async def check(
    store: Store, player_id: str | None, address: str | None, *, chat: bool = False
) -> None:
    """Raise `Sanctioned` when a ban is in force on the player or address (or, for `chat`,
    a mute); nothing when neither names anyone."""
    if player_id is None and not address:
        return
    rows = await in_force(store, player_id, address)
    for row in rows:
        if row.kind == "ban":
            raise refusal(row)
    if chat and rows:
        raise refusal(rows[0])


class RoomMutes:
    """Who the host muted in this room: by player id, or by name for a seat without a
    player. Stored with the room (`Store.room_mutes`), read once by its owner before the
    first check, and written through by each change: a restart, or the room moving to
    another process of a cluster, keeps them."""

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.loaded = False

    @staticmethod
    def key(player_id: str | None, name: str | None) -> str:
        return f"player:{player_id}" if player_id is not None else f"name:{name or ''}"

    async def load(self, store: Store, room_id: str) -> None:
        """Read the room's mutes once (refused with `storage_error` if they cannot be)."""
        if self.loaded:
            return
        try:
            self.keys = set(await store.room_mutes(room_id))
        except Exception as exc:
            raise RoomError(
                "the room's mutes could not be read; try again", code=ErrorCode.STORAGE_ERROR
            ) from exc
        self.loaded = True

    def set(self, key: str, muted: bool) -> None:
        if muted:
            self.keys.add(key)
        else:
            self.keys.discard(key)

    def check(self, key: str) -> None:
        if key in self.keys:
            raise Sanctioned(
                "the host muted your chat in this room (until they unmute you)", ErrorCode.MUTED
            )
