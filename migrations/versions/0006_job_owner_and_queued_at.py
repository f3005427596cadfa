"""jobs.owner and jobs.queued_at: driver slots shared fairly across users and jobs

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-29 00:40:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision (jobs created before it have no owner: they share one)."""
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("owner", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("queued_at", sa.Float(), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("queued_at")
        batch.drop_column("owner")
