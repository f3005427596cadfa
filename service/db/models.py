"""The database rows (SQLAlchemy 2 typed ORM models).

Times are unix seconds (floats), so lease arithmetic is the same on SQLite and
PostgreSQL. Constraint names follow one naming convention, so Alembic migrations name
them the same way on every database.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ID = String(32)  # uuid4 hex
KEY = String(64)  # sha256 hex


class Base(DeclarativeBase):
    """Base of every row class; its metadata is what migrations must produce."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class TokenRow(Base):
    """An API token, stored as the sha256 of its secret."""

    __tablename__ = "tokens"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))  # admin | user | worker
    token_hash: Mapped[str] = mapped_column(KEY, unique=True)
    worker_id: Mapped[str | None] = mapped_column(ForeignKey("workers.id"))
    created_at: Mapped[float] = mapped_column(Float)
    revoked_at: Mapped[float | None] = mapped_column(Float)


class WorkerRow(Base):
    """A registered measurement worker."""

    __tablename__ = "workers"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    target: Mapped[str] = mapped_column(String(500), index=True)
    device: Mapped[dict[str, Any]] = mapped_column(JSON)
    version: Mapped[str] = mapped_column(String(100))
    state: Mapped[str] = mapped_column(String(16))  # idle | busy
    batch_id: Mapped[str | None] = mapped_column(ID)
    registered_at: Mapped[float] = mapped_column(Float)
    last_seen_at: Mapped[float] = mapped_column(Float)
    measured: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)


class ModelRow(Base):
    """An uploaded ONNX model, stored content-addressed (its id is its sha256)."""

    __tablename__ = "models"

    id: Mapped[str] = mapped_column(KEY, primary_key=True)
    name: Mapped[str] = mapped_column(String(500))
    size_bytes: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float)
    info: Mapped[dict[str, Any]] = mapped_column(JSON)  # inputs, outputs, functions, tasks


class JobRow(Base):
    """A tuning job: a model (or one workload), a target and a trial budget."""

    __tablename__ = "jobs"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    model_id: Mapped[str | None] = mapped_column(ForeignKey("models.id"), index=True)
    workload: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # a Task's JSON
    target: Mapped[str] = mapped_column(String(500))
    trials: Mapped[int] = mapped_column(Integer)
    time_limit_s: Mapped[float | None] = mapped_column(Float)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(32), index=True)
    error: Mapped[str] = mapped_column(Text, default="")
    trials_done: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float)
    started_at: Mapped[float | None] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float)
    driver_id: Mapped[str | None] = mapped_column(ID)
    driver_lease_until: Mapped[float | None] = mapped_column(Float)
    owner: Mapped[str | None] = mapped_column(ID)  # the creating token's id
    queued_at: Mapped[float | None] = mapped_column(Float)  # last entered the queue


class JobTaskRow(Base):
    """One task of a job with its progress."""

    __tablename__ = "job_tasks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    workload_key: Mapped[str] = mapped_column(KEY, index=True)
    name: Mapped[str] = mapped_column(String(500))
    weight: Mapped[int] = mapped_column(Integer)
    flops: Mapped[int] = mapped_column(Integer)
    trials: Mapped[int] = mapped_column(Integer, default=0)
    best_cost_s: Mapped[float | None] = mapped_column(Float)


