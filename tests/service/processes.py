"""Real `autotune serve` and `autotune worker` processes for the end-to-end service tests."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.service.conftest import free_port
from tests.support.cli import AUTOTUNE

FAST_ENV = {
    "AUTOTUNE_HEARTBEAT_INTERVAL_S": "1",
    "AUTOTUNE_LEASE_TIMEOUT_S": "4",
    "AUTOTUNE_DRIVER_LEASE_S": "3",
    "AUTOTUNE_SWEEP_INTERVAL_S": "0.3",
    "AUTOTUNE_POLL_INTERVAL_S": "0.1",
}
FAST_OPTIONS = {
    "batch_size": 4,
    "search": "random",
    "remeasure_top": 0,
    "measure": {"repeat": 1, "min_repeat_ms": 1},
    "feature_workers": 0,  # the fleet's workers measure on this machine's cores
}


@dataclass
class Fleet:
    """A service process (restartable on the same data) and its worker processes."""

    data_dir: Path
    database_url: str
    log_dir: Path
    port: int = field(default_factory=free_port)
    service: subprocess.Popen[bytes] | None = None
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    starts: int = 0

    @property
    def url(self) -> str:
        """The service's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        """The environment of every process: fast leases, the test database."""
        return {**os.environ, **FAST_ENV, "AUTOTUNE_DATABASE_URL": self.database_url}

    def start_service(self, *extra: str) -> None:
        """Start `autotune serve` (with `extra` arguments) and wait for /healthz."""
        self.starts += 1
        log = (self.log_dir / f"serve-{self.starts}.log").open("wb")
        command = [AUTOTUNE, "serve", "--port", str(self.port), "--data-dir", str(self.data_dir)]
        command += extra
        self.service = subprocess.Popen(command, env=self.env(), stdout=log, stderr=log)
        log.close()
        wait_for(lambda: _healthy(self.url), 90, "the service to answer /healthz", self)

    def stop_service(self, signum: int) -> None:
        """Send `signum` to the service and wait for it to exit."""
        assert self.service is not None
        self.service.send_signal(signum)
        self.service.wait(timeout=60)
        self.service = None

    def start_worker(self, name: str, servers: str | None = None) -> subprocess.Popen[bytes]:
        """Start `autotune worker` against the service (or the `servers` given: several
        replicas' URLs, separated by commas)."""
        secret = (self.data_dir / "registration.token").read_text().strip()
        log = (self.log_dir / f"worker-{name}.log").open("ab")
        command = [AUTOTUNE, "worker", "--server", servers or self.url, "--token", secret]
        command += ["--name", name]
        process = subprocess.Popen(
            [*command, "--lease-wait-s", "2"], env=self.env(), stdout=log, stderr=log
        )
        log.close()
        self.workers.append(process)
        return process

    def client(self) -> httpx.Client:
        """An admin client for the service."""
        token = (self.data_dir / "admin.token").read_text().strip()
        return httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {token}"}, timeout=60
        )

    def close(self) -> None:
        """Stop every process still running."""
        for process in [*self.workers, *([self.service] if self.service else [])]:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in [*self.workers, *([self.service] if self.service else [])]:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def logs(self) -> str:
        """The tail of every process log (for assertion messages)."""
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}"
            for path in sorted(self.log_dir.glob("*.log"))
        )


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def wait_for(
    condition: Callable[[], Any], timeout_s: float, what: str, fleet: Fleet | None = None
) -> Any:
    """Poll `condition` until it returns something truthy; fail after `timeout_s` (with
    the fleet's logs)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    logs = fleet.logs() if fleet is not None else ""
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}\n{logs}")
