"""The FastAPI application: `create_app(settings)`.

On start it applies migrations, creates the admin token (in the data directory) and the
registration secret (in the database, shared by replicas, and copied to the data
directory) on first start, and (unless `run_drivers` is off) starts the
supervisor that sweeps leases and runs job drivers in background processes.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI

from service.api.deps import AppState
from service.api.errors import install_error_handlers
from service.api.routes import artifacts, health, jobs, models, records, tokens, workers
from service.db.engine import make_engine, make_session_factory, unit_of_work
from service.db.migrate import upgrade
from service.orchestration.supervisor import Supervisor
from service.settings import Settings
from service.tokens import ensure_admin_token, registration_secret


def create_app(settings: Settings, shutting_down: Callable[[], bool] | None = None) -> FastAPI:
    """The service's app for `settings`; `shutting_down` (e.g. the uvicorn server's exit
    flag) tells long polls and event streams to end early."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        engine = make_engine(settings.resolved_database_url)
        upgrade(engine)
        factory = make_session_factory(engine)
        with unit_of_work(factory) as session:
            ensure_admin_token(session, settings.data_dir)
            secret = registration_secret(session, settings.data_dir, settings.registration_secret)
        app.state.autotune = AppState(settings, factory, secret, shutting_down or (lambda: False))
        supervisor = Supervisor(settings, factory) if settings.run_drivers else None
        if supervisor is not None:
            supervisor.start()
        try:
            yield
        finally:
            if supervisor is not None:
                supervisor.stop()
            engine.dispose()

    app = FastAPI(
        title="autotune",
        version="1",
        description="Auto-tuning compiler service: models, tuning jobs, records, workers.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    for module in (health, models, jobs, records, workers, tokens, artifacts):
        app.include_router(module.router)
    if importlib.util.find_spec("service.web") is not None:
        web = importlib.import_module("service.web")
        app.include_router(web.router)
    return app
