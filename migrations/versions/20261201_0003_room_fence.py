"""rooms.fence: the fencing number of the room's latest owner (cluster mode)

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 02:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Existing rooms start at 0: any owner's first claim (fence >= 1) takes them.
    op.add_column(
        "rooms",
        sa.Column("fence", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
    )


def downgrade() -> None:
    # batch mode: SQLite rebuilds the table to drop a column.
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("fence")
