"""Candidate features computed by worker processes beside this one, as Ansor and
MetaSchedule extract features on a thread pool (here replay, lowering and extraction are
Python, so threads would share one core).

A search round scores about a thousand candidates; the tuner measures nothing meanwhile,
so the other cores are idle. `FeaturePool.features` cuts a batch of traces into chunks
that this process and the workers take one at a time from a shared counter, so a slow
worker leaves its share to the others. Results are exactly the serial ones, in order. A
worker that dies costs nothing but time: the chunks it did not return are computed here,
and the pool is not used again.

Workers are spawned (not forked: the service calls this from threads) when a batch first
needs them and join from the first batch after they have started; they rebuild a task's
TE program from its JSON once, as the measuring child does, so trace step names match.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import time
from collections.abc import Mapping, Sequence
from multiprocessing import get_context
from types import TracebackType
from typing import Any

import numpy as np

from codegen.measure import workload_from_task_json
from ir.lower import lower
from ir.schedule import Trace
from ir.schedule.hardware import CoreFacts
from ir.te.program import TEProgram, function_to_te
from tuner.features import TYPICAL_CORE, extract_features
from tuner.gc_pause import collector_paused

logger = logging.getLogger(__name__)

CHUNKS_PER_PROCESS = 4  # small enough chunks that the processes finish close together
MIN_POOLED = 64  # smaller batches are computed here: the handoff would cost more
COUNTER_TIMEOUT_S = 5.0  # the chunk counter's lock is held for microseconds
WORKER_REPLY_TIMEOUT_S = 600.0  # a worker's share of one batch takes well under a second
WORKER_EXIT_TIMEOUT_S = 5.0

FeatureRow = np.ndarray | None


def candidate_features(
    program: TEProgram, trace: Trace, core: CoreFacts = TYPICAL_CORE
) -> FeatureRow:
    """Replay `trace` on `program`, lower it and extract its features against `core`'s
    caches; None when it does not replay or lower (an invalid candidate is data, whatever
    the error)."""
    try:
        return extract_features(lower(trace.replay(program)), core)
    except Exception as err:
        logger.debug("%s: candidate does not lower: %s", program.name, err)
        return None


def available_cores() -> int:
    """How many cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on Linux)
        return os.cpu_count() or 1


