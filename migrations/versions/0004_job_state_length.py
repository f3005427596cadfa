"""jobs.state holds `waiting_for_worker` (18 characters; it held 16)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28 23:15:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("jobs") as batch:
        batch.alter_column("state", existing_type=sa.String(length=16), type_=sa.String(length=32))


def downgrade() -> None:
    """Revert this revision (a job waiting for a worker goes back to queued first)."""
    op.execute("UPDATE jobs SET state = 'queued' WHERE state = 'waiting_for_worker'")
    with op.batch_alter_table("jobs") as batch:
        batch.alter_column("state", existing_type=sa.String(length=32), type_=sa.String(length=16))
