"""accounts: an optional username and password on a player, passkeys, sign-in sessions

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
    # A passkey (WebAuthn credential) of an account: its id and public key, base64url.
    op.create_table(
        "passkeys",
        sa.Column("id", sa.String(length=255), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_passkeys_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_passkeys")),
    )
    op.create_index(op.f("ix_passkeys_player_id"), "passkeys", ["player_id"])
    # A WebAuthn challenge between its options and the answer (any process may get either).
    op.create_table(
        "auth_challenges",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("challenge", sa.String(length=128), nullable=False),
        sa.Column("purpose", sa.String(length=16), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_auth_challenges")),
    )


def downgrade() -> None:
    op.drop_table("auth_challenges")
    op.drop_index(op.f("ix_passkeys_player_id"), table_name="passkeys")
    op.drop_table("passkeys")
    op.drop_index(op.f("ix_sessions_player_id"), table_name="sessions")
    op.drop_table("sessions")
    op.drop_index(op.f("ix_players_username_key"), table_name="players")
    # Plain DROP COLUMNs, for the reason `upgrade` adds them plainly (SQLite 3.35 and later).
    op.drop_column("players", "deleted_at")
    op.drop_column("players", "password_hash")
    op.drop_column("players", "username_key")
    op.drop_column("players", "username")
