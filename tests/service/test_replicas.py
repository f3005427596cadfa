"""Two `autotune serve` replicas that share only a PostgreSQL database (each its own data
directory), two workers given both replicas' URLs: a model uploaded to one replica is
tuned by a job created on the other; one replica is killed (SIGKILL) mid-job, and the
other finishes its job; every candidate has exactly one final result."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.codegen.aot.conftest import small_conv_model
from tests.service.processes import FAST_OPTIONS, Fleet, wait_for
from tests.service.test_end_to_end import candidate_facts

pytestmark = pytest.mark.slow


@pytest.fixture
def replicas(tmp_path: Path, database_url: str) -> Iterator[tuple[Fleet, Fleet]]:
    if not database_url.startswith("postgresql"):
        pytest.skip("replicas share a PostgreSQL database; SQLite is one service's file")
    logs = tmp_path / "logs"
    logs.mkdir()
    first = Fleet(tmp_path / "data-a", database_url, logs / "a")
    second = Fleet(tmp_path / "data-b", database_url, logs / "b")
    for fleet in (first, second):
        fleet.log_dir.mkdir()
    try:
        yield first, second
    finally:
        first.close()
        second.close()


def _job(fleet: Fleet, job_id: str) -> dict[str, Any] | None:
    try:
        with fleet.client() as client:
            return dict(client.get(f"/v1/jobs/{job_id}").json())
    except httpx.HTTPError:
        return None


def test_replicas_share_only_the_database_and_finish_each_others_jobs(
    replicas: tuple[Fleet, Fleet], tmp_path: Path
) -> None:
    first, second = replicas
    first.start_service()
    second.start_service()
    # One registration secret for both: made by whichever started first, in the database.
    secret = (first.data_dir / "registration.token").read_text()
    assert (second.data_dir / "registration.token").read_text() == secret
    for name in ("w1", "w2"):
        first.start_worker(name, servers=f"{first.url},{second.url}")
    model_bytes = small_conv_model().SerializeToString()
    with first.client() as client:
        model = client.post("/v1/models", content=model_bytes).json()
    assert not (second.data_dir / "models").exists()  # only the first replica's disk has it
    options = {**FAST_OPTIONS, "batch_size": 2, "measure": {"repeat": 2, "min_repeat_ms": 20}}
    jobs = []
    for fleet, trials in ((second, 16), (first, 8)):  # the model reaches the second replica
        with fleet.client() as client:  # through the database
            body = {"model_id": model["id"], "trials": trials, "options": options}
            if fleet is first:
                body["options"] = {**options, "count_shared_records": False}
            response = client.post("/v1/jobs", json=body)
            assert response.status_code == 201, response.text
            jobs.append(response.json()["id"])
    assert (second.data_dir / "models" / f"{model['id']}.onnx").is_file()
    # Kill the first replica once the jobs are under way (its drivers die with it).
    wait_for(
        lambda: (_job(first, jobs[0]) or {}).get("trials_done", 0) >= 2,
        180,
        "2 trials of the first job",
        first,
    )
    first.stop_service(signal.SIGKILL)
    done = [
        wait_for(
            lambda job_id=job_id: (
                j if (j := _job(second, job_id)) and j["state"] in ("completed", "failed") else None
            ),
            300,
            f"job {job_id} to end on the second replica",
            second,
        )
        for job_id in jobs
    ]
    logs = first.logs() + second.logs()
    assert [job["state"] for job in done] == ["completed", "completed"], logs
    for job_id in jobs:
        statuses, keys, most = candidate_facts(second.database_url, job_id)
        assert keys and len(keys) == len(set(keys)), statuses  # nothing measured twice
        assert most == 1 and set(statuses) <= {"ok", "build_error", "runtime_error"}, statuses
    # An artifact built on the second replica downloads from either (the first restarted).
    with second.client() as client:
        artifact = client.post("/v1/artifacts", json={"model_id": model["id"]}).json()
    ready = wait_for(
        lambda: _artifact(second, artifact["id"], "ready"), 240, "the artifact", second
    )
    first.start_service()
    with first.client() as client:
        downloaded = client.get(f"/v1/artifacts/{artifact['id']}/download")
    assert downloaded.status_code == 200 and len(downloaded.content) == ready["size_bytes"]
    assert ready["sha256"] and downloaded.headers["content-type"] == "application/gzip"


def _artifact(fleet: Fleet, artifact_id: str, state: str) -> dict[str, Any] | None:
    try:
        with fleet.client() as client:
            artifact = dict(client.get(f"/v1/artifacts/{artifact_id}").json())
    except httpx.HTTPError:
        return None
    assert artifact["state"] != "failed", artifact
    return artifact if artifact["state"] == state else None
