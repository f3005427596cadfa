"""/v1/workers and /v1/batches: the worker protocol (docs/worker-protocol.md) and the fleet."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

from fastapi import APIRouter, Query, Response
from starlette.concurrency import run_in_threadpool

from service.api.convert import worker_public
from service.api.deps import AppState, Caller, Credentials, State, User, bearer_secret
from service.fleet import heartbeat, list_workers, register_worker, worker_of
from service.queue import ResultIn, lease_batch, post_results, release_batch
from service.schemas import (
    BatchCandidate,
    BatchPublic,
    Heartbeat,
    Ok,
    Released,
    ResultsAccepted,
    ResultsPost,
    WorkerRegister,
    WorkerRegistered,
    WorkersPublic,
)
from service.tokens import Principal, check_registration_secret

router = APIRouter(tags=["workers"])


@router.post(
    "/v1/workers/register",
    status_code=201,
    response_model=WorkerRegistered,
    summary="Register a worker (bearer: the registration secret)",
)
def register(body: WorkerRegister, state: State, credentials: Credentials) -> WorkerRegistered:
    """Register a worker for its target and issue its worker token."""
    check_registration_secret(state.registration_secret, bearer_secret(credentials))
    with state.session() as session:
        worker, token = register_worker(session, body.name, body.target, body.device, body.version)
        return WorkerRegistered(
            worker_id=worker.id,
            token=token,
            heartbeat_interval_s=state.settings.heartbeat_interval_s,
            lease_timeout_s=state.settings.lease_timeout_s,
        )


@router.post("/v1/workers/{worker_id}/heartbeat", response_model=Ok, summary="Heartbeat")
def beat(worker_id: str, body: Heartbeat, state: State, caller: Caller) -> Ok:
    """Note the worker alive; a busy worker's lease is renewed."""
    with state.session() as session:
        worker = worker_of(session, caller, worker_id)
        heartbeat(session, worker, body.state, state.settings.lease_timeout_s)
    return Ok()


def _lease_once(state: AppState, caller: Principal, worker_id: str) -> BatchPublic | None:
    with state.session() as session:
        worker = worker_of(session, caller, worker_id)
        worker.last_seen_at = time.time()
        leased = lease_batch(session, worker, state.settings.lease_timeout_s)
        if leased is None:
            return None
        return BatchPublic(
            batch_id=leased.batch.id,
            lease_timeout_s=state.settings.lease_timeout_s,
            measure_options=leased.batch.measure_options,
            candidates=[
                BatchCandidate(
                    candidate_id=row.id,
                    target=leased.batch.target,
                    task=leased.batch.task,
                    trace=row.trace,
                )
                for row in leased.candidates
            ],
        )


@router.post(
    "/v1/workers/{worker_id}/lease",
    response_model=BatchPublic,
    summary="Lease a batch for the worker's target (long poll)",
    responses={204: {"description": "no batch came within wait_s"}},
)
async def lease(
    worker_id: str,
    state: State,
    caller: Caller,
    wait_s: Annotated[float, Query(ge=0, le=60)] = 20.0,
) -> BatchPublic | Response:
    """The oldest queued batch for the worker's exact target, as soon as there is one."""
    deadline = time.monotonic() + min(wait_s, state.settings.max_wait_s)
    while True:
        batch = await run_in_threadpool(_lease_once, state, caller, worker_id)
        if batch is not None:
            return batch
        if time.monotonic() >= deadline or state.shutting_down():
            return Response(status_code=204)
        await asyncio.sleep(state.settings.poll_interval_s)


@router.post(
    "/v1/batches/{batch_id}/results",
    response_model=ResultsAccepted,
    summary="Post results for a leased batch",
)
def results(batch_id: str, body: ResultsPost, state: State, caller: Caller) -> ResultsAccepted:
    """Each candidate's final result (idempotent); renews the lease."""
    caller.require("worker")
    assert caller.worker_id is not None
    posted = [
        ResultIn(r.candidate_id, r.status, r.costs_s, r.error, r.build_s, r.measure_s)
        for r in body.results
    ]
    with state.session() as session:
        accepted, duplicates = post_results(
            session, caller.worker_id, batch_id, posted, state.settings.lease_timeout_s
        )
    return ResultsAccepted(accepted=accepted, duplicates=duplicates)


@router.post("/v1/batches/{batch_id}/release", response_model=Released, summary="Give a batch back")
def release(batch_id: str, state: State, caller: Caller) -> Released:
    """Candidates without a result go back to the queue (no attempt counted)."""
    caller.require("worker")
    assert caller.worker_id is not None
    with state.session() as session:
        return Released(released=release_batch(session, caller.worker_id, batch_id))


@router.get("/v1/workers", response_model=WorkersPublic, summary="The fleet")
def fleet(state: State, _user: User) -> WorkersPublic:
    """Every worker with its health and counters."""
    with state.session() as session:
        workers = list_workers(session, state.settings.heartbeat_interval_s)
        return WorkersPublic(items=[worker_public(w) for w in workers])
