"""The supervisor: a thread of the service process that sweeps expired leases and keeps
job drivers and artifact builders running, each in its own process, never in the
request path."""

from __future__ import annotations

import functools
import logging
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from service.artifacts import claim_next_artifact, renew_artifact_lease
from service.db.engine import unit_of_work
from service.orchestration.driver import SETTINGS_ENV
from service.orchestration.leases import claim_next_job, renew_job_lease, review_waiting_jobs
from service.queue import sweep_expired_leases
from service.settings import Settings

logger = logging.getLogger(__name__)
STOP_TIMEOUT_S = 10.0


@dataclass
class _Child:
    """A background process and how to renew the lease on what it works on."""

    process: subprocess.Popen[bytes]
    renew: Callable[[Session], object]


class Supervisor:
    """Sweeps leases; claims jobs for driver processes (`max_drivers` at most) and
    queued artifacts for builder processes (one at a time)."""

    def __init__(self, settings: Settings, factory: sessionmaker[Session]) -> None:
        self.settings = settings
        self.factory = factory
        self.children: dict[str, _Child] = {}  # "job:<id>" or "artifact:<id>"
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="supervisor", daemon=True)

    def start(self) -> None:
        """Start the supervisor thread."""
        self.thread.start()

    def stop(self) -> None:
        """Stop claiming, ask every child to stop (SIGTERM) and wait for them; their jobs
        stay running in the database and resume on the next start."""
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join(timeout=STOP_TIMEOUT_S)
        for child in self.children.values():
            if child.process.poll() is None:
                child.process.terminate()
        for child in self.children.values():
            try:
                child.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
        self.children.clear()

    def tick(self) -> None:
        """One round: sweep expired leases; reap finished children and renew the leases
        of live ones (a child may take longer to start than its lease lasts); claim and
        start jobs and artifact builds."""
        lease_s = self.settings.driver_lease_s
        with unit_of_work(self.factory) as session:
            expired = sweep_expired_leases(session, self.settings.max_attempts)
        if expired:
            logger.info("re-queued %d batches whose lease expired", expired)
        for name, child in list(self.children.items()):
            if child.process.poll() is not None:
                del self.children[name]
                continue
            with unit_of_work(self.factory) as session:
                child.renew(session)
        # A job its driver gave back for want of a worker waits without one (its slot
        # free for others) until a worker of its target is heard from.
        with unit_of_work(self.factory) as session:
            review_waiting_jobs(session, time.time() - 3 * self.settings.heartbeat_interval_s)
        while self._drivers() < self.settings.max_drivers and not self.stopped.is_set():
            driver_id = uuid.uuid4().hex
            with unit_of_work(self.factory) as session:
                job = claim_next_job(session, driver_id, lease_s)
                job_id = job.id if job is not None else None
            if job_id is None:
                break
            process = self._spawn(
                "service.orchestration.driver", "--job", job_id, "--driver", driver_id
            )
            renew = functools.partial(
                renew_job_lease, job_id=job_id, driver_id=driver_id, lease_s=lease_s
            )
            self.children[f"job:{job_id}"] = _Child(process, renew)
        if len(self.children) - self._drivers() == 0 and not self.stopped.is_set():
            with unit_of_work(self.factory) as session:
                artifact = claim_next_artifact(session, lease_s)
                artifact_id = artifact.id if artifact is not None else None
            if artifact_id is not None:
                process = self._spawn(
                    "service.orchestration.artifact_builder", "--artifact", artifact_id
                )
                renew_build = functools.partial(
                    renew_artifact_lease, artifact_id=artifact_id, lease_s=lease_s
                )
                self.children[f"artifact:{artifact_id}"] = _Child(process, renew_build)

    def _drivers(self) -> int:
        return sum(1 for name in self.children if name.startswith("job:"))

    def _spawn(self, module: str, *args: str) -> subprocess.Popen[bytes]:
        logger.info("starting %s %s", module, " ".join(args))
        env = {**os.environ, SETTINGS_ENV: self.settings.model_dump_json()}
        command = [sys.executable, "-m", module, *args, "--parent-pid", str(os.getpid())]
        return subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL)

    def _loop(self) -> None:
        while not self.stopped.is_set():
            try:
                self.tick()
            except Exception:  # the database may be briefly unavailable; try again
                logger.exception("supervisor round failed")
            self.stopped.wait(self.settings.sweep_interval_s)
