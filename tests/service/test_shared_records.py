"""Records are shared across jobs: the same workload in two concurrent jobs is tuned once,
and a later job starts from the records (nothing measured again)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from service.db.engine import make_engine
from service.db.models import RecordRow
from tests.service.conftest import LiveService
from tests.service.protocol_worker import ProtocolWorker, tiny_workload

pytestmark = pytest.mark.slow
OPTIONS = {
    "batch_size": 2,
    "search": "random",
    "remeasure_top": 0,
    "measure": {"repeat": 1, "min_repeat_ms": 1},
}


@pytest.fixture
def worker(live_drivers: LiveService) -> Iterator[ProtocolWorker]:
    thread = ProtocolWorker(live_drivers.url, live_drivers.registration_secret)
    thread.start()
    yield thread
    thread.stop()


def create(client: httpx.Client, workload: dict[str, Any], trials: int, **options: Any) -> str:
    body = {"workload": workload, "trials": trials, "options": {**OPTIONS, **options}}
    response = client.post("/v1/jobs", json=body)
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def wait_done(client: httpx.Client, job_ids: list[str]) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        jobs = [client.get(f"/v1/jobs/{job_id}").json() for job_id in job_ids]
        if all(job["state"] not in ("queued", "running") for job in jobs):
            return jobs
        time.sleep(0.2)
    raise AssertionError(f"jobs did not end: {[j['state'] for j in jobs]}")


def candidate_keys(url: str) -> list[str]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return list(connection.scalars(select(RecordRow.candidate_key)))
    finally:
        engine.dispose()


def test_one_workload_in_two_jobs_is_tuned_once(
    live_drivers: LiveService, worker: ProtocolWorker
) -> None:
    workload = tiny_workload()
    with live_drivers.client() as client:
        first, second = create(client, workload, 4), create(client, workload, 4)
        jobs = wait_done(client, [first, second])
        assert [job["state"] for job in jobs] == ["completed", "completed"]
        keys = candidate_keys(live_drivers.settings.resolved_database_url)
        assert len(keys) == 4 == len(set(keys))  # the second job reused the first's records
        assert [job["tasks"][0]["best_gflops"] is not None for job in jobs] == [True, True]
        # A later job with a budget of its own starts from the records: nothing repeated.
        third = create(client, workload, 3, count_shared_records=False)
        (done,) = wait_done(client, [third])
        assert done["state"] == "completed"
        # Its trials are its own three, not the first jobs' four besides (7/3 before).
        assert done["trials_done"] == 3 and done["tasks"][0]["trials"] == 3
        # A job whose budget the shared records already spend reports its budget, no more.
        fourth = create(client, workload, 2)
        (spent,) = wait_done(client, [fourth])
        assert spent["state"] == "completed" and spent["trials_done"] == 2
        keys = candidate_keys(live_drivers.settings.resolved_database_url)
        assert len(keys) == 7 == len(set(keys))
        mine = client.get("/v1/records", params={"job_id": third}).json()["items"]
        assert len(mine) == 3
        # A single workload's job times on warm caches unless told; a cold job compares
        # nothing with the warm records, so it measures its own.
        assert {r["timing"] for r in mine} == {"warm"}
        cold = create(client, workload, 3, measure={**OPTIONS["measure"], "flush_cache": True})
        assert wait_done(client, [cold])[0]["state"] == "completed"
        mine = client.get("/v1/records", params={"job_id": cold}).json()["items"]
        assert len(mine) == 3 and {r["timing"] for r in mine} == {"cold"}


def test_cancel_stops_a_running_job_and_frees_its_workloads(
    live_drivers: LiveService, worker: ProtocolWorker
) -> None:
    workload = tiny_workload()
    with live_drivers.client() as client:
        job_id = create(client, workload, 10_000)
        deadline = time.monotonic() + 60
        while client.get(f"/v1/jobs/{job_id}").json()["trials_done"] < 2:
            assert time.monotonic() < deadline, "the job made no progress"
            time.sleep(0.2)
        assert client.post(f"/v1/jobs/{job_id}/cancel").json()["state"] == "cancelled"
        # The workload lease is released: a new job on the same workload runs to the end.
        later = create(client, workload, 2, count_shared_records=False)
        assert wait_done(client, [later])[0]["state"] == "completed"
        cancelled = client.get(f"/v1/jobs/{job_id}").json()
        assert cancelled["state"] == "cancelled"
        metrics = client.get("/metrics").text
        assert "autotune_queue_candidates 0" in metrics and "autotune_leases_live 0" in metrics


def test_a_job_that_cannot_run_is_refused_with_a_message(live_drivers: LiveService) -> None:
    with live_drivers.client() as client:
        body = {"workload": tiny_workload(), "trials": 2,
                "options": {**OPTIONS, "search_options": {"bogus_option": 1}}}  # fmt: skip
        response = client.post("/v1/jobs", json=body)
        assert response.status_code == 422
        assert "search_options has no bogus_option for random search" in response.text
