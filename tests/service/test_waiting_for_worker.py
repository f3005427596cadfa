"""Jobs that no worker can serve: refused when LLVM does not know their CPU, and waiting
(`waiting_for_worker`, holding no driver slot) until a worker of their target comes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from codegen.llvm import host_target
from tests.service.conftest import LiveService, run_service, service_settings
from tests.service.protocol_worker import ProtocolWorker, tiny_workload

# Waits on heartbeats and driver slices: run alone (`make test`).
pytestmark = [pytest.mark.slow, pytest.mark.serial]
OPTIONS = {"batch_size": 2, "search": "random", "remeasure_top": 0,
           "measure": {"repeat": 1, "min_repeat_ms": 1}}  # fmt: skip


@pytest.fixture
def one_driver(tmp_path: Path, database_url: str) -> Iterator[LiveService]:
    """A live service running jobs, one driver at a time."""
    settings = service_settings(tmp_path / "data", database_url, run_drivers=True, max_drivers=1)
    yield from run_service(settings)


def _other_cpu() -> str:
    """An exact CPU target LLVM knows that no worker here reports."""
    host = host_target()
    cpu = "haswell" if host.mcpu != "haswell" else "znver3"
    return f"llvm -mcpu={cpu} -num-cores={host.num_cores}"


def _job(client: httpx.Client, target: str, trials: int = 2) -> dict[str, Any]:
    body = {"workload": tiny_workload(), "target": target, "trials": trials, "options": OPTIONS}
    response = client.post("/v1/jobs", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def _until(client: httpx.Client, job_id: str, states: set[str], limit_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + limit_s
    while True:
        job = dict(client.get(f"/v1/jobs/{job_id}").json())
        if job["state"] in states or time.monotonic() > deadline:
            return job
        time.sleep(0.1)


def test_a_cpu_llvm_does_not_know_is_refused(live: LiveService) -> None:
    with live.client() as client:
        body = {"workload": tiny_workload(), "target": "llvm -mcpu=notacpu", "trials": 8}
        response = client.post("/v1/jobs", json=body)
        assert response.status_code == 422
        assert "-mcpu=notacpu: LLVM knows no such processor" in response.json()["detail"]
        # A GPU target is a job like any other (a GPU worker serves it).
        gpu = client.post("/v1/jobs", json={**body, "target": "cuda -arch=sm_90"})
        assert gpu.status_code == 201, gpu.text
        assert gpu.json()["target"] == "cuda -arch=sm_90"


def test_a_job_without_a_worker_waits_without_its_driver_slot_and_starts_when_one_comes(
    one_driver: LiveService,
) -> None:
    with one_driver.client() as client:
        unserved = _job(client, _other_cpu())
        waiting = _until(client, unserved["id"], {"waiting_for_worker"}, 15)
        assert waiting["state"] == "waiting_for_worker"
        assert f"no live worker measures for {_other_cpu()!r}" in waiting["error"]
        served = _job(client, str(host_target()))  # created second, one driver slot
        assert _until(client, served["id"], {"waiting_for_worker"}, 15)["state"] == (
            "waiting_for_worker"
        )
        worker = ProtocolWorker(one_driver.url, one_driver.registration_secret)
        worker.start()
        try:
            done = _until(client, served["id"], {"completed", "failed"}, 120)
            assert done["state"] == "completed" and done["trials_done"] == 2
            assert "live workers' targets" in _until(client, unserved["id"], set(), 0)["error"]
            still = client.get(f"/v1/jobs/{unserved['id']}").json()
            assert still["state"] == "waiting_for_worker" and str(host_target()) in still["error"]
        finally:
            worker.stop()


@pytest.fixture
def sliced(tmp_path: Path, database_url: str) -> Iterator[LiveService]:
    """One driver slot, given up after a second of driving while another job waits."""
    settings = service_settings(
        tmp_path / "data", database_url, run_drivers=True, max_drivers=1, driver_slice_s=1.0
    )
    yield from run_service(settings)


def test_a_long_job_gives_its_slot_to_a_later_one_in_turns(sliced: LiveService) -> None:
    worker = ProtocolWorker(sliced.url, sliced.registration_secret)
    worker.start()
    try:
        with sliced.client() as client:
            options = {**OPTIONS, "measure": {"repeat": 2, "min_repeat_ms": 30}}
            long_body = {"workload": tiny_workload(8), "trials": 40, "options": options}
            long_job = client.post("/v1/jobs", json=long_body).json()
            _until(client, long_job["id"], {"running"}, 30)
            short_body = {"workload": tiny_workload(12), "trials": 2, "options": options}
            short_job = client.post("/v1/jobs", json=short_body).json()
            short = _until(client, short_job["id"], {"completed", "failed"}, 120)
            long_now = client.get(f"/v1/jobs/{long_job['id']}").json()
            # The short job ran while the long one, created first, was not done.
            assert short["state"] == "completed" and long_now["state"] != "completed"
            assert long_now["trials_done"] < 40
            done = _until(client, long_job["id"], {"completed", "failed"}, 300)
            assert done["state"] == "completed" and done["trials_done"] == 40
    finally:
        worker.stop()
