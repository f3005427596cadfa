"""The cost model a target's jobs share (`service.cost_models`): checked in and out through
the database (SQLite and PostgreSQL), superseded versions removed, a lost one tolerated;
and over HTTP, a second job of a target starts from the model the first one trained."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session, sessionmaker

from codegen.target import canonical_target
from service.cost_models import check_in, check_out, cost_model_files
from service.db.engine import make_engine, make_session_factory
from service.db.models import BlobRow, CostModelRow
from service.settings import Settings
from tests.service.conftest import LiveService, run_service, service_settings
from tests.service.protocol_worker import ProtocolWorker, tiny_workload
from tuner.cost_model import XGBCostModel, saved_rows

TARGET = "llvm -mcpu=znver4 -num-cores=2"


def _saved_model(path: Path, rows: int, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    model = XGBCostModel()
    model.update(list(rng.random((rows, 8))), list(rng.random(rows)), ["task"] * rows)
    model.save(path)
    return path


@pytest.fixture
def factory(engine: Engine) -> sessionmaker[Session]:
    return make_session_factory(engine)


def _settings(tmp_path: Path, engine: Engine) -> Settings:
    return service_settings(tmp_path / "data", engine.url.render_as_string(hide_password=False))


def test_a_checked_in_model_is_checked_out_and_a_newer_one_replaces_it(
    factory: sessionmaker[Session], engine: Engine, tmp_path: Path
) -> None:
    settings = _settings(tmp_path, engine)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert not check_out(factory, settings, TARGET, empty).exists()  # no model yet
    first = _saved_model(tmp_path / "first.npz", 40, 0)
    check_in(factory, settings, TARGET, first)
    out = tmp_path / "out"
    out.mkdir()
    copy = check_out(factory, settings, TARGET, out)
    assert copy.read_bytes() == first.read_bytes() and saved_rows(copy) == 40
    with factory() as session:
        row = session.get(CostModelRow, TARGET)
        assert row is not None and row.rows == 40
        old = row.sha256
    check_in(factory, settings, TARGET, _saved_model(tmp_path / "second.npz", 55, 1))
    files = cost_model_files(settings)
    with factory() as session:
        row = session.get(CostModelRow, TARGET)
        assert row is not None and row.rows == 55 and row.sha256 != old
        blobs = session.scalar(select(func.count()).select_from(BlobRow))
        assert blobs == (1 if files.shared else 0)  # the superseded version is gone
    assert not files.path(old).exists() and files.path(row.sha256).exists()
    check_in(factory, settings, TARGET, tmp_path / "never_saved.npz")  # (nothing to do)
    check_in(factory, settings, "llvm -mcpu=haswell -num-cores=2", first)  # another target
    with factory() as session:
        assert session.scalar(select(func.count()).select_from(CostModelRow)) == 2


def test_a_lost_model_file_means_a_fresh_start(
    factory: sessionmaker[Session], engine: Engine, tmp_path: Path, caplog: Any
) -> None:
    settings = _settings(tmp_path, engine)
    check_in(factory, settings, TARGET, _saved_model(tmp_path / "m.npz", 30, 0))
    with factory() as session:
        row = session.get(CostModelRow, TARGET)
        assert row is not None
        cost_model_files(settings).path(row.sha256).unlink()
        if cost_model_files(settings).shared:
            session.execute(BlobRow.__table__.delete())
            session.commit()
    folder = tmp_path / "scratch"
    folder.mkdir()
    assert not check_out(factory, settings, TARGET, folder).exists()
    assert "is lost" in caplog.text


OPTIONS = {"batch_size": 4, "search": "random", "remeasure_top": 0,
           "measure": {"repeat": 1, "min_repeat_ms": 1}}  # fmt: skip


@pytest.fixture
def drivers(tmp_path: Path, database_url: str) -> Iterator[LiveService]:
    settings = service_settings(tmp_path / "data", database_url, run_drivers=True)
    yield from run_service(settings)


def _finished(client: httpx.Client, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        job = dict(client.get(f"/v1/jobs/{job_id}").json())
        if job["state"] in ("completed", "failed", "cancelled"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish")


def test_a_second_job_of_a_target_starts_from_the_model_the_first_trained(
    drivers: LiveService,
) -> None:
    worker = ProtocolWorker(drivers.url, drivers.registration_secret)
    worker.start()
    engine = make_engine(drivers.settings.resolved_database_url)
    factory = make_session_factory(engine)
    try:
        with drivers.client() as client:
            target = canonical_target("llvm")  # (what the worker reports)
            rows_after = []
            for rows in (8, 12):  # two workloads of one target
                body = {"workload": tiny_workload(rows), "target": target, "trials": 6,
                        "options": OPTIONS}  # fmt: skip
                created = client.post("/v1/jobs", json=body)
                assert created.status_code == 201, created.text
                job = _finished(client, created.json()["id"])
                assert job["state"] == "completed", job
                with factory() as session:
                    row = session.get(CostModelRow, target)
                    assert row is not None
                    rows_after.append(row.rows)
    finally:
        worker.stop()
        engine.dispose()
    # The first job's model holds its candidates; the second started from it and added its own.
    assert rows_after[0] >= 6 and rows_after[1] >= rows_after[0] + 6
