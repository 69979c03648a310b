"""player_stats: each finished game's statistics per seat with a player, and each
player's totals per mode, kept in the transaction that finishes a game

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06 16:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# engine.stats.COUNTERS, written out: a migration keeps the schema of its day.
COUNTERS = (
    "games",
    "won",
    "hands",
    "contracts_bid",
    "contracts_made",
    "sets",
    "nils_bid",
    "nils_made",
    "blind_nils_bid",
    "blind_nils_made",
    "bags",
    "points",
)


def _counters() -> list[sa.Column[int]]:
    return [sa.Column(name, sa.Integer(), nullable=False) for name in COUNTERS]


def upgrade() -> None:
    # Games finished before this have no rows: their statistics start from zero.
    op.create_table(
        "game_results",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("mode", sa.String(length=16), nullable=False),
        *_counters(),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_results_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_game_results_player_id_players"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_results")),
    )
    op.create_index(op.f("ix_game_results_player_id"), "game_results", ["player_id"])
    op.create_table(
        "player_stats",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        *_counters(),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_stats_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "mode", name=op.f("pk_player_stats")),
    )


def downgrade() -> None:
    op.drop_table("player_stats")
    op.drop_index(op.f("ix_game_results_player_id"), table_name="game_results")
    op.drop_table("game_results")
