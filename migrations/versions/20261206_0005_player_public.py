"""player_public: whether a player's page is shown to others (private unless they choose)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06 15:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Players made before this never chose to be shown to strangers: private.
    op.add_column(
        "players",
        sa.Column("public", sa.Boolean(), server_default=sa.false(), nullable=False),
    )


def downgrade() -> None:
    # A plain ALTER TABLE ... DROP COLUMN (SQLite has it since 3.35): batch mode would
    # rebuild the table, and dropping the old one with foreign keys on would set every
    # seat's and game seat's player to null.
    op.drop_column("players", "public")
