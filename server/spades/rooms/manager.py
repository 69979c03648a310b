"""The rooms of one process: create, find, reload after a restart, close idle ones."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from datetime import timedelta
from typing import Any

from spades.codes import CloseCode, ErrorCode
from spades.store.protocol import (
    CodeTaken,
    FencedOut,
    NotFound,
    RoomRow,
    RoomStatus,
    Store,
    StoredRoom,
)

from .batching import Batcher
from .bots import BotRunner
from .broadcast import Hub, LocalHub
from .chat import RECENT_CHAT, Chats
from .clock import Clock, SystemClock
from .config import RoomConfig
from .errors import RoomError, RoomNotFound, ServerFull
from .lobby import lobby_entries
from .observer import NO_OBSERVER, Observer
from .ownership import FencedStore, LocalOwnership, OwnedElsewhere, Ownership
from .room import Room
from .seats import Seat
from .settings import RoomSettings, clean_name
from .tokens import hash_token, new_token

log = logging.getLogger(__name__)
# Claims at once (RoomManager._claim_slots). Unbounded, a dead peer's hundreds of claims
# took the store's whole pool (they share batches now, but replays and resumes still use
# the loop and the pool); 12 leaves the rooms already held their share. Fewer made a
# paused owner's 100 rooms slower to move (p99 3.2-3.6 s at 6, 3.0-3.3 s at 12;
# docs/performance.md, "Failover").
CLAIMS_AT_ONCE = 12

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L
CODE_LENGTH = 6
PURGE_EVERY = 3600.0  # seconds between purges of long-abandoned rooms


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str:
    return code.strip().upper()


MAX_CODE_LENGTH = 16  # join codes are CODE_LENGTH letters and digits; leave room for more


def plausible_code(code: str) -> bool:
    """Whether `code` (normalized) could be a room's join code at all."""
    return 0 < len(code) <= MAX_CODE_LENGTH and code.isascii() and code.isalnum()


