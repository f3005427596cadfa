"""records say how their runs were timed (warm or cold caches)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 01:20:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision: records stored before it were timed warm."""
    with op.batch_alter_table("records") as batch:
        batch.add_column(
            sa.Column("timing", sa.String(length=8), server_default="warm", nullable=False)
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("records") as batch:
        batch.drop_column("timing")
