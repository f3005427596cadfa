"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-21 10:15:02.991378
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "models",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=500), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("info", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_models")),
    )
    op.create_table(
        "workers",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("target", sa.String(length=500), nullable=False),
        sa.Column("device", sa.JSON(), nullable=False),
        sa.Column("version", sa.String(length=100), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("batch_id", sa.String(length=32), nullable=True),
        sa.Column("registered_at", sa.Float(), nullable=False),
        sa.Column("last_seen_at", sa.Float(), nullable=False),
        sa.Column("measured", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_workers")),
    )
    with op.batch_alter_table("workers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_workers_target"), ["target"], unique=False)

    op.create_table(
        "workload_leases",
        sa.Column("workload_key", sa.String(length=64), nullable=False),
        sa.Column("target", sa.String(length=500), nullable=False),
        sa.Column("job_id", sa.String(length=32), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("workload_key", "target", name=op.f("pk_workload_leases")),
    )
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("model_id", sa.String(length=64), nullable=True),
        sa.Column("workload", sa.JSON(), nullable=True),
        sa.Column("target", sa.String(length=500), nullable=False),
        sa.Column("trials", sa.Integer(), nullable=False),
        sa.Column("time_limit_s", sa.Float(), nullable=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("trials_done", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("started_at", sa.Float(), nullable=True),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.Column("driver_id", sa.String(length=32), nullable=True),
        sa.Column("driver_lease_until", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name=op.f("fk_jobs_model_id_models")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
    )
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_jobs_model_id"), ["model_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_jobs_state"), ["state"], unique=False)

    op.create_table(
        "tokens",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("worker_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("revoked_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["worker_id"], ["workers.id"], name=op.f("fk_tokens_worker_id_workers")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_tokens_token_hash")),
    )
    op.create_table(
        "batches",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("job_id", sa.String(length=32), nullable=False),
        sa.Column("workload_key", sa.String(length=64), nullable=False),
        sa.Column("target", sa.String(length=500), nullable=False),
        sa.Column("task", sa.JSON(), nullable=False),
        sa.Column("measure_options", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["job_id"], ["jobs.id"], name=op.f("fk_batches_job_id_jobs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_batches")),
    )
    with op.batch_alter_table("batches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_batches_job_id"), ["job_id"], unique=False)
        batch_op.create_index(
            "ix_batches_state_target_created", ["state", "target", "created_at"], unique=False
        )

    op.create_table(
        "job_tasks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("job_id", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("workload_key", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=500), nullable=False),
        sa.Column("weight", sa.Integer(), nullable=False),
        sa.Column("flops", sa.Integer(), nullable=False),
        sa.Column("trials", sa.Integer(), nullable=False),
        sa.Column("best_cost_s", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["job_id"], ["jobs.id"], name=op.f("fk_job_tasks_job_id_jobs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_job_tasks")),
    )
    with op.batch_alter_table("job_tasks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_job_tasks_job_id"), ["job_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_job_tasks_workload_key"), ["workload_key"], unique=False
        )

    op.create_table(
        "candidates",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("batch_id", sa.String(length=32), nullable=False),
        sa.Column("job_id", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("candidate_key", sa.String(length=64), nullable=False),
        sa.Column("trace", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("costs_s", sa.JSON(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("build_s", sa.Float(), nullable=False),
        sa.Column("measure_s", sa.Float(), nullable=False),
        sa.Column("worker_id", sa.String(length=32), nullable=True),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["batches.id"], name=op.f("fk_candidates_batch_id_batches")
        ),
        sa.ForeignKeyConstraint(["job_id"], ["jobs.id"], name=op.f("fk_candidates_job_id_jobs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_candidates")),
    )
    with op.batch_alter_table("candidates", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_candidates_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_candidates_finished_at"), ["finished_at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_candidates_job_id"), ["job_id"], unique=False)

    op.create_table(
        "leases",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("batch_id", sa.String(length=32), nullable=False),
        sa.Column("worker_id", sa.String(length=32), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["batches.id"], name=op.f("fk_leases_batch_id_batches")
        ),
        sa.ForeignKeyConstraint(
            ["worker_id"], ["workers.id"], name=op.f("fk_leases_worker_id_workers")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leases")),
    )
    with op.batch_alter_table("leases", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_leases_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_leases_worker_id"), ["worker_id"], unique=False)

    op.create_table(
        "records",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("candidate_key", sa.String(length=64), nullable=False),
        sa.Column("workload_key", sa.String(length=64), nullable=False),
        sa.Column("target", sa.String(length=500), nullable=False),
        sa.Column("trace", sa.JSON(), nullable=False),
        sa.Column("costs_s", sa.JSON(), nullable=False),
        sa.Column("median_cost_s", sa.Float(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("time", sa.Float(), nullable=False),
        sa.Column("versions", sa.JSON(), nullable=False),
        sa.Column("worker", sa.String(length=200), nullable=True),
        sa.Column("job_id", sa.String(length=32), nullable=True),
        sa.Column("measurement_id", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["measurement_id"], ["candidates.id"], name=op.f("fk_records_measurement_id_candidates")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_records")),
        sa.UniqueConstraint("measurement_id", name=op.f("uq_records_measurement_id")),
    )
    with op.batch_alter_table("records", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_records_candidate_key"), ["candidate_key"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_records_job_id"), ["job_id"], unique=False)
        batch_op.create_index(
            "ix_records_workload_target", ["workload_key", "target"], unique=False
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("records", schema=None) as batch_op:
        batch_op.drop_index("ix_records_workload_target")
        batch_op.drop_index(batch_op.f("ix_records_job_id"))
        batch_op.drop_index(batch_op.f("ix_records_candidate_key"))

    op.drop_table("records")
    with op.batch_alter_table("leases", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_leases_worker_id"))
        batch_op.drop_index(batch_op.f("ix_leases_batch_id"))

    op.drop_table("leases")
    with op.batch_alter_table("candidates", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_candidates_job_id"))
        batch_op.drop_index(batch_op.f("ix_candidates_finished_at"))
        batch_op.drop_index(batch_op.f("ix_candidates_batch_id"))

    op.drop_table("candidates")
    with op.batch_alter_table("job_tasks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_job_tasks_workload_key"))
        batch_op.drop_index(batch_op.f("ix_job_tasks_job_id"))

    op.drop_table("job_tasks")
    with op.batch_alter_table("batches", schema=None) as batch_op:
        batch_op.drop_index("ix_batches_state_target_created")
        batch_op.drop_index(batch_op.f("ix_batches_job_id"))

    op.drop_table("batches")
    op.drop_table("tokens")
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_jobs_state"))
        batch_op.drop_index(batch_op.f("ix_jobs_model_id"))

    op.drop_table("jobs")
    op.drop_table("workload_leases")
    with op.batch_alter_table("workers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_workers_target"))

    op.drop_table("workers")
    op.drop_table("models")
