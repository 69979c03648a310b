"""The Store protocol: everything the rooms layer may ask of storage, and the rows it gets.

The rooms layer imports only this module of `spades.store`; the SQL implementation lives
beside it. Times are timezone-aware UTC datetimes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Collection, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from spades.engine.stats import Counts, SeatStats

# The rows, re-exported (`__all__` below): the rooms layer imports them from this module.
from .rows import (
    ActionRow,
    AuditRow,
    ChallengeRow,
    ChatRow,
    FinishedGame,
    GameRow,
    HandRow,
    LeaderRow,
    PasskeyRow,
    PlayerGame,
    PlayerRow,
    QueueFacts,
    RatingChangeRow,
    ReportRow,
    RoomRow,
    RoomStatus,
    SanctionKind,
    SanctionRow,
    SeatRow,
    SessionRow,
    StoredRating,
    StoredRoom,
)


class StoreError(Exception):
    """Base of the store's errors."""


class SequenceError(StoreError):
    """An appended action whose sequence number is not the next one; the log is unchanged."""


class NotFound(StoreError):
    """No such room or game."""


class FencedOut(StoreError):
    """A write refused because a newer owner's fencing number exists for the room.

    Cluster mode: the process that sees this no longer owns the room and must drop it.
    Nothing of the refused write was stored. `current`: the room's number, when known.
    """

    def __init__(self, message: str, current: int | None = None) -> None:
        super().__init__(message)
        self.current = current


class StorageUnavailable(StoreError):
    """The database could not be reached, or did not answer in time.

    A write that failed this way was not stored, except when the answer to its commit was
    what got lost: then it may have been. Reading the log again tells which.
    """


class GameInProgress(StoreError):
    """A game's record (which holds its master seed) asked for before the game is over."""


class PlayerTaken(StoreError):
    """A new player's id is already used; nothing was stored."""


class UsernameTaken(StoreError):
    """An account's username is already used by another account (compared lower-cased);
    nothing was stored."""


class PasskeyTaken(StoreError):
    """A passkey's credential id is already stored; nothing was stored."""


class CodeTaken(StoreError):
    """A new room's join code (or id) is already used by another room; nothing was stored."""


