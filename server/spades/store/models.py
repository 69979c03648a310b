"""SQLAlchemy 2 models of the event-sourced store.

The tables mirror ../protocol.py rows. Times are stored as UTC; `UTCDateTime` hands back
timezone-aware values on every database (SQLite keeps no zone of its own).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Stable constraint names, so migrations can name what they alter or drop.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            # SQLite compares the stored text, so every value must be written the same way.
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class RoomModel(Base):
    __tablename__ = "rooms"
    __table_args__ = (
        CheckConstraint("status IN ('open', 'playing', 'finished', 'abandoned')", name="status"),
        Index("ix_rooms_status_updated_at", "status", "updated_at"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    code: Mapped[str] = mapped_column(String(32), unique=True)
    host_seat: Mapped[int | None] = mapped_column(Integer)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The fencing number of the room's latest owner (cluster mode; 0 when never claimed).
    # A write carrying an older number is refused (see SqlStore.claim_room).
    fence: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class PlayerModel(Base):
    """A player: a guest made on a device's first visit. Its secret is kept only as a hash,
    as a seat token is. `public`: whether others may see the player's page; a guest never
    chose to be shown to strangers, so a player is private until they say otherwise."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    secret_hash: Mapped[str] = mapped_column(String(128))
    name: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    public: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # An account (optional): a username (as typed, and lower-cased for comparing: unique)
    # and an argon2id password hash. A player with an account has no guest secret left
    # (`secret_hash` ""): it is reached through sessions only.
    username: Mapped[str | None] = mapped_column(String(32))
    username_key: Mapped[str | None] = mapped_column(String(32), unique=True, index=True)
    password_hash: Mapped[str | None] = mapped_column(String(256))
    # A deleted account: its row stays (games name it as "a deleted player"), emptied.
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class SessionModel(Base):
    """A signed-in browser: the hash of the secret its cookie holds. Deleted on sign-out
    (or when its player signs out everywhere, changes password or deletes the account)."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    secret_hash: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_used_at: Mapped[datetime] = mapped_column(UTCDateTime)
    user_agent: Mapped[str | None] = mapped_column(String(200))


class PasskeyModel(Base):
    """A passkey (WebAuthn credential) of an account: its id and public key (base64url)
    and the authenticator's signature counter."""

    __tablename__ = "passkeys"

    id: Mapped[str] = mapped_column(String(255), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    public_key: Mapped[str] = mapped_column(Text)
    sign_count: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ChallengeModel(Base):
    """A WebAuthn challenge handed out and not answered yet (used once, then deleted)."""

    __tablename__ = "auth_challenges"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    challenge: Mapped[str] = mapped_column(String(128))
    purpose: Mapped[str] = mapped_column(String(16))
    player_id: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SeatModel(Base):
    __tablename__ = "seats"
    __table_args__ = (CheckConstraint("seat BETWEEN 0 AND 3", name="seat"),)

    room_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    name: Mapped[str | None] = mapped_column(String(64))
    bot_level: Mapped[str | None] = mapped_column(String(16))
    token_hash: Mapped[str | None] = mapped_column(String(128))
    # The player who sits here (None: a bot, nobody, or a client that named no player).
    player_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL"), index=True
    )


class GameModel(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("rooms.id", ondelete="CASCADE"), index=True
    )
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    first_dealer: Mapped[int] = mapped_column(Integer)
    # The master seed every hand's deal seed derives from: server-side only.
    seed: Mapped[str] = mapped_column(String(128))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    winner: Mapped[int | None] = mapped_column(Integer)
    final_scores: Mapped[list[Any] | None] = mapped_column(JSON)


class GameSeatModel(Base):
    """Who sat where when a game was dealt (written with the game's row), so a player's
    games and a game's players stay true when the room's seats change hands later."""

    __tablename__ = "game_seats"

    game_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    player_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL"), index=True
    )
    name: Mapped[str | None] = mapped_column(String(64))


class ActionModel(Base):
    """The append-only log: (game_id, seq) is the primary key, so a sequence number is unique."""

    __tablename__ = "actions"

    game_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    seat: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class HandModel(Base):
    """One summary row per finished hand, for history screens."""

    __tablename__ = "hands"

    game_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    hand_number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    bids: Mapped[list[Any] | None] = mapped_column(JSON)
    tricks: Mapped[list[Any] | None] = mapped_column(JSON)
    points: Mapped[list[Any] | None] = mapped_column(JSON)
    bags: Mapped[list[Any] | None] = mapped_column(JSON)
    summary: Mapped[dict[str, Any]] = mapped_column(JSON)


class ChatModel(Base):
    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_room_id_id", "room_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[str] = mapped_column(String(64), ForeignKey("rooms.id", ondelete="CASCADE"))
    seat: Mapped[int | None] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The speaker's player when known (a seat's, or a spectator who named theirs); what a
    # report of the message names. No foreign key: players are emptied, never deleted.
    player_id: Mapped[str | None] = mapped_column(String(32))