class RoomManager:
    """Owns every live `Room` of this process. Rooms reach each other only through here."""

    def __init__(
        self,
        store: Store,
        config: RoomConfig,
        *,
        clock: Clock | None = None,
        hub: Hub | None = None,
        bots: BotRunner | None = None,
        observer: Observer | None = None,
        ownership: Ownership | None = None,
        shared_lobby: bool = False,
    ) -> None:
        self.store = store
        self.ownership: Ownership = ownership or LocalOwnership()
        self.ownership.on_lost(self._lost)
        self.draining = False  # set by drain(): no new rooms taken here
        # Cluster mode: the lobby lists the rooms of every process, from the store.
        self.shared_lobby = shared_lobby
        self.config = config
        self.clock = clock or SystemClock()
        self.hub = hub or LocalHub()
        self.bots = bots or BotRunner(
            workers=config.bot_workers,
            budget=config.strong_bot_budget,
            processes=config.bot_processes,
            iterations=config.strong_iterations,
        )
        self.observer = observer or NO_OBSERVER
        self.bots.observer = self.observer
        self.rooms: dict[str, Room] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._reserved: set[str] = set()  # codes being created
        # Codes being claimed (cluster): a lock each, and how many tasks hold or await it.
        self._claims: dict[str, tuple[asyncio.Lock, int]] = {}
        # Claims at once, whatever asked for them (sockets, REST calls, the orphan sweep).
        # A process whose peer died gets all of that peer's players at once: unbounded,
        # their hundreds of claims took every connection of the store's pool, and the rooms
        # this process already held stood still behind them (their finished hands and room
        # writes queued for a connection: no action answered for seconds).
        self._claim_slots = asyncio.Semaphore(CLAIMS_AT_ONCE)
        # The claims in flight fence and read their rooms together (one transaction and one
        # read for a batch, not one each): a failover's burst of claims costs the store a
        # few round trips a batch instead of seven a room.
        self._fence_and_load: Batcher[tuple[str, int], tuple[StoredRoom, Chats | None]]
        self._fence_and_load = Batcher(self._fence_all)
        self._drops: set[asyncio.Task[None]] = set()

    def _room_kwargs(self, room_id: str = "", fence: int | None = None) -> dict[str, Any]:
        store: Any = self.store
        if fence is not None and not self.ownership.owns_everything:
            store = FencedStore(self.store, room_id, fence, self._lost)
        return {
            "store": store,
            "clock": self.clock,
            "hub": self.hub,
            "config": self.config,
            "bots": self.bots,
            "observer": self.observer,
        }

    async def start(self) -> int:
        """Reload every unfinished room from the store; returns how many came back.

        In a cluster nothing is reloaded here: a room is claimed by the first process that
        needs it (`get`, or the cluster's sweep of orphaned rooms).
        """
        loaded = 0
        unfinished = await self.store.load_unfinished() if self.ownership.owns_everything else []
        for stored in unfinished:
            try:
                room = Room.from_stored(stored, **self._room_kwargs(stored.room.id))
            except Exception:
                code = stored.room.code
                log.exception("room %s could not be reloaded", code, extra={"room": code})
                continue
            self.rooms[room.code] = room
            room.start()
            await room.call(room.resume)
            loaded += 1
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="room-sweeper")
        return loaded

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(BaseException):
                await self._sweeper
        for room in list(self.rooms.values()):
            await room.stop()
            await self._release(room.room_id)
        self.rooms.clear()
        self.bots.close()

    # --- ownership (a cluster; one process owns everything and never drops a room) -------

    async def _release(self, room_id: str) -> None:
        try:
            await self.ownership.release(room_id)
        except Exception as exc:  # the lease lapses on its own
            log.warning("room %s: lease not released (%r)", room_id, exc, extra={"room": room_id})

    def _lost(self, room_id: str) -> None:
        """The lease of a room is gone (or the store fenced us out): drop it at once."""
        task = asyncio.get_running_loop().create_task(self.drop(room_id, release=False))
        self._drops.add(task)
        task.add_done_callback(self._drops.discard)

    async def drop(self, room_id: str, *, release: bool, to: str | None = None) -> None:
        """Stop holding a room here: its connections are told to reconnect (they will land
        on the new owner), its actor stops. `release`: hand the lease back (a drain), or
        straight `to` the process that asked for the room; without it the lease is already
        lost and nothing more may be written."""
        room = self.rooms.pop(room_id, None)
        if room is None:
            return
        log.info(
            "room %s dropped here (%s)",
            room.code,
            "handed over" if release else "lease lost",
            extra={"room": room.code},
        )
        self._moved_on(room)
        await room.stop()
        # A hello queued before the stop has run meanwhile: its socket was sent a state
        # and would wait in silence for a room that is gone. Told to reconnect too.
        self._moved_on(room)
        if release and to is not None:
            try:
                await self.ownership.hand_over(room_id, to)
            except Exception as exc:  # the lease lapses on its own
                log.warning(
                    "room %s: lease not handed over (%r)", room_id, exc, extra={"room": room_id}
                )
        elif release:
            await self._release(room_id)

    @staticmethod
    def _moved_on(room: Room) -> None:
        for conn in list(room.connections.values()):
            room.hub.close(conn, CloseCode.RECONNECT, "the room moved: reconnect")
        room.connections.clear()

    async def drain(self) -> None:
        """Shutting down: take no more rooms and hand every room held here over at once."""
        self.draining = True
        await asyncio.gather(
            *(self.drop(room_id, release=True) for room_id in list(self.rooms)),
            return_exceptions=True,
        )

    async def _claim(self, code: str) -> Room:
        """Load a room that no process holds: lease, fence in the store, replay."""
        # The lock is dropped only when no task holds or awaits it: dropped as soon as it
        # was released, a waiter woken but not yet running shared the room's lock with a
        # newcomer's fresh one, and both claimed it (two actors for one room).
        lock, users = self._claims.get(code, (asyncio.Lock(), 0))
        self._claims[code] = (lock, users + 1)
        try:
            async with lock:
                room = self.rooms.get(code)
                if room is not None and not room.closed:
                    return room
                if self.draining:
                    raise OwnedElsewhere(await self.ownership.owner_of(code) or "", code)
                async with self._claim_slots:
                    return await self._claim_now(code)
        finally:
            lock, users = self._claims[code]
            if users > 1:
                self._claims[code] = (lock, users - 1)
            else:
                del self._claims[code]

    async def _claim_now(self, code: str) -> Room:
        """Lease, fence, read and replay (under the room's lock and a claim slot)."""
        try:
            fence, (stored, chats) = await self._fenced_claim(code)
        except NotFound as exc:
            raise RoomNotFound(f"no room {code}") from exc
        try:
            if stored.room.status == "abandoned":
                raise RoomNotFound(f"room {code} was closed")
            room = Room.from_stored(stored, **self._room_kwargs(code, fence))
            room.match.moved = True  # from another process: no clock refunds
            if chats is not None:
                room.chat.keep_recent(chats, self.clock.now())
        except BaseException:
            await self._release(code)
            raise
        self.rooms[code] = room
        room.start()
        await room.call(room.resume)
        log.info("room %s claimed (fence %d)", code, fence, extra={"room": code})
        return room

    async def _fenced_claim(self, code: str) -> tuple[int, tuple[StoredRoom, Chats | None]]:
        """Lease the room, make its number the store's, then read it (fenced first: the old
        owner can write nothing after the fence moved, so the read sees the whole log). A
        number not above the store's (Redis began its counters again) brings the counter up
        and tries once more. The lease is released when this raises."""
        for attempt in range(2):
            fence = await self.ownership.claim(code)
            if fence is None:
                raise OwnedElsewhere(await self.ownership.owner_of(code) or "", code)
            try:
                return fence, await self._fence_and_load((code, fence))
            except FencedOut as exc:
                await self._release(code)
                if attempt or exc.current is None:
                    raise
                log.warning(
                    "room %s: lease number %d is not above the store's %d; catching up",
                    code,
                    fence,
                    exc.current,
                    extra={"room": code},
                )
                await self.ownership.fence_at_least(code, exc.current)
            except BaseException:
                await self._release(code)
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def _fence_all(
        self, claims: list[tuple[str, int]]
    ) -> dict[tuple[str, int], tuple[StoredRoom, Chats | None] | BaseException]:
        """`_fence_and_load`'s batch: each (room, fence) claimed in one transaction, then
        the claimed rooms and their recent chat read in one go."""
        refusals = await self.store.claim_rooms(claims)
        claimed = [room for (room, _), refused in zip(claims, refusals, strict=True) if not refused]
        loaded = await self.store.load_rooms(claimed) if claimed else {}
        try:  # what their players' hellos will send: one read, not one per room
            chats = await self.store.recent_chats(list(loaded), RECENT_CHAT) if loaded else {}
        except Exception:  # read at the first hello instead
            chats = {}
        answers: dict[tuple[str, int], tuple[StoredRoom, Chats | None] | BaseException] = {}
        for claim, refused in zip(claims, refusals, strict=True):
            stored = loaded.get(claim[0])
            if refused or stored is None:
                answers[claim] = refused or NotFound(f"no room {claim[0]!r}")
            else:
                answers[claim] = (stored, chats.get(claim[0]))
        return answers

    async def create(
        self,
        host_name: str,
        settings: dict[str, Any] | RoomSettings,
        *,
        solo: bool = False,
        player: str | None = None,
    ) -> tuple[Room, int, str]:
        """A new room with its creator in seat 0 as host. Returns room, seat and token.

        Solo: the other three seats get bots and the game starts at once. `player`: the
        creator's (verified) player id, recorded on their seat.
        """
        self._check_cap()
        parsed = RoomSettings.parse(settings)
        if solo:
            parsed = parsed.model_copy(update={"public": False}).unrated()
        name = clean_name(host_name, self.config.name_length)
        token = new_token()
        host = Seat(0, "human", name, None, hash_token(token), player_id=player)
        host.disconnected_at = self.clock.now()
        others = [Seat.bot(i, parsed.bot_level) if solo else Seat(i) for i in (1, 2, 3)]
        # A solo room is "playing" from its first write: its game starts right away.
        room = await self._open([host, *others], parsed, "playing" if solo else "open")
        log.info(
            "room %s created%s", room.code, " (solo)" if solo else "", extra={"room": room.code}
        )
        if solo:
            await room.call(self._start_now, room)
        return room, 0, token

    async def create_table(
        self, players: list[tuple[str, str] | None], settings: RoomSettings
    ) -> tuple[Room, list[str | None], asyncio.Future[Any]]:
        """A room made with its four seats taken (quick play): `players` per seat, a
        (name, player id) or None for a bot; the first is host. Returns once the room and
        its seats are stored: the room, each seat's token (None for a bot), and the deal,
        queued first in the room's actor (so any hello comes after it) and still to await
        (it raises what `start_game` raises)."""
        self._check_cap()
        now = self.clock.now()
        seats: list[Seat] = []
        tokens: list[str | None] = []
        for index, who in enumerate(players):
            if who is None:
                seats.append(Seat.bot(index, settings.bot_level))
                tokens.append(None)
                continue
            token = new_token()
            seat = Seat(index, "human", who[0], None, hash_token(token), player_id=who[1])
            seat.disconnected_at = now
            seats.append(seat)
            tokens.append(token)
        room = await self._open(seats, settings, "playing")
        log.info("room %s created (quick play)", room.code, extra={"room": room.code})
        dealt = asyncio.ensure_future(room.call(self._start_now, room))
        return room, tokens, dealt

    async def close_table(self, code: str, why: str) -> None:
        """Close a room `create_table` made that its players were never seated at (made too
        late, or its deal not stored): abandoned, its lease given back."""
        room = self.rooms.get(code)
        if room is None:
            return
        with contextlib.suppress(RoomError):
            await room.call(room.abandon, why)
        await self.drop(room.room_id, release=True)

    def _check_cap(self) -> None:
        cap = self.config.max_rooms
        if cap and len(self.rooms) + len(self._reserved) >= cap:
            # Rooms already here (and orphans a cluster process claims) are never refused:
            # only new ones, so a flood of creations cannot exhaust the process's memory.
            raise ServerFull("this server is full; try again in a minute")

    async def _open(self, seats: list[Seat], parsed: RoomSettings, status: RoomStatus) -> Room:
        """A new room with these seats, stored (the room and its seats in one write) and
        started; in a cluster leased first. A code taken meanwhile: another code."""
        while True:
            code = self._free_code()
            fence: int | None = None
            if not self.ownership.owns_everything:
                fence = await self._lease_new(code)
                if fence is None:  # another process took this code this instant
                    self._reserved.discard(code)
                    continue
            try:
                room = Room(
                    room_id=code,
                    code=code,
                    settings=parsed,
                    host_seat=0,
                    seats=seats,
                    status=status,
                    **self._room_kwargs(code, fence),
                )
                try:
                    await self.store.create_room(
                        RoomRow(
                            id=code,
                            code=code,
                            settings=parsed.model_dump(),
                            host_seat=0,
                            status=status,
                        ),
                        [seat.row(code) for seat in seats],
                        **({} if fence is None else {"fence": fence}),
                    )
                except CodeTaken:  # another process took the code since _free_code looked
                    if fence is not None:
                        await self._release(code)
                    continue
                self.rooms[code] = room
            except BaseException:
                if fence is not None:
                    await self._release(code)
                raise
            finally:
                self._reserved.discard(code)
            room.start()
            return room

    async def _lease_new(self, code: str) -> int | None:
        """A new room's lease (cluster): its fencing number, or None when another process
        took the code this instant. Refused (the code given back) while draining, or when
        the leases cannot be reached."""
        if self.draining:
            self._reserved.discard(code)
            raise RoomError("this server is shutting down; try again", code=ErrorCode.DRAINING)
        try:
            return await self.ownership.claim(code)
        except Exception as exc:
            # The leases' service (Redis) is out of reach: no process can own a new room
            # now. Refused like a failed write (HTTP 503, try again), nothing stored.
            self._reserved.discard(code)
            log.warning("room not created: no lease (%r)", exc)
            raise RoomError(
                "rooms cannot be created right now; try again", code=ErrorCode.STORAGE_ERROR
            ) from exc

    async def create_solo(
        self, name: str, settings: dict[str, Any] | RoomSettings, *, player: str | None = None
    ) -> tuple[Room, int, str]:
        return await self.create(name, settings, solo=True, player=player)

    @staticmethod
    async def _start_now(room: Room) -> None:
        await room.start_game()
        room.changed()

    def _free_code(self) -> str:
        """A code no room of this process has, reserved until the caller drops it from
        `_reserved`. The store is not asked first: its `create_room` refuses a code taken
        (`CodeTaken`, and `_open` draws another), so a lookup before it only cost every new
        room a read (a stored code is drawn as often as the stored rooms are a share of
        31^6, about 887 million codes)."""
        while True:
            code = new_code()
            if code in self.rooms or code in self._reserved:
                continue
            self._reserved.add(code)
            return code

    async def get(self, code: str) -> Room:
        """A live room by join code; a finished room not in memory is loaded from the store."""
        code = normalize_code(code)
        if not plausible_code(code):
            # Not looked up at all (no store query, no lease claimed in a cluster), and not
            # quoted back: it may be anything a client sent.
            raise RoomNotFound("no room with that code")
        room = self.rooms.get(code)
        if room is not None and not room.closed:
            return room
        if not self.ownership.owns_everything:
            return await self._claim(code)
        try:
            stored = await self.store.get_room(code)
        except NotFound as exc:
            raise RoomNotFound(f"no room {code}") from exc
        if stored.room.status == "abandoned":
            raise RoomNotFound(f"room {code} was closed")
        async with self._lock:  # two requests may have loaded it at once: keep the first
            room = self.rooms.get(code)
            if room is not None and not room.closed:
                return room
            room = Room.from_stored(stored, **self._room_kwargs(code))
            self.rooms[code] = room
            room.start()
            await room.call(room.resume)
        return room

    async def forget_name(self, player_id: str, shown_as: str) -> None:
        """A deleted account: its seats in the rooms this process holds say `shown_as` from
        now on (the store has renamed them already; this is what the rooms show)."""
        for room in list(self.rooms.values()):
            room.chat.recent = None  # its lines may carry the old name: read them again
            if not room.closed and any(s.player_id == player_id for s in room.seats):
                with contextlib.suppress(RoomError):
                    await room.call(room.rename_player, player_id, shown_as)

    def find_game(self, game_id: int) -> Room | None:
        for room in self.rooms.values():
            if room.game_id == game_id:
                return room
        return None

    async def lobby(self) -> list[dict[str, Any]]:
        """The public rooms: this process's (`public_rooms`), or with `shared_lobby` every
        process's, as the store lists them."""
        if not self.shared_lobby:
            return self.public_rooms()
        listed = lobby_entries(await self.store.public_rooms())
        base = self.config.public_url.rstrip("/")
        for entry in listed:
            live = self.rooms.get(entry["code"])
            entry["invite_url"] = live.invite_url if live else f"{base}/r/{entry['code']}"
        return listed

    def public_rooms(self) -> list[dict[str, Any]]:
        return [
            room.summary()
            for room in self.rooms.values()
            if not room.closed
            and room.status == "open"
            and room.settings.public
            and any(s.kind == "empty" for s in room.seats)
        ]

    async def sweep(self) -> list[str]:
        """Close rooms with no connected human for `abandon_after` seconds."""
        now = self.clock.now()
        closed = []
        for code, room in list(self.rooms.items()):
            idle = room.idle_since()
            if room.closed or idle is None or now - idle < self.config.abandon_after:
                continue
            if room.status in ("open", "playing"):
                try:
                    await room.call(room.abandon)
                except RoomError:  # closed meanwhile by another sweep
                    continue
            closed.append(code)
            self.rooms.pop(code, None)
            await room.stop()
            await self._release(room.room_id)
        return closed

    async def close(self, code: str, why: str) -> bool:
        """Close a room held here at once (an administrator's): its connections are told
        `why`, it is stored abandoned and let go (True); RoomNotFound when not held here."""
        room = self.rooms.get(code)
        if room is None or room.closed:
            raise RoomNotFound("no such room here")
        await room.call(room.abandon, why)
        self.rooms.pop(code, None)
        await room.stop()
        await self._release(room.room_id)
        return True

    async def purge(self) -> int:
        """Purge rooms abandoned longer than `purge_after_days` (finished games stay)."""
        if not self.config.purge_after_days:
            return 0
        return await self.store.purge_abandoned(timedelta(days=self.config.purge_after_days))

    async def _sweep_forever(self) -> None:
        last_purge = -PURGE_EVERY
        while True:
            await self.clock.sleep_until(self.clock.now() + self.config.sweep_seconds)
            try:
                await self.sweep()
                if self.clock.now() - last_purge >= PURGE_EVERY:
                    last_purge = self.clock.now()
                    purged = await self.purge()
                    if purged:
                        log.info("%d abandoned room(s) purged", purged)
            except Exception:
                log.exception("room sweep failed")
