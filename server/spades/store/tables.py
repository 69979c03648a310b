"""The tables as SQLAlchemy Core sees them, and the mapping of their rows to `protocol`'s."""

from __future__ import annotations

import marshal
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Table

from .models import (
    ActionModel,
    AdminModel,
    AuditModel,
    ChallengeModel,
    ChatModel,
    GameModel,
    GameResultModel,
    GameSeatModel,
    HandModel,
    PasskeyModel,
    PlayerModel,
    PlayerMuteModel,
    PlayerRatingModel,
    PlayerStatsModel,
    RatingChangeModel,
    ReportModel,
    RoomModel,
    RoomMuteModel,
    SanctionModel,
    SeatModel,
    SessionModel,
)
from .protocol import ActionRow, GameRow, PlayerRow, RoomRow, RoomStatus, SeatRow, SessionRow

ROOMS = cast(Table, RoomModel.__table__)
SEATS = cast(Table, SeatModel.__table__)
GAMES = cast(Table, GameModel.__table__)
ACTIONS = cast(Table, ActionModel.__table__)
HANDS = cast(Table, HandModel.__table__)
CHAT = cast(Table, ChatModel.__table__)
PLAYERS = cast(Table, PlayerModel.__table__)
GAME_SEATS = cast(Table, GameSeatModel.__table__)
GAME_RESULTS = cast(Table, GameResultModel.__table__)
PLAYER_STATS = cast(Table, PlayerStatsModel.__table__)
PLAYER_RATINGS = cast(Table, PlayerRatingModel.__table__)
RATING_CHANGES = cast(Table, RatingChangeModel.__table__)
SESSIONS = cast(Table, SessionModel.__table__)
PASSKEYS = cast(Table, PasskeyModel.__table__)
CHALLENGES = cast(Table, ChallengeModel.__table__)
ADMINS = cast(Table, AdminModel.__table__)
REPORTS = cast(Table, ReportModel.__table__)
SANCTIONS = cast(Table, SanctionModel.__table__)
PLAYER_MUTES = cast(Table, PlayerMuteModel.__table__)
AUDIT = cast(Table, AuditModel.__table__)
ROOM_MUTES = cast(Table, RoomMuteModel.__table__)

UNFINISHED: tuple[RoomStatus, ...] = ("open", "playing")


def chunks(items: Sequence[Any], size: int = 500) -> Iterable[Sequence[Any]]:
    """`items` in slices under SQLite's limit on a statement's parameters."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def utc(value: datetime) -> datetime:
    """As UTCDateTime binds it on PostgreSQL: aware, in UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def chat_ms(at: datetime) -> int:
    """A chat message's time in epoch ms, the same for the live message and the stored one
    (clients match the two after a reconnect)."""
    return round(utc(at).timestamp() * 1000)


def marshals(value: Any) -> bool:
    """Whether a writer process's wire (marshal, `sqlite_log.frame`) can carry `value`."""
    try:
        marshal.dumps(value)
    except ValueError:
        return False
    return True


def seat_values(seat: SeatRow, room_id: str) -> dict[str, Any]:
    return {
        "room_id": room_id,
        "seat": seat.seat,
        "name": seat.name,
        "bot_level": seat.bot_level,
        "token_hash": seat.token_hash,
        "player_id": seat.player_id,
    }


def room_row(r: Any) -> RoomRow:
    return RoomRow(
        id=r.id,
        code=r.code,
        settings=r.settings,
        host_seat=r.host_seat,
        status=r.status,
        created_at=r.created_at,
        updated_at=r.updated_at,
    )


def seat_row(s: Any) -> SeatRow:
    return SeatRow(
        room_id=s.room_id,
        seat=s.seat,
        name=s.name,
        bot_level=s.bot_level,
        token_hash=s.token_hash,
        player_id=s.player_id,
    )


def player_row(p: Any) -> PlayerRow:
    return PlayerRow(
        id=p.id,
        secret_hash=p.secret_hash,
        name=p.name,
        created_at=p.created_at,
        public=bool(p.public),
        username=p.username,
        password_hash=p.password_hash,
        deleted_at=p.deleted_at,
    )


def session_row(s: Any) -> SessionRow:
    return SessionRow(
        id=s.id,
        player_id=s.player_id,
        secret_hash=s.secret_hash,
        created_at=s.created_at,
        last_used_at=s.last_used_at,
        user_agent=s.user_agent,
    )


def game_row(g: Any) -> GameRow:
    return GameRow(
        id=g.id,
        room_id=g.room_id,
        rules=g.rules,
        first_dealer=g.first_dealer,
        seed=g.seed,
        started_at=g.started_at,
        finished_at=g.finished_at,
        winner=g.winner,
        final_scores=g.final_scores,
    )


def action_row(a: Any) -> ActionRow:
    return ActionRow(game_id=a.game_id, seq=a.seq, seat=a.seat, action=a.action, at=a.at)
