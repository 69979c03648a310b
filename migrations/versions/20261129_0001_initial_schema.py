"""initial schema: rooms, seats, games, the action log, hand summaries, chat

Revision ID: 0001
Revises:
Create Date: 2026-11-29 23:04:36
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("host_seat", sa.Integer(), nullable=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.Column("updated_at", UTC_TIME, nullable=False),
        sa.CheckConstraint(
            "status IN ('open', 'playing', 'finished', 'abandoned')",
            name=op.f("ck_rooms_status"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rooms")),
        sa.UniqueConstraint("code", name=op.f("uq_rooms_code")),
    )
    op.create_index("ix_rooms_status_updated_at", "rooms", ["status", "updated_at"])

    op.create_table(
        "seats",
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=True),
        sa.Column("bot_level", sa.String(length=16), nullable=True),
        sa.Column("token_hash", sa.String(length=128), nullable=True),
        sa.Column("connected_since", UTC_TIME, nullable=True),
        sa.CheckConstraint("seat BETWEEN 0 AND 3", name=op.f("ck_seats_seat")),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_seats_room_id_rooms"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("room_id", "seat", name=op.f("pk_seats")),
    )

    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("first_dealer", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(length=128), nullable=False),
        sa.Column("started_at", UTC_TIME, nullable=False),
        sa.Column("finished_at", UTC_TIME, nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("final_scores", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_games_room_id_rooms"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index(op.f("ix_games_room_id"), "games", ["room_id"])

    op.create_table(
        "actions",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_actions_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_actions")),
    )

    op.create_table(
        "hands",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("hand_number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("bids", sa.JSON(), nullable=True),
        sa.Column("tricks", sa.JSON(), nullable=True),
        sa.Column("points", sa.JSON(), nullable=True),
        sa.Column("bags", sa.JSON(), nullable=True),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_hands_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "hand_number", name=op.f("pk_hands")),
    )

    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["room_id"],
            ["rooms.id"],
            name=op.f("fk_chat_messages_room_id_rooms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_messages")),
    )
    op.create_index("ix_chat_messages_room_id_id", "chat_messages", ["room_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_chat_messages_room_id_id", table_name="chat_messages")
    op.drop_table("chat_messages")
    op.drop_table("hands")
    op.drop_table("actions")
    op.drop_index(op.f("ix_games_room_id"), table_name="games")
    op.drop_table("games")
    op.drop_table("seats")
    op.drop_index("ix_rooms_status_updated_at", table_name="rooms")
    op.drop_table("rooms")
