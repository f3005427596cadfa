"""A real `autotune serve` in a subprocess on loopback, for tests of workers and the web page.

`running_service(tmp_path)` starts it on SQLite in a fresh data directory, waits for
/healthz, and yields a `RunningService` with its URL and the tokens it wrote; the block's
end stops it with SIGTERM. `tiny_workload()` is a Task JSON small enough that a job on it
finishes in seconds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from codegen.llvm import host_target
from ir.graph.nodes import Constant, Function, Var, call
from ir.graph.passes.pipeline import optimize
from ir.graph.types import TensorType
from tests.support.cli import AUTOTUNE
from tuner.tasks import extract_tasks

START_TIMEOUT_S = 90.0
FINAL_STATES = ("completed", "failed", "cancelled")


@dataclass
class RunningService:
    """A service subprocess and what a client needs to reach it."""

    url: str
    data_dir: Path
    admin_token: str
    registration_secret: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def client(self) -> httpx.Client:
        """An HTTP client with the admin token (close it, or use it as a context manager)."""
        headers = {"Authorization": f"Bearer {self.admin_token}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def log(self) -> str:
        """The service's output so far (for assertion messages)."""
        return self.log_path.read_text(errors="replace")[-4000:]

    def worker(self, *extra: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
        """Start `autotune worker` against this service (stderr piped, text mode)."""
        command = [AUTOTUNE, "worker", "--server", self.url, "--token", self.registration_secret]
        return subprocess.Popen(
            [*command, *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )

    def create_job(
        self, workload: Mapping[str, Any], trials: int, batch_size: int, min_repeat_ms: float = 1
    ) -> str:
        """Create a job tuning one workload; returns its id."""
        body = {
            "workload": dict(workload),
            "target": "llvm",
            "trials": trials,
            "options": {
                "batch_size": batch_size,
                "search": "random",
                "remeasure_top": 0,
                "measure": {"repeat": 2, "min_repeat_ms": min_repeat_ms},
            },
        }
        with self.client() as client:
            answer = client.post("/v1/jobs", json=body)
        assert answer.status_code == 201, answer.text
        job_id: str = answer.json()["id"]
        return job_id

    def job(self, job_id: str) -> dict[str, Any]:
        """GET /v1/jobs/{id}."""
        with self.client() as client:
            answer = client.get(f"/v1/jobs/{job_id}")
        assert answer.status_code == 200, answer.text
        data: dict[str, Any] = answer.json()
        return data

    def records(self, job_id: str) -> list[dict[str, Any]]:
        """Every record of a job."""
        with self.client() as client:
            answer = client.get("/v1/records", params={"job_id": job_id, "limit": 10_000})
        assert answer.status_code == 200, answer.text
        items: list[dict[str, Any]] = answer.json()["items"]
        return items

    def wait_for_job(self, job_id: str, timeout_s: float) -> dict[str, Any]:
        """Poll until the job reaches a final state; returns it (AssertionError on timeout)."""
        deadline = time.monotonic() + timeout_s
        while True:
            job = self.job(job_id)
            if job["state"] in FINAL_STATES:
                return job
            assert time.monotonic() < deadline, f"job still {job['state']}:\n{self.log()}"
            time.sleep(0.3)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def running_service(
    data_dir: Path, env: Mapping[str, str] | None = None, port: int = 0
) -> Iterator[RunningService]:
    """`autotune serve` on SQLite in `data_dir` (on `port`, default: a free one) until the
    block ends."""
    data_dir.mkdir(parents=True, exist_ok=True)
    port = port or _free_port()
    environ = {**os.environ, **(env or {})}
    environ.pop("AUTOTUNE_DATABASE_URL", None)  # always the embedded SQLite here
    log_path = data_dir / "service.log"
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [AUTOTUNE, "serve", "--port", str(port), "--data-dir", str(data_dir)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=environ,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert process.poll() is None, f"autotune serve exited:\n{log_path.read_text()}"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, f"no /healthz:\n{log_path.read_text()}"
            time.sleep(0.2)
        yield RunningService(
            url=url,
            data_dir=data_dir,
            admin_token=(data_dir / "admin.token").read_text().strip(),
            registration_secret=(data_dir / "registration.token").read_text().strip(),
            process=process,
            log_path=log_path,
        )
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def tiny_workload() -> dict[str, Any]:
    """The Task JSON of relu(x · Wᵀ) for a 16x32 by 32x32 dense layer with a constant weight."""
    x = Var("x", TensorType((16, 32)))
    weight = Constant(np.linspace(-1, 1, 32 * 32, dtype=np.float32).reshape(32, 32))
    fused = optimize(Function((x,), call("nn.relu", call("nn.dense", x, weight))))
    (task,) = extract_tasks(fused, host_target())
    return task.to_json()


def stop_process(process: subprocess.Popen[str], timeout_s: float = 30.0) -> tuple[int, str]:
    """Wait for a process (killing it after `timeout_s`); its exit code and stderr."""
    try:
        _, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate()
    return process.returncode, stderr or ""
