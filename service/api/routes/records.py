"""/v1/records: query, export and import tuning records."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse
from starlette.concurrency import run_in_threadpool

from service.api.body import read_limited
from service.api.convert import record_public
from service.api.deps import (
    MAX_OFFSET,
    State,
    User,
)
from service.errors import InvalidInput
from service.records import (
    RecordFilter,
    best_records,
    export_lines,
    import_records,
    query_records,
)
from service.schemas import ImportResult, RecordsPublic

router = APIRouter(prefix="/v1/records", tags=["records"])


def _filter(
    job_id: str | None = None,
    workload_key: str | None = None,
    target: str | None = None,
    status: str | None = None,
) -> RecordFilter:
    return RecordFilter(job_id, workload_key, target, status)


@router.get("", response_model=RecordsPublic, summary="Query records")
def query(
    state: State,
    _user: User,
    job_id: str | None = None,
    workload_key: str | None = None,
    target: str | None = None,
    status: str | None = None,
    best: bool = False,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> RecordsPublic:
    """Records by job, workload, target and status; `best` gives each workload's best."""
    where = _filter(job_id, workload_key, target, status)
    with state.session() as session:
        if best:
            rows = best_records(session, where)[offset : offset + limit]
        else:
            rows = query_records(session, where, limit, offset)
        return RecordsPublic(items=[record_public(row) for row in rows])


@router.get(
    "/export",
    response_class=PlainTextResponse,
    summary="Export records as JSON lines",
    responses={200: {"content": {"application/x-ndjson": {}}}},
)
def export(
    state: State,
    _user: User,
    job_id: str | None = None,
    workload_key: str | None = None,
    target: str | None = None,
    status: str | None = None,
    best: bool = False,
) -> PlainTextResponse:
    """One record per line, the format `autotune tune --records` reads and writes."""
    with state.session() as session:
        text = "".join(export_lines(session, _filter(job_id, workload_key, target, status), best))
    return PlainTextResponse(text, media_type="application/x-ndjson")


@router.post(
    "/import",
    response_model=ImportResult,
    summary="Import records from JSON lines (all or nothing)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    },
)
async def import_(request: Request, state: State, _user: User) -> ImportResult:
    """Store every record of the body, or none when a line is malformed."""
    body = await read_limited(request, state.settings.max_upload_bytes)
    try:
        text = body.decode()
    except UnicodeDecodeError as err:
        raise InvalidInput(f"malformed record import: not UTF-8 text: {err}") from None

    def store() -> ImportResult:
        with state.session() as session:
            imported, duplicates = import_records(session, text.splitlines())
            return ImportResult(imported=imported, duplicates=duplicates)

    return await run_in_threadpool(store)
