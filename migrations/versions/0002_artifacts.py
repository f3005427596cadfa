"""artifacts

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 10:34:41.574487
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "artifacts",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("model_id", sa.String(length=64), nullable=False),
        sa.Column("target", sa.String(length=500), nullable=False),
        sa.Column("inputs_key", sa.String(length=64), nullable=False),
        sa.Column("record_ids", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=True),
        sa.Column("size_bytes", sa.Integer(), nullable=True),
        sa.Column("coverage", sa.JSON(), nullable=False),
        sa.Column("manifest", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.Column("lease_until", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["model_id"], ["models.id"], name=op.f("fk_artifacts_model_id_models")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_artifacts")),
        sa.UniqueConstraint("inputs_key", name=op.f("uq_artifacts_inputs_key")),
    )
    with op.batch_alter_table("artifacts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_artifacts_model_id"), ["model_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_artifacts_state"), ["state"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("artifacts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_artifacts_state"))
        batch_op.drop_index(batch_op.f("ix_artifacts_model_id"))

    op.drop_table("artifacts")
