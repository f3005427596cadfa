"""Leases of the orchestration: a driver's lease on its job, and a job's lease on each
(workload, target) it tunes, so two concurrent jobs never tune one workload at once."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from service.db.models import JobRow, WorkerRow, WorkloadLeaseRow

WAITING = "waiting_for_worker"


def _unheld(now: float) -> Any:
    return or_(JobRow.driver_lease_until.is_(None), JobRow.driver_lease_until < now)


def claim_next_job(session: Session, driver_id: str, lease_s: float) -> JobRow | None:
    """Claim a queued or running job that no live driver holds (a running job whose driver
    died is resumed) and mark it running; None when there is none. Slots are shared
    fairly: the job of the owner who holds the fewest driven jobs now, and among those the
    one queued longest ago (a job that gave its slot up queues again at the back). (A job
    waiting for a worker is queued again by `review_waiting_jobs` first.)"""
    now = time.time()
    held = aliased(JobRow)
    owner_load = (
        select(func.count())
        .select_from(held)
        .where(
            held.owner.is_not_distinct_from(JobRow.owner),
            held.state == "running",
            held.driver_lease_until >= now,
        )
        .correlate(JobRow)
        .scalar_subquery()
    )
    query = (
        select(JobRow)
        .where(JobRow.state.in_(("queued", "running")), _unheld(now))
        .order_by(owner_load, func.coalesce(JobRow.queued_at, JobRow.created_at), JobRow.id)
        .limit(1)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    job = session.scalars(query).first()
    if job is None:
        return None
    job.driver_id = driver_id
    job.driver_lease_until = now + lease_s
    job.state = "running"
    job.error = ""
    job.started_at = job.started_at or now
    session.flush()
    return job


def _waiting_reason(session: Session, target: str, workers_seen_since: float) -> str:
    targets = sorted(
        set(
            session.scalars(
                select(WorkerRow.target).where(WorkerRow.last_seen_at >= workers_seen_since)
            )
        )
    )
    heard = "; ".join(targets) if targets else "none"
    return f"no live worker measures for {target!r}; the live workers' targets: {heard}"


def others_queued(session: Session, job_id: str) -> bool:
    """Whether a job other than `job_id` waits in the queue for a driver slot."""
    now = time.time()
    waiting = session.scalar(
        select(func.count())
        .select_from(JobRow)
        .where(JobRow.id != job_id, JobRow.state == "queued", _unheld(now))
    )
    return bool(waiting)


def requeue_job(session: Session, job_id: str, driver_id: str) -> None:
    """Its driver gives the job's slot to another: the job queues again, at the back."""
    job = session.get(JobRow, job_id)
    if job is not None and job.state == "running" and job.driver_id == driver_id:
        job.state = "queued"
        job.queued_at = time.time()
        job.driver_lease_until = None  # (its driver exits now: the slot is free at once)
        session.flush()


def park_job(session: Session, job_id: str, driver_id: str, workers_seen_since: float) -> None:
    """Its driver gives the job back to wait for a worker of its target: `waiting_for_worker`,
    its error naming the target and the targets of the workers heard from since
    `workers_seen_since`. (The driver's leases are released as it exits.)"""
    job = session.get(JobRow, job_id)
    if job is None or job.state != "running" or job.driver_id != driver_id:
        return
    job.state = WAITING
    job.error = _waiting_reason(session, job.target, workers_seen_since)
    session.flush()


def review_waiting_jobs(session: Session, workers_seen_since: float) -> int:
    """Jobs waiting for a worker whose target a worker was heard from since
    `workers_seen_since` are queued again; the others' reasons name the live workers'
    targets as they are now. Returns how many were queued."""
    requeued = 0
    for job in session.scalars(select(JobRow).where(JobRow.state == WAITING)):
        reason = _waiting_reason(session, job.target, workers_seen_since)
        live = session.scalar(
            select(func.count())
            .select_from(WorkerRow)
            .where(WorkerRow.target == job.target, WorkerRow.last_seen_at >= workers_seen_since)
        )
        if live:
            job.state, job.error = "queued", ""
            requeued += 1
        elif job.error != reason:
            job.error = reason
    session.flush()
    return requeued


def renew_job_lease(session: Session, job_id: str, driver_id: str, lease_s: float) -> bool:
    """Extend the driver's lease on its job; False when the driver no longer holds it."""
    result = session.execute(
        update(JobRow)
        .where(JobRow.id == job_id, JobRow.driver_id == driver_id)
        .values(driver_lease_until=time.time() + lease_s)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def release_job_lease(session: Session, job_id: str, driver_id: str) -> None:
    """Give up the driver's lease, so another driver may resume the job at once."""
    session.execute(
        update(JobRow)
        .where(JobRow.id == job_id, JobRow.driver_id == driver_id)
        .values(driver_id=None, driver_lease_until=None)
    )


def acquire_workload_leases(
    session: Session, job_id: str, target: str, keys: Sequence[str], lease_s: float
) -> bool:
    """Take the leases of all `keys` on `target` for the job, or none of them: False when
    another job holds a live one (the caller waits and tries again)."""
    now = time.time()
    rows = {
        row.workload_key: row
        for row in session.scalars(
            select(WorkloadLeaseRow).where(
                WorkloadLeaseRow.target == target, WorkloadLeaseRow.workload_key.in_(keys)
            )
        )
    }
    if any(row.job_id != job_id and row.expires_at >= now for row in rows.values()):
        return False
    try:
        with session.begin_nested():  # another job inserting the same lease wins the race
            for key in sorted(set(keys)):
                row = rows.get(key)
                if row is None:
                    session.add(
                        WorkloadLeaseRow(
                            workload_key=key, target=target, job_id=job_id, expires_at=now + lease_s
                        )
                    )
                else:
                    row.job_id = job_id
                    row.expires_at = now + lease_s
    except IntegrityError:
        return False
    return True


def renew_workload_leases(session: Session, job_id: str, lease_s: float) -> None:
    """Extend every workload lease the job holds."""
    session.execute(
        update(WorkloadLeaseRow)
        .where(WorkloadLeaseRow.job_id == job_id)
        .values(expires_at=time.time() + lease_s)
    )


def release_workload_leases(session: Session, job_id: str) -> None:
    """Drop every workload lease the job holds."""
    session.execute(delete(WorkloadLeaseRow).where(WorkloadLeaseRow.job_id == job_id))
