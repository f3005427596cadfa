"""A job driver: tunes one job with the tuner's loop, measuring through the worker queue.

Runs in its own process (`python -m service.orchestration.driver --job ID --driver ID`,
settings in the AUTOTUNE_DRIVER_SETTINGS environment variable as JSON), started by the
supervisor. A keeper thread renews the driver's lease on its job and its workload leases;
the driver exits when it loses the lease or its parent (the service) dies, so a
restarted service or another replica resumes the job.

Step 1. Wait for the job's candidates already queued (by a driver that died): they are
        measured once, by workers, and become records.
Step 2. Take the job's workload leases (waiting while another job tunes one of them).
Step 3. `tuner.tune.tune_tasks` with the queue as measurer and the database's records as
        the store: it resumes from every record of the workloads, so nothing recorded is
        measured again.
Step 4. Store each task's summary and mark the job completed.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType

from sqlalchemy.orm import Session, sessionmaker

from codegen.measure import MeasureInput, MeasureOptions, MeasureResult
from codegen.target import Target, parse_target
from service import cost_models
from service.blobs import model_files
from service.db.engine import make_engine, make_session_factory, unit_of_work
from service.db.models import JobRow, JobTaskRow
from service.fleet import healthy_workers
from service.job_options import job_tune_options
from service.model_store import model_tasks
from service.orchestration import leases
from service.queue import (
    CANCELLED,
    batch_outcome,
    cancel_job_batches,
    job_has_pending,
    queue_batch,
)
from service.records import JobRecordStore
from service.settings import Settings
from tuner.records import Record
from tuner.size_histogram import SizeHistogram
from tuner.tasks import Task
from tuner.tune import TuneProgress, TuneResult, tune_tasks

SETTINGS_ENV = "AUTOTUNE_DRIVER_SETTINGS"
logger = logging.getLogger(__name__)


class JobStopped(Exception):
    """The job was cancelled, or this driver must stop (lease lost, SIGTERM)."""


class NoWorker(Exception):
    """No live worker can measure the job's batches: the job waits for one, driverless."""


class SliceOver(Exception):
    """The driver has held its slot for its time slice while another job waits for one."""


