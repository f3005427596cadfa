"""Conversions from rows to API schemas."""

from __future__ import annotations

from service.db.models import JobRow, ModelRow, RecordRow, TokenRow
from service.fleet import WorkerHealth
from service.jobs import TaskProgress
from service.schemas import (
    JobDetail,
    JobPublic,
    ModelPublic,
    RecordPublic,
    TaskInfo,
    TaskProgressPublic,
    TokenPublic,
    WorkerPublic,
)


def model_public(row: ModelRow) -> ModelPublic:
    """A model row as the API shows it."""
    info = row.info
    return ModelPublic(
        id=row.id,
        name=row.name,
        size_bytes=row.size_bytes,
        created_at=row.created_at,
        inputs=info["inputs"],
        outputs=info["outputs"],
        flops=info["flops"],
        fused_functions=info["fused_functions"],
        tasks=[TaskInfo(**task) for task in info["tasks"]],
    )


def job_public(row: JobRow) -> JobPublic:
    """A job row as the API lists it."""
    return JobPublic(
        id=row.id,
        model_id=row.model_id,
        target=row.target,
        trials=row.trials,
        time_limit_s=row.time_limit_s,
        options=row.options,
        state=row.state,
        error=row.error,
        trials_done=row.trials_done,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


def job_detail(row: JobRow, tasks: list[TaskProgress]) -> JobDetail:
    """A job with its tasks' progress."""
    return JobDetail(
        **job_public(row).model_dump(),
        tasks=[
            TaskProgressPublic(
                position=task.row.position,
                workload_key=task.row.workload_key,
                name=task.row.name,
                weight=task.row.weight,
                flops=task.row.flops,
                trials=task.row.trials,
                best_cost_s=task.row.best_cost_s,
                best_gflops=task.best_gflops,
                curve=task.curve,
            )
            for task in tasks
        ],
    )


def record_public(row: RecordRow) -> RecordPublic:
    """A record row as the API shows it."""
    return RecordPublic(
        id=row.id,
        candidate_id=row.candidate_key,
        workload_key=row.workload_key,
        target=row.target,
        trace=row.trace,
        costs_s=row.costs_s,
        median_cost_s=row.median_cost_s,
        status=row.status,
        error=row.error,
        time=row.time,
        worker=row.worker,
        job_id=row.job_id,
        timing=row.timing,
    )


def worker_public(health: WorkerHealth) -> WorkerPublic:
    """A worker with its health."""
    row = health.worker
    return WorkerPublic(
        id=row.id,
        name=row.name,
        target=row.target,
        device=row.device,
        version=row.version,
        state=row.state,
        batch_id=row.batch_id,
        registered_at=row.registered_at,
        last_seen_at=row.last_seen_at,
        measured=row.measured,
        failed=row.failed,
        healthy=health.healthy,
        live_leases=health.live_leases,
    )


def token_public(row: TokenRow) -> TokenPublic:
    """A token row, without its hash."""
    return TokenPublic(
        id=row.id,
        name=row.name,
        kind=row.kind,
        worker_id=row.worker_id,
        created_at=row.created_at,
        revoked_at=row.revoked_at,
    )
