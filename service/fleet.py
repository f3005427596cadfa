"""Workers: registration (which issues a worker token), heartbeats and the fleet view."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from codegen.errors import TargetError
from codegen.target import parse_target
from service.db.models import LeaseRow, WorkerRow
from service.errors import Forbidden, InvalidInput, NotFound
from service.tokens import Principal, create_token


@dataclass(frozen=True)
class WorkerHealth:
    """A worker row with its health as the fleet view shows it."""

    worker: WorkerRow
    healthy: bool
    live_leases: int


def register_worker(
    session: Session, name: str, target: str, device: dict[str, Any], version: str
) -> tuple[WorkerRow, str]:
    """Register a worker for its exact target; returns its row and its worker token."""
    try:
        parse_target(target, ask_local_gpu=False)  # (stored as the worker names it)
    except TargetError as err:
        raise InvalidInput(f"unknown target: {err}") from None
    now = time.time()
    worker = WorkerRow(
        id=uuid.uuid4().hex,
        name=(name or "worker")[:200],
        target=target,
        device=device,
        version=version[:100],
        state="idle",
        batch_id=None,
        registered_at=now,
        last_seen_at=now,
        measured=0,
        failed=0,
    )
    session.add(worker)
    session.flush()
    _, secret = create_token(session, f"worker {worker.name}", "worker", worker.id)
    return worker, secret


def worker_of(session: Session, principal: Principal, worker_id: str) -> WorkerRow:
    """The worker a worker token acts as; Forbidden for another worker's id."""
    principal.require("worker")
    if principal.worker_id != worker_id:
        raise Forbidden(f"this token belongs to another worker, not {worker_id!r}")
    worker = session.get(WorkerRow, worker_id)
    if worker is None:
        raise NotFound(f"no worker {worker_id!r}")
    return worker


def heartbeat(session: Session, worker: WorkerRow, state: str, lease_timeout_s: float) -> None:
    """Note a worker's heartbeat; a busy worker's active lease is renewed."""
    now = time.time()
    worker.last_seen_at = now
    if state == "busy" and worker.batch_id is not None:
        for lease in session.scalars(
            select(LeaseRow).where(
                LeaseRow.worker_id == worker.id,
                LeaseRow.batch_id == worker.batch_id,
                LeaseRow.state == "active",
            )
        ):
            lease.expires_at = now + lease_timeout_s
    elif state == "idle" and worker.batch_id is None:
        worker.state = "idle"


def list_workers(session: Session, heartbeat_interval_s: float) -> list[WorkerHealth]:
    """Every worker, newest first, healthy when heard from within three heartbeats."""
    now = time.time()
    counts = dict(
        session.execute(
            select(LeaseRow.worker_id, func.count())
            .where(LeaseRow.state == "active")
            .group_by(LeaseRow.worker_id)
        ).all()
    )
    rows = session.scalars(select(WorkerRow).order_by(WorkerRow.registered_at.desc()))
    return [
        WorkerHealth(
            row,
            healthy=now - row.last_seen_at <= 3 * heartbeat_interval_s,
            live_leases=int(counts.get(row.id, 0)),
        )
        for row in rows
    ]


def healthy_workers(session: Session, target: str, heartbeat_interval_s: float) -> int:
    """How many workers of this exact target were heard from within three heartbeats."""
    since = time.time() - 3 * heartbeat_interval_s
    count = session.scalar(
        select(func.count())
        .select_from(WorkerRow)
        .where(WorkerRow.target == target, WorkerRow.last_seen_at >= since)
    )
    return int(count or 0)
