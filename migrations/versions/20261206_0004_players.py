"""players: a guest player per device, the player of each seat, and who sat in each game

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-06 14:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("secret_hash", sa.String(length=128), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    # batch mode: SQLite rebuilds the table to add a column with a foreign key. Seats of
    # rooms made before this have no player (null), as a client that names none gets.
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("player_id", sa.String(length=32), nullable=True))
        batch.create_foreign_key(
            op.f("fk_seats_player_id_players"),
            "players",
            ["player_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch.create_index(op.f("ix_seats_player_id"), ["player_id"])
    # Games dealt before this have no rows here: nobody is known to have sat in them.
    op.create_table(
        "game_seats",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("name", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_seats_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_game_seats_player_id_players"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_seats")),
    )
    op.create_index(op.f("ix_game_seats_player_id"), "game_seats", ["player_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_game_seats_player_id"), table_name="game_seats")
    op.drop_table("game_seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_index(op.f("ix_seats_player_id"))
        batch.drop_constraint(op.f("fk_seats_player_id_players"), type_="foreignkey")
        batch.drop_column("player_id")
    op.drop_table("players")
