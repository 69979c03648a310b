"""The rows the Store protocol (protocol.py) answers with and takes: plain frozen data.

Apart so that protocol.py holds the protocol itself; protocol.py re-exports every name
here, and the rooms layer keeps importing them from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

RoomStatus = Literal["open", "playing", "finished", "abandoned"]


@dataclass
class RoomRow:
    id: str  # public room id (URL-safe)
    code: str  # short join code people type
    settings: dict[str, Any]  # the room's settings (rules, timers, bot level, public...)
    host_seat: int | None = None
    status: RoomStatus = "open"
    created_at: datetime | None = None
    updated_at: datetime | None = None


@dataclass
class SeatRow:
    room_id: str
    seat: int  # 0..3
    name: str | None = None  # display name; None for an empty seat
    bot_level: str | None = None  # set for a bot seat; None for a human or empty seat
    token_hash: str | None = None  # hash of the seat token (never the token itself)
    player_id: str | None = None  # the player who sits here, when the client named one


@dataclass
class PlayerRow:
    id: str  # public: a player's page and games are found by it
    secret_hash: str  # hash of the player's secret (never the secret itself)
    name: str | None = None
    created_at: datetime | None = None
    public: bool = False  # whether others may see the player's page (private by default)
    username: str | None = None  # set once the player claimed an account
    password_hash: str | None = None  # argon2id (never the password itself)
    deleted_at: datetime | None = None  # a deleted account: no name, no credential left

    @property
    def has_account(self) -> bool:
        return self.username is not None


@dataclass
class SessionRow:
    """A signed-in browser of an account (its cookie holds the id and the secret)."""

    id: str
    player_id: str
    secret_hash: str  # hash of the session's secret (never the secret itself)
    created_at: datetime
    last_used_at: datetime
    user_agent: str | None = None


@dataclass
class PasskeyRow:
    """A passkey of an account (a WebAuthn credential), its id and key base64url."""

    id: str
    player_id: str
    public_key: str
    sign_count: int
    created_at: datetime
    last_used_at: datetime | None = None


@dataclass
class ChallengeRow:
    """A WebAuthn challenge (base64url) handed out for `purpose`, for `player_id` if any."""

    id: str
    challenge: str
    purpose: str
    player_id: str | None
    created_at: datetime


SanctionKind = Literal["mute", "ban"]


@dataclass
class SanctionRow:
    """A mute (no chat) or a ban (no seat, no chat, no room) of a player or of an address
    range (`network`, CIDR text), from `created_at` until `ends_at` unless lifted."""

    kind: SanctionKind
    reason: str
    ends_at: datetime
    player_id: str | None = None
    network: str | None = None
    created_at: datetime | None = None
    created_by: str | None = None  # the administrator's player id
    lifted_at: datetime | None = None
    id: int | None = None  # given by the store


@dataclass
class ReportRow:
    """A report of a player (or one of their chat messages), with the context copied."""

    reporter_id: str | None
    reason: str
    player_id: str | None = None
    room_code: str | None = None
    game_id: int | None = None
    seq: int | None = None
    seat: int | None = None
    name: str | None = None
    message: str | None = None
    message_at: datetime | None = None
    at: datetime | None = None
    closed_at: datetime | None = None
    id: int | None = None


@dataclass
class AuditRow:
    """One thing an administrator did (actor None: the command line)."""

    action: str
    actor_id: str | None
    target: str | None
    detail: dict[str, Any]
    at: datetime | None = None
    id: int | None = None


@dataclass
class ChatRow:
    """A stored chat message of a room (what a report copies)."""

    seat: int | None
    name: str
    text: str
    at: datetime
    player_id: str | None = None  # the speaker's player, when known


@dataclass
class PlayerGame:
    """A finished game a player sat in, as their page lists it."""

    game_id: int
    room_code: str
    room_settings: dict[str, Any]  # (a private room's code is never shown: `public`)
    seat: int
    winner: int | None
    final_scores: list[int] | None
    rules: dict[str, Any]
    started_at: datetime | None
    finished_at: datetime | None
    players: list[dict[str, Any]]  # each seat's {"seat", "name", "player_id"} at the deal


@dataclass
class ActionRow:
    game_id: int
    seq: int  # 1, 2, 3 ... per game, no gaps
    seat: int | None  # None for system actions (time_up)
    action: dict[str, Any]
    at: datetime | None = None


@dataclass
class GameRow:
    id: int
    room_id: str
    rules: dict[str, Any]
    first_dealer: int
    # The secret master seed: never sent to a client before the game is over, and kept
    # out of repr() so a logged row cannot leak it.
    seed: str = field(repr=False)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    winner: int | None = None
    final_scores: list[int] | None = None


@dataclass
class HandRow:
    game_id: int
    hand_number: int
    summary: dict[str, Any]  # the engine's per-hand history entry (bids, tricks, points, ...)


@dataclass
class StoredRoom:
    """An unfinished room as loaded on start-up: enough to rebuild its actor."""

    room: RoomRow
    seats: list[SeatRow]
    game: GameRow | None = None  # the unfinished game, if one is in progress
    actions: list[ActionRow] = field(default_factory=list)  # that game's log, in order
    # The numbers of that game's hands whose rows are stored: a crash between an action
    # that ended a hand and the hand's row leaves one out, for the reload to write.
    hands: list[int] = field(default_factory=list)


@dataclass
class FinishedGame:
    game: GameRow
    hands: list[HandRow]


@dataclass(frozen=True)
class StoredRating:
    """A player's OpenSkill rating in one mode and the rated games it counts."""

    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class QueueFacts:
    """What quick play checks before it queues a player, read at once."""

    rated_games: list[str]  # rated rooms whose game is being played with a seat of theirs
    last_quit: datetime | None  # the end of the last rated game they left before its end
    rating: StoredRating | None  # in the mode asked for (None: never rated in it)


@dataclass(frozen=True)
class RatingChangeRow:
    """One rated game's change of one player's rating."""

    game_id: int
    mode: str
    at: datetime
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    weight: float
    quit: bool


@dataclass(frozen=True)
class LeaderRow:
    rank: int
    player_id: str
    name: str | None
    public: bool
    rating: StoredRating