class GameResultModel(Base):
    """A finished game's statistics of one seat with a player (`engine.stats.Counts`),
    written in the transaction that finishes the game. Its key says the game was counted
    in its player's totals: a second finish of the game adds nothing."""

    __tablename__ = "game_results"

    game_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    player_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL"), index=True
    )
    mode: Mapped[str] = mapped_column(String(16))
    games: Mapped[int] = mapped_column(Integer)
    won: Mapped[int] = mapped_column(Integer)
    hands: Mapped[int] = mapped_column(Integer)
    contracts_bid: Mapped[int] = mapped_column(Integer)
    contracts_made: Mapped[int] = mapped_column(Integer)
    sets: Mapped[int] = mapped_column(Integer)
    nils_bid: Mapped[int] = mapped_column(Integer)
    nils_made: Mapped[int] = mapped_column(Integer)
    blind_nils_bid: Mapped[int] = mapped_column(Integer)
    blind_nils_made: Mapped[int] = mapped_column(Integer)
    bags: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)


class PlayerStatsModel(Base):
    """A player's statistics per mode: the sum of their `game_results` rows, kept up to
    date by the statement that finishes each game."""

    __tablename__ = "player_stats"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    mode: Mapped[str] = mapped_column(String(16), primary_key=True)
    games: Mapped[int] = mapped_column(Integer)
    won: Mapped[int] = mapped_column(Integer)
    hands: Mapped[int] = mapped_column(Integer)
    contracts_bid: Mapped[int] = mapped_column(Integer)
    contracts_made: Mapped[int] = mapped_column(Integer)
    sets: Mapped[int] = mapped_column(Integer)
    nils_bid: Mapped[int] = mapped_column(Integer)
    nils_made: Mapped[int] = mapped_column(Integer)
    blind_nils_bid: Mapped[int] = mapped_column(Integer)
    blind_nils_made: Mapped[int] = mapped_column(Integer)
    bags: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)


class PlayerRatingModel(Base):
    """A player's OpenSkill rating per mode (docs/rules.md "Ratings"): `mu` and `sigma`,
    the rated games counted and a version bumped by each. Changed only by the statement
    that finishes a rated game, by each `rating_changes` row it inserts."""

    __tablename__ = "player_ratings"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    mode: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class RatingChangeModel(Base):
    """One seat's rating change by one finished rated game (before and after, its weight,
    whether its player quit). Its key says the game was rated: a second finish changes
    nothing."""

    __tablename__ = "rating_changes"
    __table_args__ = (Index("ix_rating_changes_player_id_mode", "player_id", "mode"),)

    game_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    player_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL")
    )
    mode: Mapped[str] = mapped_column(String(16))
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    weight: Mapped[float] = mapped_column(Float)
    quit: Mapped[bool] = mapped_column(Boolean)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


metadata = Base.metadata


# --- moderation (store/moderation.py) ------------------------------------------------------


class AdminModel(Base):
    """A player with the administrator role (`spades admin grant USERNAME`)."""

    __tablename__ = "admins"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    granted_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ReportModel(Base):
    """A player's report of another player or of one chat message (its text, room, and
    the game and seq the room was at, copied so the report outlives the room)."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    reporter_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL")
    )
    player_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL"), index=True
    )
    room_code: Mapped[str | None] = mapped_column(String(16))
    game_id: Mapped[int | None] = mapped_column(Integer)
    seq: Mapped[int | None] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer)
    name: Mapped[str | None] = mapped_column(String(64))
    message: Mapped[str | None] = mapped_column(Text)
    message_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    reason: Mapped[str] = mapped_column(Text)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class SanctionModel(Base):
    """A mute (no chat) or a ban (no seat, no chat, no room) of a player or of an address
    range (CIDR), until `ends_at` unless lifted earlier."""

    __tablename__ = "sanctions"
    __table_args__ = (
        CheckConstraint("kind IN ('mute', 'ban')", name="kind"),
        CheckConstraint("player_id IS NOT NULL OR network IS NOT NULL", name="target"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(8))
    player_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    network: Mapped[str | None] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    created_by: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL")
    )
    lifted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class PlayerMuteModel(Base):
    """A player's own mute of another player's chat (for themselves only)."""

    __tablename__ = "player_mutes"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    muted_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )


class AuditModel(Base):
    """Who did what, as an administrator (or the command line: no actor)."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    actor_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL")
    )
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str | None] = mapped_column(String(128))
    detail: Mapped[str] = mapped_column(Text)


class RoomMuteModel(Base):
    """A host's mute of a speaker's chat in their room (`mute`), kept with the room so a
    restart or a move to another process keeps it. `subject`: `player:ID`, or `name:NAME`
    for a seat without a player (rooms.moderation.RoomMutes.key)."""

    __tablename__ = "room_mutes"

    room_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    subject: Mapped[str] = mapped_column(String(80), primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime)