class FeaturePool:
    """Worker processes that compute candidate features (see the module docstring).
    `workers` None means one per available core beyond this process's; 0 computes
    everything here."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(0, available_cores() - 1 if workers is None else workers)
        self._processes: list[_Worker] = []
        self._next_chunk: Any = None  # the chunk counter shared with the workers
        self._failed = False

    def __enter__(self) -> FeaturePool:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the workers (started again if the pool is used after)."""
        for worker in self._processes:
            worker.stop()
        self._processes = []

    def features(
        self,
        task_json: Mapping[str, Any],
        program: TEProgram,
        traces: Sequence[Trace],
        core: CoreFacts = TYPICAL_CORE,
    ) -> list[FeatureRow]:
        """`candidate_features` of each trace of the task whose JSON is `task_json` and
        whose program (built from it) is `program`, against `core`'s caches, in order."""
        traces = list(traces)
        if self.workers == 0 or self._failed or len(traces) < MIN_POOLED:
            return features_here(program, traces, core)
        counter = self._started()
        count = min(len(traces), (self.workers + 1) * CHUNKS_PER_PROCESS)
        bounds = [len(traces) * index // count for index in range(count + 1)]
        chunks = [traces[start:end] for start, end in itertools.pairwise(bounds)]
        counter.value = 0  # (no worker is running: the last batch was all collected)
        request = (
            json.dumps(task_json, sort_keys=True),
            [[trace.dumps() for trace in chunk] for chunk in chunks],
            core,
        )
        busy: list[_Worker] = []
        for worker in self._processes:
            try:
                if worker.ready():
                    worker.connection.send(request)
                    busy.append(worker)
            except (OSError, EOFError) as err:
                self._fail(f"worker {worker.process.pid}: {err!r}")
        done: dict[int, list[FeatureRow]] = {}
        while (index := _take(counter)) is not None and index < len(chunks):
            done[index] = features_here(program, chunks[index], core)
        if index is None:
            self._fail("the chunk counter stays locked")
        for worker in busy:
            try:
                done.update(worker.result())
            except (OSError, EOFError, RuntimeError) as err:
                self._fail(f"worker {worker.process.pid}: {err!r}")
        if self._failed:
            self.close()
        rows: list[FeatureRow] = []
        for index, chunk in enumerate(chunks):
            rows.extend(done[index] if index in done else features_here(program, chunk, core))
        return rows

    def start(self, timeout_s: float = 0.0) -> bool:
        """Start the workers if they are not running and wait up to `timeout_s` for them
        to be ready; whether they all are."""
        if self.workers == 0 or self._failed:
            return False
        self._started()
        deadline = time.monotonic() + timeout_s
        while not all(worker.ready() for worker in self._processes):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True

    def _fail(self, reason: str) -> None:
        if not self._failed:
            logger.warning("feature workers failed (%s): computing features here", reason)
            self._failed = True

    def _started(self) -> Any:
        if not self._processes:
            context = get_context("spawn")
            self._next_chunk = context.Value("i", 0)
            self._processes = [_Worker(context, self._next_chunk) for _ in range(self.workers)]
        return self._next_chunk


class _Worker:
    """One worker process and this side of its pipe. The parent writes requests and reads
    replies itself (no helper threads, which would wait for this busy process's GIL)."""

    def __init__(self, context: Any, counter: Any) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_worker_main, args=(child, counter), name="autotune-features", daemon=True
        )
        self.process.start()
        child.close()
        self._ready = False

    def ready(self) -> bool:
        """Whether the worker has started (imports done) and waits for requests."""
        if not self._ready and self.connection.poll(0):
            self._ready = self.connection.recv() == "ready"
        return self._ready

    def result(self) -> dict[int, list[FeatureRow]]:
        """The reply to the request sent: rows by chunk index."""
        if not self.connection.poll(WORKER_REPLY_TIMEOUT_S):
            raise RuntimeError(f"no reply in {WORKER_REPLY_TIMEOUT_S:.0f} s")
        reply = self.connection.recv()
        if isinstance(reply, str):
            raise RuntimeError(reply)
        return dict(reply)

    def stop(self) -> None:
        """Ask the worker to exit; kill it if it does not."""
        with contextlib.suppress(OSError):
            self.connection.send(None)
        self.process.join(timeout=WORKER_EXIT_TIMEOUT_S)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


def _take(counter: Any) -> int | None:
    """The next chunk's index, taken from the counter shared by all processes; None when
    its lock stays taken (a worker killed while holding it)."""
    lock = counter.get_lock()
    if not lock.acquire(timeout=COUNTER_TIMEOUT_S):
        return None
    try:
        index = int(counter.value)
        counter.value = index + 1
    finally:
        lock.release()
    return index


def features_here(
    program: TEProgram, traces: Sequence[Trace], core: CoreFacts = TYPICAL_CORE
) -> list[FeatureRow]:
    """`candidate_features` of each trace, computed in this process."""
    with collector_paused():
        return [candidate_features(program, trace, core) for trace in traces]


# -- worker side ----------------------------------------------------------------------------

_PROGRAMS: dict[str, TEProgram] = {}  # task JSON text -> its program, per worker


def _worker_main(connection: Any, counter: Any) -> None:
    """Serve requests (task JSON text, chunks of trace texts) until told to stop: reply
    with the rows of the chunks this worker took from `counter`, or an error's text."""
    connection.send("ready")
    while True:
        try:
            request = connection.recv()
        except EOFError:  # (the parent is gone)
            return
        if request is None:
            return
        try:
            reply: Any = _worker_chunks(counter, *request)
        except Exception as err:
            reply = f"{type(err).__name__}: {err}"
        connection.send(reply)


def _worker_chunks(
    counter: Any, task_text: str, chunks: Sequence[Sequence[str]], core: CoreFacts
) -> dict[int, list[FeatureRow]]:
    """Features of the chunks this worker takes from the shared counter, by index."""
    program = _PROGRAMS.get(task_text)
    if program is None:
        function, _ = workload_from_task_json(json.loads(task_text))
        program = _PROGRAMS[task_text] = function_to_te(function)
    done: dict[int, list[FeatureRow]] = {}
    with collector_paused():
        while (index := _take(counter)) is not None and index < len(chunks):
            done[index] = [_features_of_text(program, text, core) for text in chunks[index]]
    return done


def _features_of_text(program: TEProgram, text: str, core: CoreFacts) -> FeatureRow:
    try:
        trace = Trace.from_json(text)
    except Exception:
        return None
    return candidate_features(program, trace, core)
