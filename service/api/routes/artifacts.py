"""/v1/artifacts: compile a model with the best records (in the background), get, download."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse

from service.api.deps import State, User
from service.artifacts import artifact_file, get_artifact, request_artifact
from service.blobs import artifact_files
from service.db.models import ArtifactRow
from service.schemas import ArtifactCreate, ArtifactPublic

router = APIRouter(prefix="/v1/artifacts", tags=["artifacts"])


def _public(row: ArtifactRow) -> ArtifactPublic:
    return ArtifactPublic(
        id=row.id,
        model_id=row.model_id,
        target=row.target,
        state=row.state,
        error=row.error,
        sha256=row.sha256,
        size_bytes=row.size_bytes,
        coverage=row.coverage,
        records_used=len(row.record_ids),
        created_at=row.created_at,
        finished_at=row.finished_at,
    )


@router.post(
    "", status_code=202, response_model=ArtifactPublic, summary="Build (or reuse) an artifact"
)
def create(body: ArtifactCreate, state: State, _user: User) -> ArtifactPublic:
    """Queue a build with today's best records; the same inputs give the same artifact."""
    with state.session() as session:
        return _public(request_artifact(session, body.model_id, body.target))


@router.get("/{artifact_id}", response_model=ArtifactPublic, summary="Get an artifact")
def get_one(artifact_id: str, state: State, _user: User) -> ArtifactPublic:
    """Its state, coverage, size and hash."""
    with state.session() as session:
        return _public(get_artifact(session, artifact_id))


@router.get(
    "/{artifact_id}/download",
    response_class=FileResponse,
    summary="Download a built artifact (.tar.gz)",
    responses={200: {"content": {"application/gzip": {}}}, 409: {"description": "not ready"}},
)
def download(artifact_id: str, state: State, _user: User) -> FileResponse:
    """The artifact's .tar.gz, once it is ready (409 before)."""
    with state.session() as session:
        row = get_artifact(session, artifact_id)
        path = artifact_file(session, artifact_files(state.settings), row)
    return FileResponse(path, media_type="application/gzip", filename=f"{row.sha256}.tar.gz")
