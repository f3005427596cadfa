"""End to end over real HTTP: `autotune serve`, two `autotune worker` processes, the
bundled model tuned to completion, a worker killed mid-batch, and the service killed
(SIGKILL) and stopped (SIGTERM) mid-job, resumed without re-measuring anything."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from service.db.engine import make_engine
from service.db.models import CandidateRow, RecordRow
from tests.service.processes import AUTOTUNE, FAST_OPTIONS, Fleet, wait_for
from tests.support.onnx_models import light_model_path

pytestmark = pytest.mark.slow
SQUEEZENET = light_model_path("light_squeezenet")


def submit(fleet: Fleet, trials: int) -> str:
    with fleet.client() as client:
        model = client.post("/v1/models", content=SQUEEZENET.read_bytes()).json()
        body = {"model_id": model["id"], "trials": trials, "options": FAST_OPTIONS}
        response = client.post("/v1/jobs", json=body)
        assert response.status_code == 201, response.text
        return str(response.json()["id"])


def job(fleet: Fleet, job_id: str) -> dict[str, Any]:
    with fleet.client() as client:
        return dict(client.get(f"/v1/jobs/{job_id}").json())


def finished(fleet: Fleet, job_id: str) -> dict[str, Any] | None:
    try:
        detail = job(fleet, job_id)
    except httpx.HTTPError:
        return None
    return detail if detail["state"] in ("completed", "failed", "cancelled") else None


def candidate_facts(database_url: str, job_id: str) -> tuple[dict[str, int], list[str], int]:
    """(candidates by status, candidate keys of the job's records, records per candidate max)."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            statuses = dict(
                connection.execute(
                    select(CandidateRow.status, func.count())
                    .where(CandidateRow.job_id == job_id)
                    .group_by(CandidateRow.status)
                ).all()
            )
            keys = list(
                connection.scalars(
                    select(RecordRow.candidate_key).where(RecordRow.job_id == job_id)
                )
            )
            per_candidate = connection.execute(
                select(func.count()).select_from(RecordRow).where(RecordRow.job_id == job_id)
                .group_by(RecordRow.measurement_id).order_by(func.count().desc()).limit(1)
            ).scalar()  # fmt: skip
    finally:
        engine.dispose()
    return {str(k): int(v) for k, v in statuses.items()}, keys, int(per_candidate or 0)


