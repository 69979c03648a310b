"""ratings: each player's OpenSkill rating per mode, and each rated game's change per
seat, written in the transaction that finishes the game

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 17:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Games finished before this are not rated: every rating starts at the default.
    op.create_table(
        "player_ratings",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_ratings_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "mode", name=op.f("pk_player_ratings")),
    )
    op.create_table(
        "rating_changes",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("quit", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_rating_changes_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_rating_changes_player_id_players"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_rating_changes")),
    )
    op.create_index(
        "ix_rating_changes_player_id_mode", "rating_changes", ["player_id", "mode"]
    )


def downgrade() -> None:
    op.drop_index("ix_rating_changes_player_id_mode", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("player_ratings")
