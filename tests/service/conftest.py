"""Fixtures of the service tests: a database (SQLite, and PostgreSQL when it answers or in
CI), a live service on a loopback port, and HTTP clients for it."""

from __future__ import annotations

import functools
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import uvicorn
from sqlalchemy import Engine, func, select, text
from sqlalchemy.orm import Session

from service.app import create_app
from service.db import models as db
from service.db.engine import make_engine, make_session_factory
from service.db.migrate import upgrade
from service.settings import Settings

if TYPE_CHECKING:
    from tests.service.processes import Fleet

BASE_POSTGRES_URL = os.environ.get(
    "AUTOTUNE_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
# Under pytest-xdist each worker process wipes its own database (`test_gw0`, ...), so that
# two workers never drop each other's tables; a plain run uses the base database itself.
_XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
POSTGRES_URL = f"{BASE_POSTGRES_URL}_{_XDIST_WORKER}" if _XDIST_WORKER else BASE_POSTGRES_URL


def _libpq_url(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


def _postgres_answers() -> bool:
    try:
        import psycopg

        with psycopg.connect(_libpq_url(BASE_POSTGRES_URL), connect_timeout=2):
            return True
    except Exception:
        return False


@functools.cache
def _create_worker_database() -> None:
    """Create this xdist worker's database beside the base one, where it is missing."""
    import psycopg
    from psycopg import sql

    name = POSTGRES_URL.rsplit("/", 1)[1]
    with psycopg.connect(_libpq_url(BASE_POSTGRES_URL), autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (name,)
        ).fetchone()
        if exists is None:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _database_params() -> list[Any]:
    marks = [pytest.mark.postgres]
    if not os.environ.get("CI") and not _postgres_answers():
        marks.append(pytest.mark.skip(reason=f"no PostgreSQL at {POSTGRES_URL}"))
    return ["sqlite", pytest.param("postgresql", marks=marks)]


def reset_postgres() -> None:
    """Drop everything in the test database's public schema."""
    if POSTGRES_URL != BASE_POSTGRES_URL:
        _create_worker_database()
    engine = make_engine(POSTGRES_URL)
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(params=_database_params())
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database: a SQLite file, or the PostgreSQL test database wiped clean."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'test.db'}"
    reset_postgres()
    return POSTGRES_URL


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on the migrated test database."""
    engine = make_engine(database_url)
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session on the migrated test database (committed by the test when it wants)."""
    with make_session_factory(engine)() as session:
        yield session


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def row_counts(url: str) -> dict[str, int]:
    """Rows in every table of the service's database."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return {
                table.name: int(connection.scalar(select(func.count()).select_from(table)) or 0)
                for table in db.Base.metadata.sorted_tables
            }
    finally:
        engine.dispose()


@dataclass
class LiveService:
    """A service running in a thread of the test process."""

    url: str
    settings: Settings
    admin_token: str
    registration_secret: str

    def client(self, token: str | None = None, timeout_s: float = 30.0) -> httpx.Client:
        """An HTTP client for the service (the admin token unless told otherwise)."""
        token = self.admin_token if token is None else token
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout_s)

    def counts(self) -> dict[str, int]:
        """Rows in every table."""
        return row_counts(self.settings.resolved_database_url)


def service_settings(data_dir: Path, database_url: str, **overrides: Any) -> Settings:
    """Settings for a test service: short leases and intervals."""
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "database_url": database_url,
        "heartbeat_interval_s": 1.0,
        "lease_timeout_s": 5.0,
        "driver_lease_s": 3.0,
        "sweep_interval_s": 0.3,
        "poll_interval_s": 0.05,
        "max_upload_bytes": 2_000_000,
        "run_drivers": False,
    }
    values.update(overrides)
    return Settings(**values)


def run_service(settings: Settings) -> Iterator[LiveService]:
    """Run the app under uvicorn in a thread on a free loopback port until the block ends."""
    port = free_port()
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test service did not start")
        time.sleep(0.02)
    admin = (settings.data_dir / "admin.token").read_text().strip()
    secret = (settings.data_dir / "registration.token").read_text().strip()
    try:
        yield LiveService(f"http://127.0.0.1:{port}", settings, admin, secret)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture
def live(tmp_path: Path, database_url: str) -> Iterator[LiveService]:
    """A live service without job drivers (tests drive the queue themselves)."""
    yield from run_service(service_settings(tmp_path / "data", database_url))


@pytest.fixture
def live_drivers(tmp_path: Path, database_url: str) -> Iterator[LiveService]:
    """A live service that runs job drivers and artifact builders."""
    yield from run_service(service_settings(tmp_path / "data", database_url, run_drivers=True))


@pytest.fixture
def fleet(tmp_path: Path, database_url: str) -> Iterator[Fleet]:
    """`autotune serve` and `autotune worker` processes on `database_url`, their logs kept
    under tmp_path/logs; everything they started is stopped at the end."""
    from tests.service.processes import Fleet  # (it imports this module)

    logs = tmp_path / "logs"
    logs.mkdir()
    fleet = Fleet(tmp_path / "data", database_url, logs)
    try:
        yield fleet
    finally:
        fleet.close()
