"""moderation: administrators, reports, sanctions (mutes and bans of a player or an address
range), players' own mutes, and the audit log

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06 17:00:00

"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sa.DateTime(timezone=True)


def _player(column: str, table: str, ondelete: str, nullable: bool = True) -> list[Any]:
    return [
        sa.Column(column, sa.String(length=32), nullable=nullable),
        sa.ForeignKeyConstraint(
            [column], ["players.id"], name=op.f(f"fk_{table}_{column}_players"), ondelete=ondelete
        ),
    ]


def upgrade() -> None:
    op.create_table(
        "admins",
        *_player("player_id", "admins", "CASCADE", nullable=False),
        sa.Column("granted_at", WHEN, nullable=False),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_admins")),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", WHEN, nullable=False),
        *_player("reporter_id", "reports", "SET NULL"),
        *_player("player_id", "reports", "SET NULL"),
        sa.Column("room_code", sa.String(length=16), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("seq", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=64), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("message_at", WHEN, nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("closed_at", WHEN, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reports")),
    )
    op.create_index(op.f("ix_reports_at"), "reports", ["at"])
    op.create_index(op.f("ix_reports_player_id"), "reports", ["player_id"])
    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        *_player("player_id", "sanctions", "CASCADE"),
        sa.Column("network", sa.String(length=64), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("ends_at", WHEN, nullable=False),
        *_player("created_by", "sanctions", "SET NULL"),
        sa.Column("lifted_at", WHEN, nullable=True),
        sa.CheckConstraint("kind IN ('mute', 'ban')", name=op.f("ck_sanctions_kind")),
        sa.CheckConstraint(
            "player_id IS NOT NULL OR network IS NOT NULL", name=op.f("ck_sanctions_target")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sanctions")),
    )
    op.create_index(op.f("ix_sanctions_player_id"), "sanctions", ["player_id"])
    op.create_index(op.f("ix_sanctions_ends_at"), "sanctions", ["ends_at"])
    op.create_table(
        "player_mutes",
        *_player("player_id", "player_mutes", "CASCADE", nullable=False),
        *_player("muted_id", "player_mutes", "CASCADE", nullable=False),
        sa.PrimaryKeyConstraint("player_id", "muted_id", name=op.f("pk_player_mutes")),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", WHEN, nullable=False),
        *_player("actor_id", "audit_log", "SET NULL"),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("target", sa.String(length=128), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index(op.f("ix_audit_log_at"), "audit_log", ["at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_audit_log_at"), table_name="audit_log")
    op.drop_table("audit_log")
    op.drop_table("player_mutes")
    op.drop_index(op.f("ix_sanctions_ends_at"), table_name="sanctions")
    op.drop_index(op.f("ix_sanctions_player_id"), table_name="sanctions")
    op.drop_table("sanctions")
    op.drop_index(op.f("ix_reports_player_id"), table_name="reports")
    op.drop_index(op.f("ix_reports_at"), table_name="reports")
    op.drop_table("reports")
    op.drop_table("admins")
