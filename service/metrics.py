"""Prometheus metrics, written by hand in the text exposition format (version 0.0.4)."""

from __future__ import annotations

import time

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service.db.models import BatchRow, CandidateRow, LeaseRow, WorkerRow
from service.jobs import count_jobs_by_state

RATE_WINDOW_S = 60.0


def _metric(lines: list[str], name: str, kind: str, help_text: str) -> None:
    lines.append(f"# HELP {name} {help_text}")
    lines.append(f"# TYPE {name} {kind}")


def render_metrics(session: Session, heartbeat_interval_s: float) -> str:
    """The service's metrics as Prometheus text."""
    now = time.time()
    lines: list[str] = []
    _metric(lines, "autotune_jobs", "gauge", "Jobs by state.")
    for state, jobs in count_jobs_by_state(session).items():
        lines.append(f'autotune_jobs{{state="{state}"}} {jobs}')

    def count(query: object) -> int:
        return int(session.scalar(query) or 0)  # type: ignore[call-overload]

    _metric(lines, "autotune_queue_batches", "gauge", "Batches waiting for a worker.")
    lines.append(
        "autotune_queue_batches "
        f"{count(select(func.count()).select_from(BatchRow).where(BatchRow.state == 'queued'))}"
    )
    _metric(lines, "autotune_queue_candidates", "gauge", "Candidates without a final result.")
    queued = select(func.count()).select_from(CandidateRow).where(CandidateRow.status == "queued")
    lines.append(f"autotune_queue_candidates {count(queued)}")
    _metric(lines, "autotune_leases_live", "gauge", "Batch leases held by workers.")
    live = select(func.count()).select_from(LeaseRow).where(LeaseRow.state == "active")
    lines.append(f"autotune_leases_live {count(live)}")
    _metric(lines, "autotune_measurements_total", "counter", "Candidates with a final result.")
    finished = (
        select(func.count()).select_from(CandidateRow).where(CandidateRow.finished_at.is_not(None))
    )
    lines.append(f"autotune_measurements_total {count(finished)}")
    _metric(
        lines,
        "autotune_measurements_per_second",
        "gauge",
        f"Final results per second over the last {RATE_WINDOW_S:.0f} s.",
    )
    recent = finished.where(CandidateRow.finished_at >= now - RATE_WINDOW_S)
    lines.append(f"autotune_measurements_per_second {count(recent) / RATE_WINDOW_S:.6g}")
    _metric(lines, "autotune_workers", "gauge", "Registered workers by health.")
    healthy_since = now - 3 * heartbeat_interval_s
    workers = select(func.count()).select_from(WorkerRow)
    healthy = count(workers.where(WorkerRow.last_seen_at >= healthy_since))
    lines.append(f'autotune_workers{{health="healthy"}} {healthy}')
    lines.append(f'autotune_workers{{health="stale"}} {count(workers) - healthy}')
    return "\n".join(lines) + "\n"