class Store(Protocol):
    """Fencing (cluster mode): every write a room's owner makes takes an optional `fence`,
    the fencing number of the owner's lease. Given, the write's own transaction raises the
    room's fence to it, or raises FencedOut and stores nothing when the room's fence is
    already higher (a newer owner claimed it). None (the single-process default) skips the
    check.
    """

    async def create_room(
        self, room: RoomRow, seats: list[SeatRow], *, fence: int | None = None
    ) -> None: ...  # raises CodeTaken when the id or code is used; fence: its first value

    async def update_room(
        self,
        room_id: str,
        *,
        status: RoomStatus | None = None,
        settings: dict[str, Any] | None = None,
        host_seat: int | None = None,
        fence: int | None = None,
    ) -> None: ...

    async def get_room(self, room_id: str) -> StoredRoom: ...  # raises NotFound

    async def load_room(self, room_id: str) -> StoredRoom:
        """One room by id, any status, with its unfinished game and log if one is in
        progress (for claiming a room on demand). Raises NotFound."""
        ...

    async def load_rooms(self, room_ids: Sequence[str]) -> dict[str, StoredRoom]:
        """`load_room` for many rooms in one read; rooms that do not exist are left out."""
        ...

    async def room_id_for_code(self, code: str) -> str: ...  # raises NotFound

    async def claim_room(self, room_id: str, fence: int) -> None:
        """Make `fence` the room's fencing number, so older owners' writes fail from now on.
        Raises FencedOut (with the room's number) unless `fence` is higher than the room's
        (0, a single process's, excepted), NotFound if no such room."""
        ...

    async def claim_rooms(self, claims: Sequence[tuple[str, int]]) -> list[StoreError | None]:
        """`claim_room` for many (room, fence) pairs in one transaction: each one's outcome
        (None: claimed, else the error `claim_room` would raise)."""
        ...

    async def set_seat(
        self, seat: SeatRow, *, fence: int | None = None
    ) -> None: ...  # insert or replace (room_id, seat)

    async def start_game(
        self,
        room_id: str,
        rules: dict[str, Any],
        first_dealer: int,
        seed: str,
        *,
        fence: int | None = None,
    ) -> int: ...  # returns the new game id

    def append_action(self, row: ActionRow, *, fence: int | None = None) -> Awaitable[None]:
        """Durable once awaited. Raises SequenceError unless row.seq is the next number."""
        ...

    async def finish_hand(self, row: HandRow, *, fence: int | None = None) -> None: ...

    async def finish_game(
        self,
        game_id: int,
        winner: int | None,
        scores: list[int],
        *,
        stats: Sequence[SeatStats] | None = None,
        ratings: Sequence[dict[str, Any]] | None = None,
        fence: int | None = None,
    ) -> None:
        """The game's end; with `stats` (`engine.stats.game_stats`), each seat's that has
        a player is added to that player's totals in the same transaction, once per game
        however often the game is finished. With `ratings` too (each a seat's
        `rooms.rating.RatingChange.to_dict()`), the players' ratings change the same way,
        once per game. Raises NotFound."""
        ...

    async def ratings(self, player_ids: Sequence[str], mode: str) -> dict[str, StoredRating]:
        """The stored ratings of `player_ids` in `mode` (a player never rated is absent)."""
        ...

    async def player_ratings(self, player_id: str) -> dict[str, StoredRating]:
        """A player's ratings by mode (the modes they were rated in)."""
        ...

    async def rating_history(self, player_id: str, limit: int = 200) -> list[RatingChangeRow]:
        """A player's last `limit` rating changes (every mode), oldest first."""
        ...

    async def leaderboard(
        self, mode: str, *, min_games: int, offset: int, limit: int
    ) -> tuple[int, list[LeaderRow]]:
        """How many players `mode`'s leaderboard ranks, and `limit` of them from `offset`."""
        ...

    async def last_quit(self, player_id: str) -> datetime | None:
        """When the last rated game the player left before its end finished (None: never)."""
        ...

    async def queue_facts(self, player_id: str, mode: str) -> QueueFacts:
        """What quick play checks before queueing the player, in one read: their rated
        games being played, their last quit (as `last_quit`), their rating in `mode`."""
        ...

    async def leaderboard_rank(self, player_id: str, mode: str, *, min_games: int) -> int | None:
        """The player's place on `mode`'s leaderboard (None: not ranked)."""
        ...

    async def add_chat(
        self,
        room_id: str,
        seat: int | None,
        name: str,
        text: str,
        *,
        player_id: str | None = None,
        fence: int | None = None,
    ) -> int:
        """Store a chat message (`player_id`: its speaker's player, when known); its time
        as `recent_chat` will give it (epoch ms)."""
        ...

    async def recent_chat(self, room_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The last `limit` messages, oldest first: {"seat", "name", "text", "at" (epoch ms)}."""
        ...

    async def recent_chats(self, ids: Sequence[str], limit: int) -> dict[str, list[dict[str, Any]]]:
        """`recent_chat` of many rooms in one read (for a burst of claims)."""
        ...

    async def load_unfinished(self) -> list[StoredRoom]: ...

    async def finished_games(self, room_id: str) -> list[FinishedGame]: ...

    async def resume_game_clock(
        self, game_id: int, *, fence: int | None = None, counted: float = 0.0
    ) -> float:
        """After a restart: the seconds of game clock used (from the game's start to its
        last stored action, plus `counted` seconds after it), and the game's start moved
        forward so that this stays true from now on: the time the server was down never
        counts, however many restarts, but for `counted` (a room that moved to another
        process of a cluster: the seconds since the last action, which are no outage of the
        game's). Raises NotFound."""
        ...

    async def game_room(self, game_id: int) -> StoredRoom:
        """The room of game `game_id` with its seats as they are now (no game: the room's
        presentation is the rooms layer's, `rooms.lobby.game_players`). Raises NotFound."""
        ...

    async def export_game(self, game_id: int, *, in_progress: bool = False) -> dict[str, Any]:
        """The engine's game record (`spades.engine.record.game_record`). Raises NotFound.

        It holds the master seed, so it raises GameInProgress until the game is over
        (finished, or its room abandoned), unless `in_progress` is True (a
        server-side caller that keeps the record to itself).
        """
        ...

    async def public_rooms(self) -> list[StoredRoom]:
        """Open public rooms with their seats (no game), oldest first, as decided by the
        database (rooms of every process); `rooms.lobby.lobby_entries` makes the lobby."""
        ...

    # --- players (guests; `spades.rooms.players` checks their secrets) ---------------

    async def create_player(self, player: PlayerRow) -> None:
        """Raises PlayerTaken (nothing stored) when the id is used."""
        ...

    async def get_player(self, player_id: str) -> PlayerRow: ...  # raises NotFound

    async def rename_player(self, player_id: str, name: str) -> None: ...  # raises NotFound

    async def update_player(
        self, player_id: str, *, name: str | None = None, public: bool | None = None
    ) -> None:
        """Set the name and whether the player's page is public, each when given, in one
        write. Raises NotFound."""
        ...

    async def player_rooms(self, player_id: str) -> list[StoredRoom]:
        """The unfinished rooms (open or playing) with a seat of the player, with their
        seats (no game), newest first."""
        ...

    async def player_games(
        self, player_id: str, *, before: int | None = None, limit: int = 20
    ) -> list[PlayerGame]:
        """The finished games the player sat in when they were dealt, newest first (by
        game id), only those with an id below `before` when given, at most `limit`."""
        ...

    async def player_stats(self, player_id: str) -> dict[str, Counts]:
        """The player's statistics by mode ("partnership", "individual"), summed over the
        finished games they were dealt into; a mode they never finished a game in is not
        there."""
        ...

    async def game_seat_players(self, game_id: int) -> list[str | None]:
        """Each seat's player when the game was dealt (None: unknown, a bot, nobody), in
        seat order; empty for a game dealt before players were recorded."""
        ...

    # --- accounts and sessions (`spades.rooms.players` checks the credentials) ----------

    async def player_by_username(self, username: str) -> PlayerRow:
        """The account with that username, compared lower-cased. Raises NotFound."""
        ...

    async def claim_account(self, player_id: str, username: str, password_hash: str) -> None:
        """Give a guest player (not deleted, no account yet) a username and a password, and
        revoke its guest secret, in one write. Raises UsernameTaken (nothing stored) when
        the username is used, NotFound when the player is unknown, deleted or has one."""
        ...

    async def set_password(
        self, player_id: str, password_hash: str, *, keep_session: str | None = None
    ) -> None:
        """A new password hash, and every session of the player but `keep_session` deleted,
        in one write. Raises NotFound."""
        ...

    async def delete_account(self, player_id: str, *, shown_as: str) -> None:
        """Delete an account in one write: its sessions, credentials and name go, and the
        seats, game seats and chat messages that named it say `shown_as` instead (the games
        stay). The row stays, emptied and marked deleted. Raises NotFound."""
        ...

    async def create_session(self, session: SessionRow) -> None:
        """Raises PlayerTaken when the id is used (nothing stored), NotFound when the
        player is unknown."""
        ...

    async def get_session(self, session_id: str) -> SessionRow: ...  # raises NotFound

    async def touch_session(self, session_id: str) -> None:
        """Its last use is now (a session unused for long lapses)."""
        ...

    async def delete_session(self, session_id: str) -> None: ...  # none: nothing to do

    async def delete_sessions(self, player_id: str, *, keep: str | None = None) -> int:
        """Delete every session of the player (but `keep`); how many were."""
        ...

    # --- passkeys (WebAuthn; the api layer checks them) ----------------------------------

    async def add_challenge(self, challenge: ChallengeRow) -> None: ...

    async def take_challenge(self, challenge_id: str, purpose: str) -> ChallengeRow:
        """The challenge, deleted as it is read (a challenge answers once). Raises NotFound
        (also for another purpose's: then it is left)."""
        ...

    async def add_passkey(self, passkey: PasskeyRow) -> None:
        """Raises PasskeyTaken (nothing stored) when its id is stored already, NotFound
        when the player is unknown or deleted."""
        ...

    async def get_passkey(self, passkey_id: str) -> PasskeyRow: ...  # raises NotFound

    async def player_passkeys(self, player_id: str) -> list[PasskeyRow]: ...

    async def use_passkey(self, passkey_id: str, sign_count: int) -> None:
        """Its counter after a sign-in, and its last use now."""
        ...

    # --- moderation (store/moderation.py) --------------------------------------------------

    async def is_admin(self, player_id: str) -> bool: ...

    async def set_admin(self, player_id: str, admin: bool) -> bool:
        """Grant or revoke the administrator role (audited); whether anything changed.
        Raises NotFound for an unknown or deleted player."""
        ...

    async def add_report(self, report: ReportRow) -> int: ...  # the report's id

    async def reports(self, *, include_closed: bool = False, limit: int = 100) -> list[ReportRow]:
        """The newest reports first."""
        ...

    async def close_report(self, report_id: int, actor_id: str | None) -> None:
        """Mark it dealt with (audited); raises NotFound."""
        ...

    async def add_sanction(self, sanction: SanctionRow) -> int:
        """Store a mute or ban (audited, by `created_by`); its id. NotFound for an unknown
        player."""
        ...

    async def lift_sanction(self, sanction_id: int, actor_id: str | None) -> None:
        """End it now (audited); raises NotFound when there is no such sanction in force."""
        ...

    async def sanctions(self, *, in_force_at: datetime | None = None) -> list[SanctionRow]:
        """Every sanction (newest first), or only those in force at `in_force_at`."""
        ...

    async def sanctions_in_force(self, player_id: str | None, at: datetime) -> list[SanctionRow]:
        """The sanctions in force at `at` that may apply: the player's own, and every
        address range's (the caller matches the address)."""
        ...

    async def audit(
        self, actor_id: str | None, action: str, target: str | None, detail: dict[str, Any]
    ) -> None: ...

    async def audit_log(self, *, limit: int = 100, before: int | None = None) -> list[AuditRow]:
        """The newest entries first (ids below `before`, when given)."""
        ...

    async def player_names(self, player_ids: Collection[str]) -> dict[str, str]:
        """What to call each player for an administrator: the display name, with the
        account's username in brackets when it differs; a player with neither is left
        out, as is an unknown id."""
        ...

    async def player_mutes(self, player_id: str) -> list[str]: ...  # the ids they muted

    async def set_player_mute(self, player_id: str, muted_id: str, muted: bool) -> None:
        """Raises NotFound when the player to mute does not exist."""
        ...

    async def chat_message(self, room_id: str, at: datetime, seat: int | None) -> ChatRow:
        """The room's stored message said at `at` (to the millisecond) from `seat`; raises
        NotFound."""
        ...

    async def room_mutes(self, room_id: str) -> list[str]:
        """The subjects the room's host muted (`rooms.moderation.RoomMutes.key`)."""
        ...

    async def set_room_mute(
        self, room_id: str, subject: str, muted: bool, *, fence: int | None = None
    ) -> None:
        """Mute (or unmute) `subject` in the room; an owner write (fenced). Raises NotFound
        for an unknown room."""
        ...

    async def purge_abandoned(self, older_than: timedelta) -> int:
        """Delete what rooms abandoned longer than `older_than` leave that nobody needs
        again; a room's finished games (and their logs and hands) are kept, and its row and
        seats with them, so its history and records still answer. The count of rooms
        deleted or emptied."""
        ...

    async def ping(self) -> bool: ...  # database reachable (for /readyz)

    async def close(self) -> None: ...


__all__ = [
    "ActionRow",
    "AuditRow",
    "ChallengeRow",
    "ChatRow",
    "CodeTaken",
    "FencedOut",
    "FinishedGame",
    "GameInProgress",
    "GameRow",
    "HandRow",
    "LeaderRow",
    "NotFound",
    "PasskeyRow",
    "PasskeyTaken",
    "PlayerGame",
    "PlayerRow",
    "PlayerTaken",
    "QueueFacts",
    "RatingChangeRow",
    "ReportRow",
    "RoomRow",
    "RoomStatus",
    "SanctionKind",
    "SanctionRow",
    "SeatRow",
    "SequenceError",
    "SessionRow",
    "StorageUnavailable",
    "Store",
    "StoreError",
    "StoredRating",
    "StoredRoom",
    "UsernameTaken",
]
