"""/healthz (no token) and /metrics (Prometheus text)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse
from sqlalchemy import text

from service.api.deps import State, User
from service.metrics import render_metrics
from service.schemas import Ok

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Ok, summary="Liveness and database check")
def healthz(state: State) -> Ok:
    """Ok when the service answers and its database does."""
    with state.session() as session:
        session.execute(text("SELECT 1"))
    return Ok()


@router.get(
    "/metrics",
    response_class=PlainTextResponse,
    summary="Prometheus metrics",
    responses={200: {"content": {"text/plain": {}}}},
)
def metrics(state: State, _user: User) -> PlainTextResponse:
    """Jobs by state, queue depth, live leases, measurements per second, workers."""
    with state.session() as session:
        body = render_metrics(session, state.settings.heartbeat_interval_s)
    return PlainTextResponse(body, media_type="text/plain; version=0.0.4")
