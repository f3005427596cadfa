"""`autotune worker` against a real `autotune serve` over loopback HTTP, with real measurement.

Each test starts the service (SQLite, fresh data directory), creates a job on a tiny
workload, and runs worker subprocesses: a burst worker measures the queued work and exits;
SIGTERM in the middle of a batch timed in turns posts the batches measured before and
releases that one, which another worker then measures (each candidate gets exactly one
result); SIGTERM while idle ends the long poll at once; results measured while the
service restarts are kept and posted when it is back; a candidate whose measurement child
crashes becomes runtime_error and the worker goes on.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from codegen.measure_child import FAULT_ENV
from tests.workers.service_process import (
    RunningService,
    running_service,
    stop_process,
    tiny_workload,
)

pytestmark = pytest.mark.slow


def test_a_burst_worker_measures_a_queued_job_and_exits(tmp_path: Path) -> None:
    with running_service(tmp_path / "data") as service:
        job_id = service.create_job(tiny_workload(), trials=4, batch_size=4)
        worker = service.worker("--burst", "--lease-wait-s", "10", "--name", "burst-1")
        code, stderr = stop_process(worker, timeout_s=240)
        assert code == 0, stderr
        job = service.wait_for_job(job_id, timeout_s=30)
        records = service.records(job_id)
        with service.client() as client:
            fleet = client.get("/v1/workers").json()["items"]
    assert job["state"] == "completed", job
    assert job["trials_done"] >= 4
    assert records and all(record["status"] == "ok" for record in records), records
    assert all(len(record["costs_s"]) == 2 for record in records)  # the job's repeat=2
    assert max(Counter(r["candidate_id"] for r in records).values()) == 1
    (worker_row,) = fleet
    assert worker_row["name"] == "burst-1" and worker_row["measured"] == len(records)
    assert "no work left" in stderr


def test_sigterm_mid_batch_posts_the_measured_and_releases_the_rest(tmp_path: Path) -> None:
    with running_service(tmp_path / "data") as service:
        # The survey's batch (the default schedule alone), then batches of 12, each timed
        # in turns (its results posted together at its end); the second batch's timing
        # (12 candidates x 2 x 100 ms, after its builds) is under way when the worker is
        # told to stop.
        job_id = service.create_job(tiny_workload(), trials=24, batch_size=12, min_repeat_ms=100)
        first = service.worker("--name", "stopped")
        _wait_for_records(service, job_id, first)  # the first batch is in
        _wait_for_lease(service, first)  # and the second leased
        first.send_signal(signal.SIGTERM)
        code, stderr = stop_process(first, timeout_s=60)
        assert code == 0, stderr
        measured_before = len(service.records(job_id))
        assert "released 12 unmeasured" in stderr, stderr
        second = service.worker("--burst", "--lease-wait-s", "10", "--name", "finisher")
        code, stderr = stop_process(second, timeout_s=300)
        assert code == 0, stderr
        job = service.wait_for_job(job_id, timeout_s=30)
        records = service.records(job_id)
    assert job["state"] == "completed", job
    assert measured_before == 1 and len(records) == 24
    per_candidate = Counter(record["candidate_id"] for record in records)
    assert set(per_candidate.values()) == {1}, per_candidate  # none lost, none twice
    assert len({record["worker"] for record in records}) == 2  # both workers measured


def test_a_crashing_candidate_is_a_runtime_error_and_the_worker_goes_on(tmp_path: Path) -> None:
    with running_service(tmp_path / "data") as service:
        job_id = service.create_job(tiny_workload(), trials=3, batch_size=3)
        # The hook makes every measurement child of this worker abort while running.
        worker = service.worker("--burst", "--lease-wait-s", "10", env={FAULT_ENV: "crash"})
        code, stderr = stop_process(worker, timeout_s=240)
        records = service.records(job_id)
    assert code == 0, stderr
    assert len(records) >= 2, records  # it went on after the first crash
    assert {record["status"] for record in records} == {"runtime_error"}
    assert all("SIGABRT" in record["error"] for record in records), records[0]["error"]


def _wait_for_lease(service: RunningService, worker: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 180
    while True:
        with service.client() as client:
            items = client.get("/v1/workers").json()["items"]
        if any(item["live_leases"] for item in items):
            return
        assert worker.poll() is None, f"the worker exited early: {worker.communicate()[1]}"
        assert time.monotonic() < deadline, service.log()
        time.sleep(0.2)


def _wait_for_records(service: RunningService, job_id: str, worker: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 180
    while not service.records(job_id):
        assert worker.poll() is None, f"the worker exited early: {worker.communicate()[1]}"
        assert time.monotonic() < deadline, service.log()
        time.sleep(0.2)


def test_sigterm_while_idle_ends_the_long_poll_at_once(tmp_path: Path) -> None:
    with running_service(tmp_path / "data") as service:
        worker = service.worker("--lease-wait-s", "60", "--name", "idle")
        deadline = time.monotonic() + 60
        with service.client() as client:
            while not client.get("/v1/workers").json()["items"]:
                assert time.monotonic() < deadline and worker.poll() is None
                time.sleep(0.2)
        time.sleep(1.0)  # now in its long poll
        started = time.monotonic()
        worker.send_signal(signal.SIGTERM)
        code, stderr = stop_process(worker, timeout_s=30)
    assert code == 0, stderr
    assert time.monotonic() - started < 10, "the worker waited for its long poll to end"


def test_results_measured_while_the_service_restarts_are_posted_after(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with running_service(data_dir) as service:
        port = int(service.url.rsplit(":", 1)[1])
        # A batch timed in turns posts its results together at its end: its repeats (10
        # candidates x 2 x 100 ms, with builds and checks a few seconds) end while the
        # service is down.
        job_id = service.create_job(tiny_workload(), trials=10, batch_size=10, min_repeat_ms=100)
        worker = service.worker("--burst", "--lease-wait-s", "10", "--name", "patient")
        _wait_for_lease(service, worker)
    # The service is stopped: the worker measures on and keeps its results.
    time.sleep(15.0)
    assert worker.poll() is None
    with running_service(data_dir, port=port) as service:
        code, stderr = stop_process(worker, timeout_s=300)
        assert code == 0, stderr
        job = service.wait_for_job(job_id, timeout_s=60)
        records = service.records(job_id)
    assert "service unreachable" in stderr and "keeping" in stderr, stderr
    assert job["state"] == "completed", job
    per_candidate = Counter(record["candidate_id"] for record in records)
    assert len(per_candidate) >= 10 and set(per_candidate.values()) == {1}, per_candidate
