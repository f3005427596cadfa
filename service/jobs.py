"""Tuning jobs: create, list, inspect with per-task progress and curves, cancel.

A job is created `queued` with one row per task; a job driver (`service.orchestration`)
claims it, marks it `running`, and ends it `completed`, `failed` or (by a user)
`cancelled`.
"""

from __future__ import annotations

import math
import time
import uuid
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from codegen.backends import backend_of
from codegen.errors import TargetError
from codegen.llvm import CpuTarget, check_known_cpu
from codegen.target import Target, parse_target
from service.blobs import FileStore
from service.db.models import JobRow, JobTaskRow, RecordRow
from service.errors import Conflict, InvalidInput, NotFound
from service.job_options import job_options_json, job_tune_options
from service.model_store import get_model, model_tasks
from service.queue import cancel_job_batches
from service.schemas import CurvePoint, JobCreate
from tuner.options import TuneOptionsError
from tuner.size_histogram import SizeHistogram, SizeHistogramError
from tuner.tasks import Task, TaskError

STATES = ("queued", "waiting_for_worker", "running", "completed", "failed", "cancelled")
ACTIVE_STATES = ("queued", "waiting_for_worker", "running")
CURVE_POINTS = 200  # at most this many points per task curve


@dataclass(frozen=True)
class TaskProgress:
    """One task of a job, with its tuning curve (best GFLOPS after n trials)."""

    row: JobTaskRow
    best_gflops: float | None
    curve: list[CurvePoint]


def gflops(flops: int, cost_s: float | None) -> float | None:
    """GFLOPS of a kernel of `flops` running `cost_s` seconds (None when unknown)."""
    if cost_s is None or cost_s <= 0 or not math.isfinite(cost_s):
        return None
    return flops / cost_s / 1e9


def job_tasks_for(
    session: Session,
    models: FileStore,
    create: JobCreate,
    target: Target,
    histogram: SizeHistogram | None = None,
) -> list[Task]:
    """The tasks a new job tunes: its model's (a symbolic model's size buckets shared by
    `histogram`), or its one workload; InvalidInput where the histogram does not fit the
    model."""
    if create.workload is not None:
        try:
            task = Task.from_json(create.workload)
        except TaskError as err:
            raise InvalidInput(f"bad workload: {err}") from None
        return [
            Task(
                task.key, task.name, task.function, task.constant_params, task.flops, 1, str(target)
            )
        ]
    assert create.model_id is not None
    try:
        return model_tasks(models.get(session, create.model_id), target, histogram)
    except SizeHistogramError as err:
        raise InvalidInput(f"bad job options: {err}") from None


def create_job(
    session: Session, models: FileStore, create: JobCreate, owner: str | None = None
) -> JobRow:
    """Validate and queue a job for `owner` (the creating token's id: driver slots are
    shared fairly across owners); raises InvalidInput (unknown target, bad workload) or
    NotFound (unknown model) before anything is stored."""
    try:
        # (plain `cuda` is refused: the service's own GPU, if any, is not the workers')
        target = parse_target(create.target, ask_local_gpu=False)
        if isinstance(target, CpuTarget):
            check_known_cpu(target)  # the processors the LLVM backend compiles for
    except TargetError as err:
        raise InvalidInput(f"unknown target {create.target!r}: {err}") from None
    if create.trials <= 0:
        raise InvalidInput(f"the trial budget must be positive, got {create.trials}")
    if create.model_id is not None:
        get_model(session, create.model_id)
    cold = create.model_id is not None and backend_of(target).flushes_caches
    try:
        options = job_tune_options(create.options, create.trials, create.time_limit_s, cold)
    except TuneOptionsError as err:
        raise InvalidInput(f"bad job options: {err}") from None
    tasks = job_tasks_for(session, models, create, target, options.size_histogram)
    now = time.time()
    job = JobRow(
        id=uuid.uuid4().hex,
        model_id=create.model_id,
        workload=tasks[0].to_json() if create.workload is not None else None,
        target=str(target),
        trials=create.trials,
        time_limit_s=create.time_limit_s,
        options=job_options_json(options),
        state="queued",
        error="",
        trials_done=0,
        created_at=now,
        queued_at=now,
        owner=owner,
    )
    session.add(job)
    session.flush()
    for position, task in enumerate(tasks):
        session.add(
            JobTaskRow(
                job_id=job.id,
                position=position,
                workload_key=task.key,
                name=task.name,
                weight=task.weight,
                flops=task.flops,
                trials=0,
                best_cost_s=None,
            )
        )
    session.flush()
    return job


def get_job(session: Session, job_id: str) -> JobRow:
    """The job with this id; NotFound otherwise."""
    job = session.get(JobRow, job_id)
    if job is None:
        raise NotFound(f"no job {job_id!r}")
    return job


def list_jobs(
    session: Session, state: str | None, model_id: str | None, limit: int, offset: int
) -> tuple[list[JobRow], int]:
    """A page of jobs, newest first, filtered by state and model, and the total count."""
    if state is not None and state not in STATES:
        raise InvalidInput(f"unknown job state {state!r}; known: {', '.join(STATES)}")
    query = select(JobRow)
    if state is not None:
        query = query.where(JobRow.state == state)
    if model_id is not None:
        query = query.where(JobRow.model_id == model_id)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.scalars(
        query.order_by(JobRow.created_at.desc(), JobRow.id).limit(limit).offset(offset)
    )
    return list(rows), total


def job_progress(session: Session, job: JobRow) -> list[TaskProgress]:
    """Each task's trials, best cost and tuning curve (from this job's records)."""
    tasks = list(
        session.scalars(
            select(JobTaskRow).where(JobTaskRow.job_id == job.id).order_by(JobTaskRow.position)
        )
    )
    costs: dict[str, list[float | None]] = {}
    for key, median in session.execute(
        select(RecordRow.workload_key, RecordRow.median_cost_s)
        .where(RecordRow.job_id == job.id, RecordRow.target == job.target)
        .order_by(RecordRow.id)
    ):
        costs.setdefault(key, []).append(median)
    return [
        TaskProgress(
            task,
            gflops(task.flops, task.best_cost_s),
            _curve(task, costs.get(task.workload_key, [])),
        )
        for task in tasks
    ]


def _curve(task: JobTaskRow, costs: list[float | None]) -> list[CurvePoint]:
    points: list[CurvePoint] = []
    best: float | None = None
    step = max(1, math.ceil(len(costs) / CURVE_POINTS))
    for index, cost in enumerate(costs, start=1):
        if cost is not None and (best is None or cost < best):
            best = cost
        if index % step == 0 or index == len(costs):
            points.append(CurvePoint(trials=index, best_gflops=gflops(task.flops, best)))
    return points


def cancel_job(session: Session, job_id: str) -> JobRow:
    """Cancel a queued or running job: scheduling stops, its batches are cancelled and
    their leases released. Conflict for a job that already ended."""
    job = get_job(session, job_id)
    if job.state not in ACTIVE_STATES:
        raise Conflict(f"job {job_id} is already {job.state}")
    job.state = "cancelled"
    job.finished_at = time.time()
    cancel_job_batches(session, job_id)
    session.flush()
    return job


def count_jobs_by_state(session: Session) -> dict[str, int]:
    """How many jobs are in each state (every state listed)."""
    counts = dict(session.execute(select(JobRow.state, func.count()).group_by(JobRow.state)).all())
    return {state: int(counts.get(state, 0)) for state in STATES}
