"""accounts: an optional username and password on a player, and sign-in sessions

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06 16:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMNs (no batch mode: rebuilding `players` with foreign keys on would set
    # every seat's and game seat's player to null). Every existing player stays a guest.
    op.add_column("players", sa.Column("username", sa.String(length=32), nullable=True))
    # The username as compared (lower case): unique, so two accounts can never differ only
    # by case; null for every guest (a unique index lets many nulls through).
    op.add_column("players", sa.Column("username_key", sa.String(length=32), nullable=True))
    op.add_column("players", sa.Column("password_hash", sa.String(length=256), nullable=True))
    op.add_column("players", sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index(op.f("ix_players_username_key"), "players", ["username_key"], unique=True)
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("secret_hash", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_agent", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_sessions_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
    )
    op.create_index(op.f("ix_sessions_player_id"), "sessions", ["player_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_sessions_player_id"), table_name="sessions")
    op.drop_table("sessions")
    op.drop_index(op.f("ix_players_username_key"), table_name="players")
    # Plain DROP COLUMNs, for the reason `upgrade` adds them plainly (SQLite 3.35 and later).
    op.drop_column("players", "deleted_at")
    op.drop_column("players", "password_hash")
    op.drop_column("players", "username_key")
    op.drop_column("players", "username")
