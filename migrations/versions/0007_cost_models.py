"""cost_models: the cost model each target's jobs train and start from

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-29 23:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "cost_models",
        sa.Column("target", sa.String(length=500), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("rows", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("target", name=op.f("pk_cost_models")),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("cost_models")