class BatchRow(Base):
    """Candidates of one task queued together for one worker."""

    __tablename__ = "batches"
    __table_args__ = (Index("ix_batches_state_target_created", "state", "target", "created_at"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id"), index=True)
    workload_key: Mapped[str] = mapped_column(KEY)
    target: Mapped[str] = mapped_column(String(500))
    task: Mapped[dict[str, Any]] = mapped_column(JSON)
    measure_options: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(16))  # queued | leased | done | cancelled
    created_at: Mapped[float] = mapped_column(Float)


class LeaseRow(Base):
    """A worker's hold on a batch; `state` active until done, released or expired."""

    __tablename__ = "leases"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    batch_id: Mapped[str] = mapped_column(ForeignKey("batches.id"), index=True)
    worker_id: Mapped[str] = mapped_column(ForeignKey("workers.id"), index=True)
    state: Mapped[str] = mapped_column(String(16))  # active | done | released | expired
    created_at: Mapped[float] = mapped_column(Float)
    expires_at: Mapped[float] = mapped_column(Float)


class CandidateRow(Base):
    """One candidate to measure; `status` is queued until its one final result."""

    __tablename__ = "candidates"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    batch_id: Mapped[str] = mapped_column(ForeignKey("batches.id"), index=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    candidate_key: Mapped[str] = mapped_column(KEY)
    trace: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    costs_s: Mapped[list[Any]] = mapped_column(JSON)
    error: Mapped[str] = mapped_column(Text, default="")
    build_s: Mapped[float] = mapped_column(Float, default=0.0)
    measure_s: Mapped[float] = mapped_column(Float, default=0.0)
    worker_id: Mapped[str | None] = mapped_column(ID)
    finished_at: Mapped[float | None] = mapped_column(Float, index=True)


class RecordRow(Base):
    """A tuning record (`tuner.records.Record`), shared by every job."""

    __tablename__ = "records"
    __table_args__ = (Index("ix_records_workload_target", "workload_key", "target"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    candidate_key: Mapped[str] = mapped_column(KEY, index=True)
    workload_key: Mapped[str] = mapped_column(KEY)
    target: Mapped[str] = mapped_column(String(500))
    trace: Mapped[dict[str, Any]] = mapped_column(JSON)
    costs_s: Mapped[list[Any]] = mapped_column(JSON)
    median_cost_s: Mapped[float | None] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16))
    error: Mapped[str] = mapped_column(Text)
    time: Mapped[float] = mapped_column(Float)
    versions: Mapped[dict[str, Any]] = mapped_column(JSON)
    worker: Mapped[str | None] = mapped_column(String(200))
    job_id: Mapped[str | None] = mapped_column(ID, index=True)
    measurement_id: Mapped[str | None] = mapped_column(ForeignKey("candidates.id"), unique=True)
    timing: Mapped[str] = mapped_column(String(8), default="warm", server_default="warm")


class WorkloadLeaseRow(Base):
    """Which job tunes a (workload, target) now, so two jobs never tune it at once."""

    __tablename__ = "workload_leases"

    workload_key: Mapped[str] = mapped_column(KEY, primary_key=True)
    target: Mapped[str] = mapped_column(String(500), primary_key=True)
    job_id: Mapped[str] = mapped_column(ID)
    expires_at: Mapped[float] = mapped_column(Float)


class ArtifactRow(Base):
    """A compiled model: built once per (model, target, records used)."""

    __tablename__ = "artifacts"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    model_id: Mapped[str] = mapped_column(ForeignKey("models.id"), index=True)
    target: Mapped[str] = mapped_column(String(500))
    inputs_key: Mapped[str] = mapped_column(KEY, unique=True)  # sha256 of model, target, records
    record_ids: Mapped[list[Any]] = mapped_column(JSON)  # the record rows compiled in
    state: Mapped[str] = mapped_column(String(16), index=True)  # queued|building|ready|failed
    error: Mapped[str] = mapped_column(Text, default="")
    sha256: Mapped[str | None] = mapped_column(KEY)
    size_bytes: Mapped[int | None] = mapped_column(Integer)
    coverage: Mapped[list[Any]] = mapped_column(JSON)
    manifest: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float)
    lease_until: Mapped[float | None] = mapped_column(Float)


class BlobRow(Base):
    """A content-addressed file (an uploaded model, a built artifact) kept in the database
    for every replica; it is there once all its chunks are (`service.blobs`)."""

    __tablename__ = "blobs"

    sha256: Mapped[str] = mapped_column(KEY, primary_key=True)
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[float] = mapped_column(Float)


class BlobChunkRow(Base):
    """One chunk of a blob's bytes, in order of `position`."""

    __tablename__ = "blob_chunks"

    sha256: Mapped[str] = mapped_column(KEY, primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class SecretRow(Base):
    """A secret every replica shares (the workers' registration secret)."""

    __tablename__ = "secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


class CostModelRow(Base):
    """The cost model the jobs of one target train and start from: a blob (`blobs`, and
    the `cost_models` folder of each replica) named by its sha256 (`service.cost_models`)."""

    __tablename__ = "cost_models"

    target: Mapped[str] = mapped_column(String(500), primary_key=True)
    sha256: Mapped[str] = mapped_column(KEY)
    rows: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[float] = mapped_column(Float)
