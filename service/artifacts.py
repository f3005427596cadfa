"""Artifacts: a stored model compiled for a target with the best records in the database.

Requesting an artifact picks the declared best record (`tuner.records.tuned_record`) of each
of the model's workloads on the target; the artifact is keyed by the model, the target,
those records and the compiler's fingerprint (`codegen.aot.fingerprint`), so the same
inputs give the same artifact (built once, then served from the data directory) and a
service running newer compiler code builds anew. Builds run in a background process
(`service.orchestration.artifact_builder`), claimed like jobs.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from pathlib import Path

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from codegen.aot.fingerprint import compiler_fingerprint
from codegen.errors import TargetError
from codegen.llvm import parse_cpu_target
from service.blobs import FileStore
from service.db.models import ArtifactRow, ModelRow, RecordRow
from service.errors import Conflict, InvalidInput, NotFound
from service.model_store import get_model
from service.records import record_from_row
from tuner.records import tuned_record


def best_record_rows(session: Session, model: ModelRow, target: str) -> list[RecordRow]:
    """The declared best record row of each of the model's workloads on `target`."""
    chosen: list[RecordRow] = []
    for key in sorted({task["workload_key"] for task in model.info["tasks"]}):
        rows = list(
            session.scalars(
                select(RecordRow).where(
                    RecordRow.workload_key == key,
                    RecordRow.target == target,
                    RecordRow.status == "ok",
                )
            )
        )
        pairs = [(row, record_from_row(row)) for row in rows]
        best = tuned_record((record for _, record in pairs), key, target)
        chosen.extend(row for row, record in pairs if record is best)
    return chosen


def request_artifact(session: Session, model_id: str, target: str) -> ArtifactRow:
    """The artifact of this model and target with today's best records: an existing one
    built from the same inputs (unless its build failed), else a new queued build."""
    model = get_model(session, model_id)
    try:
        exact = str(parse_cpu_target(target))
    except TargetError as err:
        raise InvalidInput(f"unknown target {target!r}: {err}") from None
    rows = best_record_rows(session, model, exact)
    identity = {
        "model": model.id,
        "target": exact,
        "records": sorted(r.candidate_key for r in rows),
        "compiler": compiler_fingerprint(),
    }
    inputs_key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
    existing = session.scalars(
        select(ArtifactRow).where(ArtifactRow.inputs_key == inputs_key)
    ).first()
    if existing is not None:
        if existing.state != "failed":
            return existing
        session.delete(existing)
        session.flush()
    artifact = ArtifactRow(
        id=uuid.uuid4().hex,
        model_id=model.id,
        target=exact,
        inputs_key=inputs_key,
        record_ids=[row.id for row in rows],
        state="queued",
        error="",
        coverage=[],
        manifest={},
        created_at=time.time(),
    )
    session.add(artifact)
    session.flush()
    return artifact


def get_artifact(session: Session, artifact_id: str) -> ArtifactRow:
    """The artifact with this id; NotFound otherwise."""
    row = session.get(ArtifactRow, artifact_id)
    if row is None:
        raise NotFound(f"no artifact {artifact_id!r}")
    return row


def artifact_file(session: Session, files: FileStore, row: ArtifactRow) -> Path:
    """The built artifact's file (fetched from the database on a replica that lacks it);
    Conflict while it is not ready."""
    if row.state != "ready" or row.sha256 is None:
        raise Conflict(f"artifact {row.id} is {row.state}{': ' + row.error if row.error else ''}")
    try:
        return files.get(session, row.sha256)
    except NotFound:
        raise NotFound(f"artifact {row.id}'s file is missing: {files.path(row.sha256)}") from None


def claim_next_artifact(session: Session, lease_s: float) -> ArtifactRow | None:
    """Claim the oldest queued artifact (or one whose builder died) for building."""
    now = time.time()
    query = (
        select(ArtifactRow)
        .where(
            or_(
                ArtifactRow.state == "queued",
                (ArtifactRow.state == "building") & (ArtifactRow.lease_until < now),
            )
        )
        .order_by(ArtifactRow.created_at)
        .limit(1)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    row = session.scalars(query).first()
    if row is not None:
        row.state = "building"
        row.lease_until = now + lease_s
        session.flush()
    return row


def renew_artifact_lease(session: Session, artifact_id: str, lease_s: float) -> None:
    """Extend a building artifact's lease."""
    row = session.get(ArtifactRow, artifact_id)
    if row is not None and row.state == "building":
        row.lease_until = time.time() + lease_s