def retried_by(database_url: str, job_id: str) -> set[str]:
    """Names of the workers that measured candidates whose first lease expired."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            return set(
                connection.scalars(
                    select(RecordRow.worker)
                    .join(CandidateRow, CandidateRow.id == RecordRow.measurement_id)
                    .where(CandidateRow.job_id == job_id, CandidateRow.attempts >= 1)
                )
            )
    finally:
        engine.dispose()


def collect_events(fleet: Fleet, job_id: str, events: list[tuple[str, Any]]) -> threading.Thread:
    token = (fleet.data_dir / "admin.token").read_text().strip()

    def read() -> None:
        headers = {"Authorization": f"Bearer {token}"}
        with (
            contextlib.suppress(httpx.HTTPError),
            httpx.Client(base_url=fleet.url, headers=headers, timeout=None) as client,
            client.stream("GET", f"/v1/jobs/{job_id}/events") as response,
        ):
            kind = ""
            for line in response.iter_lines():
                if line.startswith("event:"):
                    kind = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    events.append((kind, json.loads(line.split(":", 1)[1])))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_two_workers_tune_the_model_and_survive_a_killed_worker(fleet: Fleet) -> None:
    fleet.start_service()
    doomed = fleet.start_worker("doomed")
    fleet.start_worker("survivor")
    job_id = submit(fleet, trials=16)
    events: list[tuple[str, Any]] = []
    reader = collect_events(fleet, job_id, events)

    def doomed_is_measuring() -> bool:
        with fleet.client() as client:
            workers = client.get("/v1/workers").json()["items"]
        return any(w["name"] == "doomed" and w["batch_id"] for w in workers)

    wait_for(doomed_is_measuring, 120, "the doomed worker to lease a batch", fleet)
    doomed.send_signal(signal.SIGKILL)
    doomed.wait()
    detail = wait_for(lambda: finished(fleet, job_id), 180, "the job to end", fleet)
    assert detail["state"] == "completed", fleet.logs()
    assert detail["trials_done"] == 16
    reader.join(timeout=10)
    assert events and events[0][0] == "progress" and events[-1] == ("end", {"state": "completed"})
    assert any(data.get("trials_done", 0) > 0 for kind, data in events if kind == "progress")

    statuses, keys, most = candidate_facts(fleet.database_url, job_id)
    assert "queued" not in statuses and sum(statuses.values()) == 16, statuses
    assert retried_by(fleet.database_url, job_id) == {"survivor"}  # the doomed batch moved
    assert len(keys) == 16 and len(set(keys)) == 16  # one final result each, none twice
    assert most == 1
    with fleet.client() as client:
        records = client.get("/v1/records", params={"job_id": job_id}).json()["items"]
        assert len(records) == 16
        assert {r["worker"] for r in records} <= {"doomed", "survivor"}
        assert {r["timing"] for r in records} == {"cold"}  # a model's job on a CPU
        best = client.get("/v1/records", params={"job_id": job_id, "best": True}).json()["items"]
        assert best and all(r["status"] == "ok" for r in best)
        tasks = [t for t in detail["tasks"] if t["trials"]]
        assert tasks and any(t["curve"] for t in tasks)


def test_service_killed_and_stopped_mid_job_resumes_without_remeasuring(fleet: Fleet) -> None:
    fleet.start_service()
    fleet.start_worker("w")
    # `autotune submit --wait` follows the job across both restarts.
    command = [AUTOTUNE, "submit", str(SQUEEZENET), "--trials", "20", "--wait", "--json"]
    command += ["--options", json.dumps(FAST_OPTIONS), "--server", fleet.url]
    command += ["--data-dir", str(fleet.data_dir)]
    submitter = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    fleet.workers.append(submitter)  # stopped with the fleet if the test fails

    def created() -> str | None:
        with fleet.client() as client:
            items = client.get("/v1/jobs").json()["items"]
        return str(items[0]["id"]) if items else None

    job_id = str(wait_for(created, 60, "the job to be created", fleet))
    for signum, after in ((signal.SIGKILL, 4), (signal.SIGTERM, 12)):
        wait_for(
            lambda after=after: job(fleet, job_id)["trials_done"] >= after,  # type: ignore[misc]
            180,
            f"{after} trials",
            fleet,
        )
        fleet.stop_service(signum)
        fleet.start_service()
    detail = wait_for(lambda: finished(fleet, job_id), 240, "the job to end", fleet)
    assert detail["state"] == "completed", fleet.logs()
    statuses, keys, most = candidate_facts(fleet.database_url, job_id)
    assert len(keys) == len(set(keys)) == 20, statuses  # nothing measured twice
    assert most == 1 and "queued" not in statuses
    out, err = submitter.communicate(timeout=60)
    assert submitter.returncode == 0, err.decode()
    assert json.loads(out)["state"] == "completed"
    assert b"20/20 trials" in err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_local_workers_end_with_the_service(tmp_path: Path, signum: int) -> None:
    logs = tmp_path / "logs"  # process handling does not depend on the database: SQLite only
    logs.mkdir()
    fleet = Fleet(tmp_path / "data", f"sqlite:///{tmp_path / 'serve.db'}", logs)
    try:
        fleet.start_service("--local-workers", "1")

        def registered() -> bool:
            with fleet.client() as client:
                return len(client.get("/v1/workers").json()["items"]) == 1

        wait_for(registered, 60, "the local worker to register", fleet)
        assert fleet.service is not None
        service_pid = fleet.service.pid
        fleet.stop_service(signum)

        def orphans() -> list[str]:
            return [
                line
                for line in _process_table()
                if f"--server {fleet.url}" in line and str(service_pid) not in line.split()[:1]
            ]

        wait_for(lambda: not orphans(), 20, "the local worker to exit", fleet)
    finally:
        fleet.close()


def _process_table() -> list[str]:
    import subprocess

    result = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True)
    return result.stdout.splitlines()
