"""drop seats.connected_since: never set (a seat's presence lives in the room, not the store)

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 02:15:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("connected_since")


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("connected_since", sa.DateTime(timezone=True), nullable=True))