class Driver:
    """Drives one job; see the module docstring."""

    def __init__(
        self, settings: Settings, factory: sessionmaker[Session], job_id: str, driver_id: str
    ) -> None:
        self.settings = settings
        self.factory = factory
        self.job_id = job_id
        self.driver_id = driver_id
        self.stopping = threading.Event()
        self.poll_s = settings.poll_interval_s
        self.started = time.monotonic()

    # -- checks ----------------------------------------------------------------------------

    def check(self) -> None:
        """Raise JobStopped when the job was cancelled or the driver is stopping."""
        if self.stopping.is_set():
            raise JobStopped("driver stopping")
        with unit_of_work(self.factory) as session:
            job = session.get(JobRow, self.job_id)
            if job is None or job.state != "running" or job.driver_id != self.driver_id:
                raise JobStopped(f"job is {job.state if job else 'gone'}")

    def wait(self, ready: Callable[[Session], bool]) -> None:
        """Poll until `ready(session)` holds, checking for cancellation in between."""
        while True:
            with unit_of_work(self.factory) as session:
                if ready(session):
                    return
            self.check()
            time.sleep(self.poll_s)

    def _check_workers(self, session: Session, target: str, since: float | None) -> float | None:
        """When no worker of `target` has been heard from since `since` for three
        heartbeats (none can measure the batches), raise NoWorker; else the new `since`
        (None while a worker is live)."""
        if healthy_workers(session, target, self.settings.heartbeat_interval_s):
            return None
        now = time.monotonic()
        if since is None:
            return now
        if now - since > 3 * self.settings.heartbeat_interval_s:
            raise NoWorker(f"no live worker for {target!r}")
        return since

    def park(self) -> None:
        """Give the job back to wait for a worker (`leases.park_job`); its queued batches
        stay, for the driver that resumes it."""
        since = time.time() - 3 * self.settings.heartbeat_interval_s
        with unit_of_work(self.factory) as session:
            leases.park_job(session, self.job_id, self.driver_id, since)

    # -- the measurer ----------------------------------------------------------------------

    def measure(
        self, inputs: Sequence[MeasureInput], options: MeasureOptions
    ) -> list[MeasureResult]:
        """Queue the candidates (split into one batch per healthy worker of the target, so
        they are measured in parallel) and wait for every result, in input order."""
        if not inputs:
            return []
        self.check()
        if time.monotonic() - self.started > self.settings.driver_slice_s:
            with unit_of_work(self.factory) as session:
                if leases.others_queued(session, self.job_id):
                    raise SliceOver(f"{self.settings.driver_slice_s:g} s driven, others wait")
        target = inputs[0].target
        with unit_of_work(self.factory) as session:
            workers = healthy_workers(session, target, self.settings.heartbeat_interval_s)
            size = math.ceil(len(inputs) / max(1, min(workers, len(inputs))))
            batch_ids = [
                queue_batch(
                    session,
                    self.job_id,
                    inputs[0].task_json,
                    target,
                    options.to_json(),
                    [candidate.trace_json for candidate in inputs[start : start + size]],
                ).id
                for start in range(0, len(inputs), size)
            ]
        results: list[MeasureResult] = []
        workerless_since: float | None = None

        def done(session: Session) -> bool:
            nonlocal workerless_since
            outcomes = [batch_outcome(session, batch_id) for batch_id in batch_ids]
            if any(rows is None for rows in outcomes):
                workerless_since = self._check_workers(session, target, workerless_since)
                return False
            rows = [row for batch in outcomes for row in batch or []]
            if any(row.status == CANCELLED for row in rows):
                raise JobStopped("job cancelled")
            results.extend(
                MeasureResult(row.status, tuple(row.costs_s), row.error, row.build_s, row.measure_s)
                for row in rows
            )
            return True

        self.wait(done)
        return results

    # -- progress --------------------------------------------------------------------------

    def note_progress(self, progress: TuneProgress) -> None:
        """Store a task's trials and best cost, and the job's trial count."""
        with unit_of_work(self.factory) as session:
            task = (
                session.query(JobTaskRow)
                .filter_by(job_id=self.job_id, position=progress.task_index)
                .one()
            )
            task.trials = progress.task_trials
            if progress.task_best_cost_s is not None:
                task.best_cost_s = progress.task_best_cost_s
            job = session.get(JobRow, self.job_id)
            assert job is not None
            job.trials_done = min(job.trials, progress.total_trials)

    def finish(self, result: TuneResult) -> None:
        """Store each task's summary and mark the job completed."""
        with unit_of_work(self.factory) as session:
            job = session.get(JobRow, self.job_id)
            assert job is not None
            if job.state != "running" or job.driver_id != self.driver_id:
                return
            rows = (
                session.query(JobTaskRow)
                .filter_by(job_id=self.job_id)
                .order_by(JobTaskRow.position)
                .all()
            )
            for row, summary in zip(rows, result.tasks, strict=True):
                row.trials = summary.trials
                row.best_cost_s = summary.best_cost_s
            # (records of earlier jobs may hold more than this job's budget)
            job.trials_done = min(job.trials, sum(summary.trials for summary in result.tasks))
            job.state = "completed"
            job.finished_at = time.time()

    def fail(self, message: str) -> None:
        """Mark the job failed with `message` (unless it already ended), and withdraw its
        unfinished batches: no worker measures for a job that will not read the results."""
        with unit_of_work(self.factory) as session:
            job = session.get(JobRow, self.job_id)
            if job is not None and job.state == "running" and job.driver_id == self.driver_id:
                job.state = "failed"
                job.error = message[:10_000]
                job.finished_at = time.time()
                cancel_job_batches(session, self.job_id)

    # -- the job ---------------------------------------------------------------------------

    def tasks(self, job: JobRow, target: Target, histogram: SizeHistogram) -> list[Task]:
        """The job's tasks on `target` (its model's, its size buckets shared by
        `histogram`, or its one workload)."""
        if job.workload is not None:
            return [Task.from_json(job.workload)]
        assert job.model_id is not None
        with unit_of_work(self.factory) as session:
            path = model_files(self.settings).get(session, job.model_id)
        return model_tasks(path, target, histogram)

    def run(self) -> None:
        """Steps 1-4 of the module docstring."""
        with unit_of_work(self.factory) as session:
            job = session.get(JobRow, self.job_id)
            assert job is not None
        target = parse_target(job.target, ask_local_gpu=False)  # (stored as validated)
        options = job_tune_options(job.options, job.trials, job.time_limit_s, cold_caches=False)
        tasks = self.tasks(job, target, options.size_histogram)
        keys = [task.key for task in tasks]
        lease_s = self.settings.driver_lease_s
        # Step 1.
        self.wait(lambda session: not job_has_pending(session, self.job_id))
        # Step 2.
        self.wait(
            lambda session: leases.acquire_workload_leases(
                session, self.job_id, job.target, keys, lease_s
            )
        )
        # Step 3.
        counts: Callable[[Record], bool] | None = None
        if not options.count_shared_records:
            counts = lambda record: record.job == self.job_id  # noqa: E731
        with tempfile.TemporaryDirectory(prefix="autotune-cost-model-") as scratch:
            model = cost_models.check_out(self.factory, self.settings, job.target, Path(scratch))
            result = tune_tasks(
                tasks,
                target,
                replace(options, cost_model_path=str(model)),
                JobRecordStore(self.factory, job.target, keys),
                progress=self.note_progress,
                measurer=self.measure,
                counts_toward_budget=counts,
            )
            try:
                cost_models.check_in(self.factory, self.settings, job.target, model)
            except Exception as err:  # (the job's records stand; only the warm start is lost)
                logger.warning("the target's cost model was not updated: %s", err)
        # Step 4.
        self.finish(result)


