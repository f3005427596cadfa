"""The measurement queue: batches of candidates, worker leases, results and the sweeper.

A job driver queues a batch (one task's candidates); a worker leases the oldest queued
batch for its exact target; each posted result is a candidate's one final result and a
tuning record, written in the same transaction. A lease that hears nothing for its
timeout expires: the sweeper counts an attempt for every candidate still without a
result and queues the batch again; a candidate past `max_attempts` gets the final status
`worker_lost`. On PostgreSQL the lease takes its batch with FOR UPDATE SKIP LOCKED; on
SQLite every transaction is BEGIN IMMEDIATE, which serialises leases.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from codegen.measure import STATUSES as MEASURE_STATUSES
from codegen.measure import MeasureOptions
from codegen.target import parse_target
from service.db.models import BatchRow, CandidateRow, LeaseRow, WorkerRow
from service.errors import Conflict, Forbidden, InvalidInput, NotFound
from service.records import row_from_record
from tuner.records import Record, RecordError, compute_candidate_id

QUEUED = "queued"
CANCELLED = "cancelled"
WORKER_LOST = "worker_lost"
FINAL_STATUSES = (*MEASURE_STATUSES, WORKER_LOST, CANCELLED)


@dataclass(frozen=True)
class LeasedBatch:
    """A batch handed to a worker: the batch, its lease and the candidates to measure."""

    batch: BatchRow
    lease: LeaseRow
    candidates: list[CandidateRow]


@dataclass(frozen=True)
class ResultIn:
    """One posted result (the wire's result object)."""

    candidate_id: str
    status: str
    costs_s: Sequence[float]
    error: str = ""
    build_s: float = 0.0
    measure_s: float = 0.0


def queue_batch(
    session: Session,
    job_id: str,
    task_json: Mapping[str, Any],
    target: str,
    measure_options: Mapping[str, Any],
    traces: Sequence[Mapping[str, Any]],
) -> BatchRow:
    """Queue one task's candidates (traces) as a batch for workers of `target`."""
    now = time.time()
    batch = BatchRow(
        id=uuid.uuid4().hex,
        job_id=job_id,
        workload_key=str(task_json["key"]),
        target=target,
        task=dict(task_json),
        measure_options=dict(measure_options),
        state=QUEUED,
        created_at=now,
    )
    session.add(batch)
    session.flush()
    for position, trace in enumerate(traces):
        session.add(
            CandidateRow(
                id=uuid.uuid4().hex,
                batch_id=batch.id,
                job_id=job_id,
                position=position,
                candidate_key=compute_candidate_id(batch.workload_key, target, trace),
                trace=dict(trace),
                status=QUEUED,
                attempts=0,
                costs_s=[],
                error="",
            )
        )
    session.flush()
    return batch


def lease_batch(session: Session, worker: WorkerRow, lease_timeout_s: float) -> LeasedBatch | None:
    """Lease the oldest queued batch for the worker's exact target, or None."""
    query = (
        select(BatchRow)
        .where(BatchRow.state == QUEUED, BatchRow.target == worker.target)
        .order_by(BatchRow.created_at, BatchRow.id)
        .limit(1)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    batch = session.scalars(query).first()
    if batch is None:
        return None
    now = time.time()
    batch.state = "leased"
    lease = LeaseRow(
        id=uuid.uuid4().hex,
        batch_id=batch.id,
        worker_id=worker.id,
        state="active",
        created_at=now,
        expires_at=now + lease_timeout_s,
    )
    session.add(lease)
    worker.state = "busy"
    worker.batch_id = batch.id
    worker.last_seen_at = now
    session.flush()
    return LeasedBatch(batch, lease, pending_candidates(session, batch.id))


def pending_candidates(session: Session, batch_id: str) -> list[CandidateRow]:
    """The batch's candidates without a final result, in order."""
    return list(
        session.scalars(
            select(CandidateRow)
            .where(CandidateRow.batch_id == batch_id, CandidateRow.status == QUEUED)
            .order_by(CandidateRow.position)
        )
    )


def _worker_lease(session: Session, batch_id: str, worker_id: str) -> LeaseRow:
    """The worker's newest lease on the batch, locked on PostgreSQL so a result and the
    sweeper (or a cancel) never both finish a candidate; Forbidden when it never held it."""
    query = (
        select(LeaseRow)
        .where(LeaseRow.batch_id == batch_id, LeaseRow.worker_id == worker_id)
        .order_by(LeaseRow.created_at.desc())
        .limit(1)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    lease = session.scalars(query).first()
    if lease is None:
        raise Forbidden(f"batch {batch_id} was never leased to this worker")
    return lease


def _timing(batch: BatchRow) -> str:
    """How the batch's candidates are timed ("warm" or "cold"), for their records."""
    target = parse_target(batch.target, ask_local_gpu=False)
    return MeasureOptions.from_json(batch.measure_options).timing(target)


def _validated(batch: BatchRow, candidates: Mapping[str, CandidateRow], result: ResultIn) -> Record:
    """The record a result makes; InvalidInput naming the problem when it is malformed."""
    if result.candidate_id not in candidates:
        raise InvalidInput(f"candidate {result.candidate_id!r} is not in batch {batch.id}")
    if result.status not in MEASURE_STATUSES:
        raise InvalidInput(
            f"result status {result.status!r} is unknown; known: {', '.join(MEASURE_STATUSES)}"
        )
    candidate = candidates[result.candidate_id]
    try:
        return Record(
            workload_key=batch.workload_key,
            target=batch.target,
            trace=candidate.trace,
            costs_s=list(result.costs_s),
            status=result.status,
            error=result.error,
            candidate_id=candidate.candidate_key,
            job=batch.job_id,
            timing=_timing(batch),
        )
    except RecordError as err:
        raise InvalidInput(f"candidate {result.candidate_id}: {err}") from None


def post_results(
    session: Session,
    worker_id: str,
    batch_id: str,
    results: Sequence[ResultIn],
    lease_timeout_s: float,
) -> tuple[int, int]:
    """Record a worker's results for a batch it holds; returns (accepted, duplicates).

    A result for a candidate that already has its final result is a duplicate (an
    idempotent retry). Forbidden when the batch was never the worker's; Conflict when
    a result is new but the worker's lease is no longer active (it expired and the batch
    went back to the queue, or the job was cancelled).
    """
    batch = session.get(BatchRow, batch_id)
    if batch is None:
        raise NotFound(f"no batch {batch_id!r}")
    lease = _worker_lease(session, batch_id, worker_id)
    worker = session.get(WorkerRow, worker_id)
    assert worker is not None  # a worker token always names its worker
    rows = {
        row.id: row
        for row in session.scalars(select(CandidateRow).where(CandidateRow.batch_id == batch_id))
    }
    records = [_validated(batch, rows, result) for result in results]
    fresh = [
        (r, rec)
        for r, rec in zip(results, records, strict=True)
        if rows[r.candidate_id].status == QUEUED
    ]
    stale = fresh or any(rows[r.candidate_id].status == CANCELLED for r in results)
    if stale and lease.state != "active":
        raise Conflict(f"the lease on batch {batch_id} is {lease.state}; lease a new batch")
    now = time.time()
    seen: set[str] = set()
    accepted = 0
    for result, record in fresh:
        if result.candidate_id in seen:
            continue  # the same candidate twice in one post: the first one counts
        seen.add(result.candidate_id)
        candidate = rows[result.candidate_id]
        candidate.status = result.status
        candidate.costs_s = list(record.costs_s)
        candidate.error = result.error
        candidate.build_s = float(result.build_s)
        candidate.measure_s = float(result.measure_s)
        candidate.worker_id = worker_id
        candidate.finished_at = now
        session.add(row_from_record(_with_worker(record, worker.name), candidate.id))
        worker.measured += 1
        worker.failed += result.status != "ok"
        accepted += 1
    worker.last_seen_at = now
    if lease.state == "active":
        lease.expires_at = now + lease_timeout_s
        if all(row.status != QUEUED for row in rows.values()):
            _finish_batch(batch, lease, worker)
    session.flush()
    return accepted, len(results) - accepted


def _with_worker(record: Record, worker_name: str) -> Record:
    return dataclasses.replace(record, worker=worker_name)


def _finish_batch(batch: BatchRow, lease: LeaseRow, worker: WorkerRow) -> None:
    batch.state = "done"
    lease.state = "done"
    if worker.batch_id == batch.id:
        worker.state = "idle"
        worker.batch_id = None


def release_batch(session: Session, worker_id: str, batch_id: str) -> int:
    """A worker gives its batch back (no attempt counted); returns the candidates that
    go back to the queue."""
    batch = session.get(BatchRow, batch_id)
    if batch is None:
        raise NotFound(f"no batch {batch_id!r}")
    lease = _worker_lease(session, batch_id, worker_id)
    if lease.state != "active":
        return 0
    lease.state = "released"
    pending = pending_candidates(session, batch_id)
    batch.state = QUEUED if pending else "done"
    worker = session.get(WorkerRow, worker_id)
    if worker is not None and worker.batch_id == batch_id:
        worker.state = "idle"
        worker.batch_id = None
    session.flush()
    return len(pending)


def sweep_expired_leases(session: Session, max_attempts: int) -> int:
    """Expire overdue leases: count an attempt for each candidate without a result,
    give `worker_lost` to those out of attempts, queue the batch again. Returns how many
    leases expired."""
    now = time.time()
    query = select(LeaseRow).where(LeaseRow.state == "active", LeaseRow.expires_at < now)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    expired = list(session.scalars(query))
    for lease in expired:
        lease.state = "expired"
        batch = session.get(BatchRow, lease.batch_id)
        assert batch is not None
        for candidate in pending_candidates(session, batch.id):
            candidate.attempts += 1
            if candidate.attempts >= max_attempts:
                _lose(session, batch, candidate, now)
        if batch.state == "leased":
            batch.state = QUEUED if pending_candidates(session, batch.id) else "done"
        session.execute(
            update(WorkerRow)
            .where(WorkerRow.id == lease.worker_id, WorkerRow.batch_id == batch.id)
            .values(state="idle", batch_id=None)
        )
    session.flush()
    return len(expired)


def _lose(session: Session, batch: BatchRow, candidate: CandidateRow, now: float) -> None:
    candidate.status = WORKER_LOST
    candidate.error = f"lease expired {candidate.attempts} times; the candidate may kill workers"
    candidate.finished_at = now
    record = Record(
        workload_key=batch.workload_key,
        target=batch.target,
        trace=candidate.trace,
        costs_s=[],
        status=WORKER_LOST,
        error=candidate.error,
        candidate_id=candidate.candidate_key,
        job=batch.job_id,
        timing=_timing(batch),
    )
    session.add(row_from_record(record, candidate.id))


def cancel_job_batches(session: Session, job_id: str) -> int:
    """Cancel a job's unfinished batches: their candidates end `cancelled` and active
    leases are released. Returns how many candidates were cancelled."""
    batches = list(
        session.scalars(
            select(BatchRow).where(
                BatchRow.job_id == job_id, BatchRow.state.in_((QUEUED, "leased"))
            )
        )
    )
    cancelled = 0
    now = time.time()
    for batch in batches:
        batch.state = CANCELLED
        for candidate in pending_candidates(session, batch.id):
            candidate.status = CANCELLED
            candidate.finished_at = now
            cancelled += 1
        session.execute(
            update(LeaseRow)
            .where(LeaseRow.batch_id == batch.id, LeaseRow.state == "active")
            .values(state="released")
        )
        session.execute(
            update(WorkerRow)
            .where(WorkerRow.batch_id == batch.id)
            .values(state="idle", batch_id=None)
        )
    session.flush()
    return cancelled


def batch_outcome(session: Session, batch_id: str) -> list[CandidateRow] | None:
    """The batch's candidates in order once every one has its final result, else None."""
    rows = list(
        session.scalars(
            select(CandidateRow)
            .where(CandidateRow.batch_id == batch_id)
            .order_by(CandidateRow.position)
        )
    )
    if any(row.status == QUEUED for row in rows):
        return None
    return rows


def job_has_pending(session: Session, job_id: str) -> bool:
    """Whether the job has candidates still waiting for a result."""
    count = session.scalar(
        select(func.count())
        .select_from(CandidateRow)
        .where(CandidateRow.job_id == job_id, CandidateRow.status == QUEUED)
    )
    return bool(count)
