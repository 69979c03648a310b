"""room mutes: the host's mutes of a room, kept with the room (they survive a restart and a
move to another process); each chat message's player, when its speaker was known

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06 18:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Mutes made before this were kept in memory only, and are gone: the hosts mute again.
    op.create_table(
        "room_mutes",
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("subject", sa.String(length=80), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_room_mutes_room_id_rooms"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("room_id", "subject", name=op.f("pk_room_mutes")),
    )
    # No foreign key (a plain column: no rebuild of a big table on SQLite); players are
    # never deleted, only emptied. Messages said before this name no player.
    op.add_column("chat_messages", sa.Column("player_id", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat_messages") as batch:
        batch.drop_column("player_id")
    op.drop_table("room_mutes")
