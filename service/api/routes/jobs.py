"""/v1/jobs: create, list, get with progress, cancel, and stream progress (SSE)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from service.api.convert import job_detail, job_public
from service.api.deps import (
    MAX_OFFSET,
    AppState,
    State,
    User,
)
from service.blobs import model_files
from service.jobs import (
    ACTIVE_STATES,
    cancel_job,
    create_job,
    get_job,
    job_progress,
    list_jobs,
)
from service.schemas import JobCreate, JobDetail, JobPublic, JobsPublic

router = APIRouter(prefix="/v1/jobs", tags=["jobs"])
EVENT_INTERVAL_S = 0.5
KEEPALIVE_S = 15.0


def _detail(state: AppState, job_id: str) -> JobDetail:
    with state.session() as session:
        job = get_job(session, job_id)
        return job_detail(job, job_progress(session, job))


@router.post("", status_code=201, response_model=JobDetail, summary="Create a tuning job")
def create(body: JobCreate, state: State, user: User) -> JobDetail:
    """Queue a job for a stored model or one workload."""
    with state.session() as session:
        job = create_job(session, model_files(state.settings), body, owner=user.token_id)
        return job_detail(job, job_progress(session, job))


@router.get("", response_model=JobsPublic, summary="List jobs, newest first")
def list_all(
    state: State,
    _user: User,
    job_state: Annotated[str | None, Query(alias="state")] = None,
    model_id: str | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> JobsPublic:
    """A page of jobs, filtered by state and model."""
    with state.session() as session:
        rows, total = list_jobs(session, job_state, model_id, limit, offset)
        return JobsPublic(items=[job_public(row) for row in rows], total=total)


@router.get("/{job_id}", response_model=JobDetail, summary="Get a job with per-task progress")
def get_one(job_id: str, state: State, _user: User) -> JobDetail:
    """A job, its tasks' trials, best cost and GFLOPS, and tuning curves."""
    return _detail(state, job_id)


@router.post("/{job_id}/cancel", response_model=JobPublic, summary="Cancel a job")
def cancel(job_id: str, state: State, _user: User) -> JobPublic:
    """Stop scheduling the job and release its batches' leases."""
    with state.session() as session:
        return job_public(cancel_job(session, job_id))


@router.get(
    "/{job_id}/events",
    summary="Stream a job's progress (server-sent events)",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def events(job_id: str, state: State, _user: User) -> StreamingResponse:
    """`progress` events (the job detail as JSON) when something changed, then `end`."""
    first = await run_in_threadpool(_detail, state, job_id)  # 404 before streaming

    async def stream() -> AsyncIterator[str]:
        detail = first
        last = ""
        quiet_s = 0.0
        while True:
            text = detail.model_dump_json()
            if text != last:
                yield f"event: progress\ndata: {text}\n\n"
                last, quiet_s = text, 0.0
            elif quiet_s >= KEEPALIVE_S:
                yield ": keep-alive\n\n"
                quiet_s = 0.0
            if detail.state not in ACTIVE_STATES:
                yield f"event: end\ndata: {json.dumps({'state': detail.state})}\n\n"
                return
            if state.shutting_down():
                return  # the client reconnects to the restarted service
            await asyncio.sleep(EVENT_INTERVAL_S)
            quiet_s += EVENT_INTERVAL_S
            detail = await run_in_threadpool(_detail, state, job_id)

    return StreamingResponse(
        stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
    )
