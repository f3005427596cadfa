"""The supervisor: a thread of the service process that sweeps expired leases and keeps
job drivers running, each in its own process, never in the request path."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import uuid

from sqlalchemy.orm import Session, sessionmaker

from service.db.engine import unit_of_work
from service.orchestration.driver import SETTINGS_ENV
from service.orchestration.leases import claim_next_job, renew_job_lease
from service.queue import sweep_expired_leases
from service.settings import Settings

logger = logging.getLogger(__name__)
STOP_TIMEOUT_S = 10.0


class Supervisor:
    """Sweeps leases and claims jobs for driver processes, `max_drivers` at most."""

    def __init__(self, settings: Settings, factory: sessionmaker[Session]) -> None:
        self.settings = settings
        self.factory = factory
        self.drivers: dict[str, tuple[subprocess.Popen[bytes], str]] = {}  # job -> (process, id)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="supervisor", daemon=True)

    def start(self) -> None:
        """Start the supervisor thread."""
        self.thread.start()

    def stop(self) -> None:
        """Stop claiming, ask every driver to stop (SIGTERM) and wait for them; their jobs
        stay running in the database and resume on the next start."""
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join(timeout=STOP_TIMEOUT_S)
        for process, _ in self.drivers.values():
            if process.poll() is None:
                process.terminate()
        for process, _ in self.drivers.values():
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.drivers.clear()

    def tick(self) -> None:
        """One round: sweep expired leases, reap finished drivers and renew the job leases
        of live ones (a driver process may take longer to start than its lease lasts),
        claim and start jobs."""
        with unit_of_work(self.factory) as session:
            expired = sweep_expired_leases(session, self.settings.max_attempts)
        if expired:
            logger.info("re-queued %d batches whose lease expired", expired)
        for job_id, (process, driver_id) in list(self.drivers.items()):
            if process.poll() is not None:
                del self.drivers[job_id]
                continue
            with unit_of_work(self.factory) as session:
                renew_job_lease(session, job_id, driver_id, self.settings.driver_lease_s)
        while len(self.drivers) < self.settings.max_drivers and not self.stopped.is_set():
            driver_id = uuid.uuid4().hex
            with unit_of_work(self.factory) as session:
                job = claim_next_job(session, driver_id, self.settings.driver_lease_s)
                claimed = job.id if job is not None else None
            if claimed is None:
                return
            self.drivers[claimed] = (self._spawn(claimed, driver_id), driver_id)

    def _spawn(self, job_id: str, driver_id: str) -> subprocess.Popen[bytes]:
        logger.info("starting a driver for job %s", job_id)
        env = {**os.environ, SETTINGS_ENV: self.settings.model_dump_json()}
        command = [
            sys.executable,
            "-m",
            "service.orchestration.driver",
            "--job",
            job_id,
            "--driver",
            driver_id,
            "--parent-pid",
            str(os.getpid()),
        ]
        return subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL)

    def _loop(self) -> None:
        while not self.stopped.is_set():
            try:
                self.tick()
            except Exception:  # the database may be briefly unavailable; try again
                logger.exception("supervisor round failed")
            self.stopped.wait(self.settings.sweep_interval_s)
