"""Taking, leaving and filling seats, the host, and who is here. Each change stores first
and then changes the room, so a failed write leaves the room as it was."""

from __future__ import annotations

import logging
from dataclasses import replace

from spades.codes import CloseCode, ErrorCode
from spades.store.protocol import Store

from .audience import Audience
from .clock import Clock
from .config import RoomConfig
from .errors import BadRequest, HostOnly, RoomFull
from .match import Match
from .seats import Seat, first_human, host_gone
from .settings import clean_name, distinct_name
from .table import Table
from .tokens import hash_token, new_token
from .writes import write_first

log = logging.getLogger(__name__)


class Seating:
    def __init__(
        self,
        table: Table,
        match: Match,
        audience: Audience,
        *,
        store: Store,
        clock: Clock,
        config: RoomConfig,
    ) -> None:
        self.table = table
        self.seats = table.seats
        self.match = match
        self.audience = audience
        self.store = store
        self.clock = clock
        self.config = config
        self.last_human_at = clock.now()

    # --- who is here ---------------------------------------------------------------------

    def humans_connected(self) -> bool:
        seats = self.seats
        return any(
            c.seat is not None and seats[c.seat].kind == "human"
            for c in self.audience.connections.values()
        )

    def idle_since(self) -> float | None:
        """When the last human left (None while one is connected)."""
        return None if self.humans_connected() else self.last_human_at

    def humans_may_have_left(self, had: bool) -> None:
        """After a connection lost its seat or a seat its person (a stand, a kick, a hello
        that moved a socket), without the socket closing: if humans were connected before
        (`had`) and none is now, the room's idle time starts now, not at its last close."""
        if had and not self.humans_connected():
            self.last_human_at = self.clock.now()

    # --- seats ---------------------------------------------------------------------------

    async def join(
        self, name: str, seat: int | None, spectator: bool, player: str | None = None
    ) -> tuple[int | None, str | None]:
        """`POST /join` and `sit`: take a free seat (or the named one). Returns seat and token.
        `player`: the id of the (verified) player who takes it, recorded on the seat. A
        player who already sits here (from another device, signed in to their account)
        takes their own seat back, game or not: `take_back`."""
        if spectator:
            return None, None
        seats = self.seats
        if player is not None:
            own = next((s for s in seats if s.kind == "human" and s.player_id == player), None)
            if own is not None and seat in (None, own.index):
                return own.index, await self.take_back(own)
            if own is not None and self.table.settings.rated:
                # Fair play: one player, one seat at a rated table (no partnering oneself).
                raise RoomFull(
                    f"you already sit in seat {own.index}; a rated room gives a player one seat",
                    code=ErrorCode.ALREADY_SEATED,
                )
        name = clean_name(name, self.config.name_length)
        if self.match.status not in ("open", "finished") or self.match.in_progress():
            raise RoomFull("the game has started; you can watch", code=ErrorCode.GAME_IN_PROGRESS)
        if seat is None:
            free = [s.index for s in seats if s.kind == "empty"]
            if not free:
                raise RoomFull("every seat is taken")
            seat = free[0]
        if seat not in range(4):
            raise BadRequest("a seat is 0..3")
        if seats[seat].kind == "human":
            raise RoomFull(f"seat {seat} is taken")
        others = [s.name for s in seats if s.kind == "human" and s.index != seat and s.name]
        name = distinct_name(name, others, self.config.name_length)
        token = new_token()
        taken = Seat(seat, "human", name, None, hash_token(token), player_id=player)
        taken.disconnected_at = self.clock.now()
        await self.store_seat(taken)
        host = self.table.host_seat
        if host is None or seats[host].kind != "human":
            await self.set_host(seat)
        return seat, token

    async def take_back(self, seat: Seat) -> str:
        """The seat's own player, on another device: a new token for the seat (the old
        one no longer opens it) and the connection that held it is closed as replaced.
        Everything else of the seat (name, away, the host) stays. Returns the token."""
        token = new_token()
        await self.store_seat(replace(seat, token_hash=hash_token(token)))
        audience = self.audience
        for other in list(audience.connections.values()):
            if other.seat == seat.index:
                other.seat = None
                audience.remove(other)
                audience.error(other, ErrorCode.REPLACED, "your seat was opened elsewhere", None)
                audience.close(other, CloseCode.REPLACED, "seat taken over by its player")
        return token

    async def store_seat(self, seat: Seat) -> None:
        """Store first, then take it in memory: a failed write leaves the room as it was."""
        table = self.table
        await write_first(table.code, self.store.set_seat(seat.row(table.room_id)))
        had = self.humans_connected()
        self.seats[seat.index] = seat
        self.humans_may_have_left(had)

    async def vacate(self, seat: int) -> None:
        await self.store_seat(Seat(seat))  # (which starts the idle time if they were the last)
        for conn in self.audience.connections.values():
            if conn.seat == seat:
                conn.seat = None
        if self.table.host_seat == seat:
            await self.set_host(first_human(self.seats))

    async def make_bot(self, seat: int) -> None:
        await self.store_seat(Seat.bot(seat, self.table.settings.bot_level))

    async def fill_with_bots(self) -> None:
        """A bot in every empty seat (before a game is dealt)."""
        for seat in list(self.seats):
            if seat.kind == "empty":
                await self.make_bot(seat.index)

    # --- the host ------------------------------------------------------------------------

    async def set_host(self, seat: int | None) -> None:
        table = self.table
        await write_first(table.code, self.store.update_room(table.room_id, host_seat=seat))
        table.host_seat = seat

    def host_gone(self) -> bool:
        """The host left for good (gone past the grace period, or no person)."""
        host = self.table.host_seat
        return host_gone(
            self.seats,
            host,
            connected=host is not None and self.audience.connected(host),
            now=self.clock.now(),
            grace=self.config.grace_seconds,
        )

    async def check_host(self, seat: int | None) -> None:
        """Refuse a host's command from anyone but the host; when the host left for good,
        the present player who asks takes over."""
        if seat is None:
            raise HostOnly("only the host may do that")
        if seat != self.table.host_seat and self.host_gone():
            await self.set_host(seat)
        if seat != self.table.host_seat:
            raise HostOnly("only the host may do that")

    async def hand_over_host(self) -> bool:
        """When the host is gone past the grace period (or is no person), the first seated
        player who is here becomes host, so the others can start the game or change it
        without waiting for someone who left. False (nothing changed) when nobody is here."""
        if not self.host_gone():
            return False
        host = self.table.host_seat
        for s in self.seats:
            if s.kind == "human" and s.index != host and self.audience.connected(s.index):
                await self.set_host(s.index)
                log.info(
                    "room %s: the host left; seat %s is host now",
                    self.table.code,
                    s.index,
                    extra={"room": self.table.code, "seat": s.index},
                )
                return True
        return False
