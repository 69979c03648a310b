"""The wire models of moderation (routers/moderation.py): reports, mutes, sanctions, the
audit log."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from spades.rooms.settings import CHAT_LENGTH

REASON_LENGTH = 500
MAX_MINUTES = 60 * 24 * 365 * 10  # ten years: longer is "for good" in all but name


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReportIn(_Strict):
    """A report of the player in a seat of a room, or of one of their chat messages."""

    room: str = Field(min_length=1, max_length=16, description="the room's code")
    seat: int | None = Field(
        None, ge=0, le=3, description="the reported player's seat (null: a spectator's message)"
    )
    message_at: int | None = Field(
        None, ge=0, description="the reported chat message's `at` (epoch ms), as received"
    )
    game_id: int | None = Field(None, ge=0, description="the game the room was at")
    seq: int | None = Field(None, ge=0, description="the game's seq when reported")
    reason: str = Field(min_length=1, max_length=REASON_LENGTH)


class ReportCreated(BaseModel):
    id: int


class ReportOut(BaseModel):
    id: int
    at: datetime
    reporter_id: str | None
    player_id: str | None = Field(description="the reported player (null: none known)")
    room: str | None
    game_id: int | None
    seq: int | None
    seat: int | None
    name: str | None = Field(description="the name the reported one had in the room")
    message: str | None = Field(description="the reported chat message, as stored")
    message_at: datetime | None
    reason: str
    closed_at: datetime | None
    reporter_name: str | None = Field(None, description="the reporter's name now (and username)")
    player_name: str | None = Field(None, description="the reported player's name now")
    context: list[dict[str, Any]] = Field(
        default_factory=list, description="the room's last chat messages (if the room is kept)"
    )


class ReportList(BaseModel):
    reports: list[ReportOut]


class Mutes(BaseModel):
    muted: list[str] = Field(description="the ids of the players whose chat you hide")


class SanctionIn(_Strict):
    """A mute or ban of one player or of an address range (exactly one of the two)."""

    kind: Literal["mute", "ban"]
    player_id: str | None = Field(None, max_length=32)
    network: str | None = Field(
        None, max_length=64, description="an address range in CIDR (203.0.113.0/24, 2001:db8::/32)"
    )
    reason: str = Field(min_length=1, max_length=REASON_LENGTH)
    minutes: int = Field(ge=1, le=MAX_MINUTES, description="how long it lasts from now")


class SanctionOut(BaseModel):
    id: int
    kind: Literal["mute", "ban"]
    player_id: str | None
    network: str | None
    reason: str
    created_at: datetime | None
    ends_at: datetime
    created_by: str | None
    lifted_at: datetime | None
    player_name: str | None = Field(None, description="the player's name (and username)")
    created_by_name: str | None = Field(None, description="the administrator's name")


class SanctionList(BaseModel):
    sanctions: list[SanctionOut]


class CloseRoomIn(_Strict):
    reason: str = Field(min_length=1, max_length=CHAT_LENGTH)


class AuditOut(BaseModel):
    id: int
    at: datetime
    actor_id: str | None = Field(description="the administrator (null: the command line)")
    action: str
    target: str | None
    detail: dict[str, Any]
    actor_name: str | None = Field(None, description="the administrator's name")
    target_name: str | None = Field(None, description="the target's name, when it is a player")


class AuditLog(BaseModel):
    entries: list[AuditOut]