class _Keeper(threading.Thread):
    """Renews the driver's leases; exits the process when it loses them or its parent."""

    def __init__(self, driver: Driver, parent_pid: int) -> None:
        super().__init__(daemon=True, name="lease-keeper")
        self.driver = driver
        self.parent_pid = parent_pid

    def run(self) -> None:
        """Renew every third of a lease; exit the process when the lease or parent is gone."""
        interval = self.driver.settings.driver_lease_s / 3
        while not self.driver.stopping.wait(interval):
            if os.getppid() != self.parent_pid:
                os._exit(0)  # the service died: its successor resumes the job
            try:
                with unit_of_work(self.driver.factory) as session:
                    held = leases.renew_job_lease(
                        session,
                        self.driver.job_id,
                        self.driver.driver_id,
                        self.driver.settings.driver_lease_s,
                    )
                    leases.renew_workload_leases(
                        session, self.driver.job_id, self.driver.settings.driver_lease_s
                    )
            except Exception as err:  # a database hiccup: try again next interval
                logger.warning("renewing the job lease failed: %s", err)
                continue
            if not held:
                os._exit(0)  # another driver owns the job now


def drive(settings: Settings, job_id: str, driver_id: str, parent_pid: int) -> int:
    """Drive one job to its end (or until stopped); returns the exit status."""
    engine = make_engine(settings.resolved_database_url)
    factory = make_session_factory(engine)
    driver = Driver(settings, factory, job_id, driver_id)

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        driver.stopping.set()

    signal.signal(signal.SIGTERM, on_term)
    _Keeper(driver, parent_pid).start()
    try:
        driver.run()
    except JobStopped as stop:
        logger.info("job %s: driver stopped: %s", job_id, stop)
    except NoWorker as missing:
        logger.info("job %s: %s: waiting for one, without a driver", job_id, missing)
        driver.park()
    except SliceOver as over:
        logger.info("job %s: %s: queued again, its slot given up", job_id, over)
        with unit_of_work(factory) as session:
            leases.requeue_job(session, job_id, driver_id)
    except Exception as err:
        logger.exception("job %s failed", job_id)
        driver.fail(f"{type(err).__name__}: {err}")
    finally:
        driver.stopping.set()
        with unit_of_work(factory) as session:
            leases.release_workload_leases(session, job_id)
            leases.release_job_lease(session, job_id, driver_id)
        engine.dispose()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of a driver process."""
    parser = argparse.ArgumentParser(prog="autotune-driver")
    parser.add_argument("--job", required=True)
    parser.add_argument("--driver", required=True)
    parser.add_argument("--parent-pid", type=int, required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="driver %(process)d: %(message)s")
    settings = Settings.model_validate_json(os.environ[SETTINGS_ENV])
    return drive(settings, args.job, args.driver, args.parent_pid)


if __name__ == "__main__":
    sys.exit(main())
