"""The measurement protocol, shared by the local tuner and the workers.

Every candidate (a workload and a schedule trace) is built, checked and timed in a child
process, so a crash or a hang costs one candidate, not the caller:

    parent                                   child (`codegen.measure_child`)
      start a child                  ──▶      import everything, say {"event": "ready"}
      send one request (JSON line)   ──▶      rebuild the function, TE, replay the trace,
                                              lower, compile; seeded inputs and the
                                              reference (cached per workload)  (build)
      wait ≤ build_timeout_s         ◀──      {"event": "built"} or a build_error result
                                              run once, check against the reference
                                              with check_close, time           (run)
      wait ≤ run_timeout_s           ◀──      {"event": "result", "status": ..., ...}

A child measures candidates one after another until one kills it; the next candidate gets
a fresh child. A child killed by a signal is a build_error while building and a
runtime_error while running, naming the signal; a phase past its timeout is killed and
is a timeout. The test hook AUTOTUNE_MEASURE_FAULT is read by the child only.
Candidates are measured one at a time, never two at once. Requests and replies are JSON
lines (never pickle); the child writes its replies to a private copy of stdout and points
fd 1 at stderr, so kernels or libraries that print cannot corrupt the protocol.

On a `cuda ...` target the child compiles the lowered function to CUDA (nvcc, for the
target's architecture), loads it through pycuda on the session's GPU and times it with CUDA
events (`codegen.cuda.candidate`); the parent first checks that pycuda and a GPU of that
architecture are there (MeasureError otherwise: no candidate is blamed for a missing GPU)
and holds a per-device lock file while a candidate runs, so one machine measures one
candidate at a time per GPU, whichever processes ask. A kernel that faults costs only its
own candidate: a runtime_error, after which the child retires (CUDA leaves a faulted
context unusable) and the next candidate gets a fresh one. Before a batch of CUDA
candidates is measured, the parent compiles their cubins side by side (one nvcc per core,
`prebuild_cubins`) into the session's cubin
cache, where each child finds its candidate's: nvcc took about 0.6 s of a GPU candidate's
1.3-1.8 s on an H200 machine, on one core. A candidate whose cubin is not there (it did not
lower, or nvcc failed) is compiled by the child as before, which reports the error.

Timing follows TVM: a warm-up run, then `repeat` repeats of `number` runs each; with
`number=0` the count is chosen so one repeat lasts at least `min_repeat_ms`. Each repeat
reports its mean cost. Unlike TVM, the repeats rotate over three placements of the
arguments in memory (`codegen.placement`): a memory-bound kernel's speed depends on where
its buffers start within a page, and a candidate timed at a single placement would win or
lose by that placement's luck. With `flush_cache` every run is timed alone after the kernel's
arguments are evicted from every core's caches (like TVM's cache flush, which spares the
data input), so a kernel is timed the way a network runs it, its data cold; `number=0`
then means as many runs as `min_repeat_ms` asks, at most 10 per repeat. A repeat more
than 1.5x slower than the fastest is taken again, at most three times per candidate: on a
shared machine noise only ever adds time, and it can hit most of a candidate's repeats.
"""

from __future__ import annotations

import collections
import contextlib
import json
import math
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from codegen.backends import BACKENDS, backend_of, default_schedule_for
from codegen.cuda.build import build_cuda
from codegen.cuda.device import GpuRuntimeError, check_target_device, device_lock
from codegen.cuda.nvcc import compile_sources
from codegen.cuda.target import parse_cuda_target
from codegen.target import Target, parse_target, target_kind
from ir.errors import AutotuneError, IRError
from ir.graph.canonical import function_from_json
from ir.graph.nodes import Function
from ir.lower import lower
from ir.schedule import Schedule, Trace
from ir.te.program import TEProgram, function_to_te

STATUSES = ("ok", "build_error", "runtime_error", "timeout", "wrong_result")


def outcome_error(status: str, costs_s: Sequence[float]) -> str | None:
    """What is wrong with a measured outcome, or None: an `ok` one holds at least one
    cost, and every cost is a finite positive number of seconds."""
    if status == "ok" and not costs_s:
        return "an ok result must hold its measured costs (costs_s is empty)"
    bad = [cost for cost in costs_s if not (math.isfinite(cost) and cost > 0)]
    if bad:
        return f"costs must be finite positive seconds, got {bad[:3]}"
    return None


CHILD_START_TIMEOUT_S = 120.0  # imports only, but the machine may be busy
CHILD_MAX_CANDIDATES = 64  # a child is replaced after this many, to bound its memory
STOP_POLL_S = 0.2  # how often a measurement that can be stopped looks at its stop event


class MeasureError(AutotuneError):
    """The measurement machinery itself failed (e.g. a child process cannot start)."""


class MeasureStopped(AutotuneError):
    """A measurement was abandoned (its child killed) because its caller is stopping.
    `settled` holds the outcomes already known then, by the candidate's position in the
    batch: those whose build or check failed (nothing else of the batch was measured)."""

    def __init__(self, message: str, settled: Mapping[int, MeasureResult] | None = None):
        super().__init__(message)
        self.settled: dict[int, MeasureResult] = dict(settled or {})


@dataclass(frozen=True)
class MeasureOptions:
    """How to time a candidate; `number=0` picks the runs per repeat from `min_repeat_ms`."""

    number: int = 0
    repeat: int = 3
    min_repeat_ms: float = 50.0
    build_timeout_s: float = 30.0
    run_timeout_s: float = 20.0
    flush_cache: bool = False
    seed: int = 0
    # Time a batch's candidates in turns, in one child (CPU targets, more than one
    # candidate): see `MeasureSession.measure_batch`. The tuner's batches and its
    # re-measurement ask for it; a crash, hang or timing failure measures them one by one.
    in_turn: bool = False

    def __post_init__(self) -> None:
        if self.number < 0 or self.repeat < 1 or self.min_repeat_ms < 0:
            raise ValueError(
                f"need number >= 0, repeat >= 1 and min_repeat_ms >= 0; got {self.number}, "
                f"{self.repeat}, {self.min_repeat_ms}"
            )
        if self.build_timeout_s <= 0 or self.run_timeout_s <= 0:
            raise ValueError("timeouts must be positive")

    def timing(self, target: Target) -> str:
        """How these options time a kernel for `target`: "cold" when every run follows a
        cache flush (CPU targets; GPU timing never flushes), else "warm"."""
        return "cold" if self.flush_cache and backend_of(target).flushes_caches else "warm"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return asdict(self)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> MeasureOptions:
        """Parse `to_json` output (missing fields take their defaults)."""
        return MeasureOptions(**dict(data))


@dataclass(frozen=True)
class MeasureInput:
    """One candidate: the task (`Task.to_json()`: the workload function's canonical JSON and
    its constant parameters), the schedule trace's JSON object, and the exact target."""

    task_json: Mapping[str, Any]
    trace_json: Mapping[str, Any]
    target: str

    @property
    def on_gpu(self) -> bool:
        """Whether the candidate's target kind runs on a GPU (the backend table's answer)."""
        return BACKENDS[target_kind(self.target)].on_gpu


@dataclass(frozen=True)
class MeasureResult:
    """The outcome of one candidate; `costs_s` holds every repeat's mean cost when ok."""

    status: str
    costs_s: tuple[float, ...] = ()
    error: str = ""
    build_s: float = 0.0  # replay + lower + compile, in the child
    measure_s: float = 0.0  # the run phase: check and timing (or until it was stopped)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {**asdict(self), "costs_s": list(self.costs_s)}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> MeasureResult:
        """Parse `to_json` output."""
        return MeasureResult(
            status=str(data["status"]),
            costs_s=tuple(float(cost) for cost in data.get("costs_s", ())),
            error=str(data.get("error", "")),
            build_s=float(data.get("build_s", 0.0)),
            measure_s=float(data.get("measure_s", 0.0)),
        )


def workload_from_task_json(task_json: Mapping[str, Any]) -> tuple[Function, frozenset[str]]:
    """The primitive function and its constant parameter names, from `Task.to_json()`."""
    try:
        function = function_from_json(task_json["function"])
        constants = frozenset(str(name) for name in task_json["constant_params"])
    except KeyError as err:
        raise IRError(f"task JSON has no {err} field") from None
    return function, constants


def candidate_schedule(
    task_json: Mapping[str, Any], trace_json: Mapping[str, Any]
) -> tuple[Function, frozenset[str], TEProgram, Schedule]:
    """A candidate's workload, its constant params, its TE program and the trace replayed
    on it (what the measurement child builds and the parent's `prebuild_cubins` compiles);
    IRError when the schedule rewrites the layout of an input that is not constant."""
    function, constants = workload_from_task_json(task_json)
    program = function_to_te(function)
    schedule = Trace.from_json(trace_json).replay(program)
    for name in schedule.input_layouts:
        if name not in constants:
            raise IRError(f"the schedule rewrites the layout of {name}, which is not a constant")
    return function, constants, program, schedule


def default_trace(task_json: Mapping[str, Any], target: str) -> dict[str, Any]:
    """The JSON trace of the default schedule of a task's workload on the target string
    `target` (as a candidate carries it)."""
    function, constants = workload_from_task_json(task_json)
    parsed = parse_target(target, ask_local_gpu=False)
    return default_schedule_for(function_to_te(function), parsed, constants).trace.to_json()


def measure_default(
    task_json: Mapping[str, Any], target: str, options: MeasureOptions | None = None
) -> MeasureResult:
    """Measure the default schedule of a task's workload."""
    trace = default_trace(task_json, target)
    return measure_batch([MeasureInput(task_json, trace, target)], options)[0]


# -- parent side ---------------------------------------------------------------------------

_MEASURE_LOCK = threading.Lock()  # one candidate at a time in this process


def measure_batch(
    inputs: Sequence[MeasureInput], options: MeasureOptions | None = None
) -> list[MeasureResult]:
    """Build, check and time each candidate in a child process, one at a time.

    Failures are results, never exceptions: a candidate that does not build, computes
    wrong numbers, crashes its child or runs past a timeout gets that status and the next
    candidate is measured in a fresh child. Raises MeasureError only when no child starts
    or, for a CUDA target, pycuda or a GPU of the target's architecture is missing.
    """
    with MeasureSession() as session:
        return session.measure_batch(inputs, options)


def prebuild_cubins(
    inputs: Sequence[MeasureInput],
    cache_dir: str | Path,
    *,
    workers: int | None = None,
    timeout_s: float = MeasureOptions.build_timeout_s,
) -> int:
    """Compile the cubins of CUDA candidates into `cache_dir`, `workers` nvcc processes at
    a time (default: one per core), where a measurement child with that cubin cache finds
    them. A candidate that does not lower here is left to its child, which reports why.
    Returns how many candidates have their cubin there."""
    sources: list[tuple[str, str] | None] = []
    for candidate in inputs:
        try:
            target = parse_cuda_target(candidate.target)
            *_, schedule = candidate_schedule(candidate.task_json, candidate.trace_json)
            sources.append((build_cuda(lower(schedule), target).source, target.arch))
        except Exception:  # (any error is the candidate's: its child meets it again)
            sources.append(None)
    errors = compile_sources(
        [pair for pair in sources if pair is not None],
        cache_dir,
        "cubin",
        workers=workers,
        timeout_s=timeout_s,
    )
    return sum(1 for pair in sources if pair is not None and errors[pair] is None)


class MeasureSession:
    """Measures candidates one after another, keeping its child process between calls.

    For callers that receive candidates one at a time (a worker): the child's imports are
    paid once, not per candidate. A child that dies, or has measured
    CHILD_MAX_CANDIDATES, is replaced. Candidates are numbered from 0 in the order this
    session measures them (the index the test hook AUTOTUNE_MEASURE_FAULT refers to).
    Candidates of a `cuda ...` target run on GPU `device_index`. `close` (or leaving a
    `with` block) ends the child.
    """

    def __init__(self, device_index: int = 0) -> None:
        self.device_index = device_index
        self._child: _Child | None = None
        self._index = 0
        self._gpu_checked: set[str] = set()
        self._cubin_cache: tempfile.TemporaryDirectory[str] | None = None

    def measure(
        self, candidate: MeasureInput, options: MeasureOptions | None = None
    ) -> MeasureResult:
        """Build, check and time one candidate (failures are results, as in measure_batch)."""
        options = options or MeasureOptions()
        if candidate.on_gpu:
            self._check_gpu(candidate.target)
            with device_lock(self.device_index):
                return self._measure(candidate, options)
        return self._measure(candidate, options)

    def measure_batch(
        self, inputs: Sequence[MeasureInput], options: MeasureOptions | None = None
    ) -> list[MeasureResult]:
        """Measure each candidate in turn (as the module's `measure_batch`, in this session's
        child: a tuning loop pays the child's start and a workload's reference once).
        CUDA candidates' cubins are compiled side by side first (`prebuild_cubins`).

        With `options.in_turn`, CPU candidates are first built and checked together in one
        child and timed in turns of one repeat each, so that they all meet the same slow
        spells of a shared machine; a candidate that does not build or check gets its
        status there. If the child dies, runs past its timeouts or fails to time them,
        the batch is measured one candidate per child instead, with the same candidate
        indices, and each failure gets its own status."""
        options = options or MeasureOptions()
        for target in {c.target for c in inputs if c.on_gpu}:
            self._check_gpu(target)  # (before compiling for a GPU that is not there)
        if options.in_turn and len(inputs) > 1:
            together = self.measure_in_turn(inputs, options)
            if together is not None:
                return together
        self.prebuild(inputs, options)
        return [self.measure(candidate, options) for candidate in inputs]

    def prebuild(self, inputs: Sequence[MeasureInput], options: MeasureOptions) -> None:
        """Compile the cubins of the CUDA candidates among `inputs` side by side into this
        session's cubin cache (`prebuild_cubins`), for `measure` to find; nothing to compile
        for fewer than two. The cache keeps only this batch's (a worker's session lives for
        days). Never raises: a candidate's error is met again by its child."""
        if self._cubin_cache is not None:
            for path in Path(self._cubin_cache.name).iterdir():
                path.unlink(missing_ok=True)
        cuda = [candidate for candidate in inputs if candidate.on_gpu]
        if len(cuda) > 1:
            prebuild_cubins(cuda, self.cubin_cache, timeout_s=options.build_timeout_s)

    @property
    def cubin_cache(self) -> str:
        """The folder of this session's compiled cubins (made on first use)."""
        if self._cubin_cache is None:
            self._cubin_cache = tempfile.TemporaryDirectory(prefix="autotune-cubins-")
        return self._cubin_cache.name

    def _check_gpu(self, target: str) -> None:
        """MeasureError unless pycuda and a GPU of `target`'s architecture are here."""
        if target in self._gpu_checked:
            return
        try:
            check_target_device(parse_cuda_target(target), self.device_index)
        except (GpuRuntimeError, ValueError) as err:  # TargetError is a ValueError
            raise MeasureError(f"cannot measure on {target!r}: {err}") from None
        self._gpu_checked.add(target)

    def _measure(self, candidate: MeasureInput, options: MeasureOptions) -> MeasureResult:
        index = self._index
        self._index += 1
        with _MEASURE_LOCK:
            child = self._usable_child()
            cache = self.cubin_cache if candidate.on_gpu else None
            try:
                return child.measure(index, candidate, options, self.device_index, cache)
            except _ChildGone:
                child.close()
                child = self._child = _Child()
                return child.measure(index, candidate, options, self.device_index, cache)

    def measure_in_turn(
        self,
        inputs: Sequence[MeasureInput],
        options: MeasureOptions,
        stop: threading.Event | None = None,
    ) -> list[MeasureResult] | None:
        """CPU candidates built and checked together in one child and timed in turns of
        one repeat each (see measure_batch); None when the child dies, runs past its
        timeouts or fails to time them, for the caller to measure them one by one.
        Candidate indices advance only on success: the one-by-one measurement that then
        follows numbers the candidates the same way. When `stop` is set meanwhile, the
        child is killed and MeasureStopped raised: none of the candidates is timed (its
        `settled` holds those whose build or check had failed)."""
        if any(c.on_gpu for c in inputs):
            return None
        with _MEASURE_LOCK:
            child = self._usable_child()
            # (a child that died here is replaced by the next `_usable_child`)
            results = child.measure_in_turn(self._index, inputs, options, self.device_index, stop)
        if results is not None:
            self._index += len(inputs)
        return results

    def _usable_child(self) -> _Child:
        """This session's child, replaced first when it died or has measured
        CHILD_MAX_CANDIDATES (the caller holds _MEASURE_LOCK)."""
        child = self._child
        if child is not None and (not child.alive or child.used >= CHILD_MAX_CANDIDATES):
            child.close()
            child = self._child = None
        if child is None:
            child = self._child = _Child()
        return child

    def close(self) -> None:
        """End the child process, if one is running."""
        if self._child is not None:
            self._child.close()
            self._child = None
        if self._cubin_cache is not None:
            self._cubin_cache.cleanup()
            self._cubin_cache = None

    def __enter__(self) -> MeasureSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Timeout(Exception):
    pass


# A multi-threaded BLAS keeps its threads spinning for up to ~0.1 s after a call. The child
# computes a workload's reference with numpy just before timing its first candidate, and
# those spinning threads took a core from the candidate's parallel loops: 8 ms per run
# instead of 20 us, so the first candidate of every workload (the default schedule, which
# tuning measures first) lost to worse ones. The reference is never timed: one thread.
QUIET_BLAS_ENVIRONMENT = {
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "BLIS_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
}


def child_environment(parent: Mapping[str, str]) -> dict[str, str]:
    """The environment a measurement child runs in: the parent's, with this project on
    PYTHONPATH, Python tracebacks on crashes, and the BLAS library held to one thread."""
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    env["PYTHONFAULTHANDLER"] = "1"  # a crash leaves a Python traceback on stderr
    env.update(QUIET_BLAS_ENVIRONMENT)
    return env


class _ChildGone(Exception):
    pass


class _Child:
    """One measurement child process and the threads reading its pipes."""

    def __init__(self) -> None:
        env = child_environment(os.environ)
        try:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    "from codegen.measure_child import child_main; child_main()",
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )
        except OSError as err:
            raise MeasureError(f"cannot start a measurement child: {err}") from None
        self.used = 0
        self._alive = True
        self._events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)
        assert self.process.stdout is not None and self.process.stderr is not None
        self._readers = [
            threading.Thread(target=self._read_events, args=(self.process.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(self.process.stderr,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        try:
            ready = self._next_event(CHILD_START_TIMEOUT_S)
        except _Timeout:
            self.kill()
            raise MeasureError(
                f"measurement child did not start within {CHILD_START_TIMEOUT_S} s"
            ) from None
        if ready is None or ready.get("event") != "ready":
            note = self._death_note()
            self.kill()
            raise MeasureError(f"measurement child failed to start: {note}")

    @property
    def alive(self) -> bool:
        """Whether the child can take another candidate."""
        return self._alive and self.process.poll() is None

    # -- pipes ---------------------------------------------------------------------------

    def _read_events(self, stream: IO[bytes]) -> None:
        for line in stream:
            try:
                self._events.put(json.loads(line))
            except json.JSONDecodeError:
                self._stderr.append(f"(bad protocol line) {line[:200]!r}")
        self._events.put(None)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._stderr.append(line.decode(errors="replace").rstrip())

    def _next_event(
        self, timeout_s: float, stop: threading.Event | None = None
    ) -> dict[str, Any] | None:
        """The child's next reply; None when it exited; raises _Timeout, or MeasureStopped
        (having killed the child) as soon as `stop` is set."""
        if stop is None:
            try:
                return self._events.get(timeout=timeout_s)
            except queue.Empty:
                raise _Timeout from None
        deadline = time.monotonic() + timeout_s
        while not stop.is_set():
            try:
                return self._events.get(timeout=min(STOP_POLL_S, timeout_s))
            except queue.Empty:
                if time.monotonic() >= deadline:
                    raise _Timeout from None
        self.kill()
        raise MeasureStopped("the measurement was stopped; its child is killed")

    # -- one candidate -------------------------------------------------------------------

    def measure(
        self,
        index: int,
        candidate: MeasureInput,
        options: MeasureOptions,
        device_index: int = 0,
        cubin_cache: str | None = None,
    ) -> MeasureResult:
        """Measure one candidate in this child (which may die doing so)."""
        self.used += 1
        request = {
            "index": index,
            "device": device_index,
            "task": candidate.task_json,
            "trace": candidate.trace_json,
            "target": candidate.target,
            "options": options.to_json(),
            "cubin_cache": cubin_cache,
        }
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except OSError:  # it died while idle (e.g. killed for memory): not this candidate's fault
            self.kill()
            raise _ChildGone from None
        # Step 1. The build phase ends with "built" (or a result, when the build failed).
        started = time.perf_counter()
        try:
            event = self._next_event(options.build_timeout_s)
        except _Timeout:
            self.kill()
            return MeasureResult(
                "timeout",
                error=f"build did not finish within build_timeout_s={options.build_timeout_s}",
                build_s=time.perf_counter() - started,
            )
        if event is None:
            return MeasureResult("build_error", error=f"while building: {self._death_note()}")
        if event.get("event") == "result":
            return MeasureResult.from_json(event)
        build_s = float(event.get("build_s", 0.0))
        # Step 2. The run phase: check and time.
        started = time.perf_counter()
        try:
            event = self._next_event(options.run_timeout_s)
        except _Timeout:
            self.kill()
            return MeasureResult(
                "timeout",
                error=f"run did not finish within run_timeout_s={options.run_timeout_s}",
                build_s=build_s,
                measure_s=time.perf_counter() - started,
            )
        if event is None:
            return MeasureResult(
                "runtime_error",
                error=f"while running: {self._death_note()}",
                build_s=build_s,
                measure_s=time.perf_counter() - started,
            )
        if event.get("retire"):  # a GPU fault left its context unusable: it exits
            self._alive = False
        return MeasureResult.from_json({**event, "build_s": build_s})

    def measure_in_turn(
        self,
        first_index: int,
        candidates: Sequence[MeasureInput],
        options: MeasureOptions,
        device_index: int = 0,
        stop: threading.Event | None = None,
    ) -> list[MeasureResult] | None:
        """Build, check and time `candidates` together in this child (timed in turns);
        a failed build or check is that candidate's result. None when the child dies, a
        candidate's build and check run past build_timeout_s + run_timeout_s, a group's
        timing past run_timeout_s per candidate (the child is then killed), or timing
        fails: the caller then measures them one by one, which tells whose fault it was.
        Raises MeasureStopped, having killed the child, when `stop` is set meanwhile (with
        the failed builds and checks found until then)."""
        self.used += len(candidates)
        request = {
            "device": device_index,
            "options": options.to_json(),
            "in_turn": [
                {
                    "index": first_index + position,
                    "task": candidate.task_json,
                    "trace": candidate.trace_json,
                    "target": candidate.target,
                    "cubin_cache": None,
                }
                for position, candidate in enumerate(candidates)
            ],
        }
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except OSError:
            self.kill()
            return None
        limit_s = options.build_timeout_s + options.run_timeout_s  # the first build and check
        settled: dict[int, MeasureResult] = {}  # failed builds and checks, by position
        while True:
            try:
                event = self._next_event(limit_s, stop)
            except _Timeout:
                self.kill()
                return None
            except MeasureStopped as err:
                raise MeasureStopped(str(err), settled) from None
            kind = None if event is None else event.get("event")
            if kind == "checked":
                assert event is not None
                if "outcome" in event:
                    settled[int(event["position"])] = MeasureResult.from_json(event["outcome"])
                limit_s = options.build_timeout_s + options.run_timeout_s
            elif kind == "timing":
                assert event is not None
                limit_s = int(event["candidates"]) * options.run_timeout_s
            elif kind == "results":
                assert event is not None
                outcomes = event["results"]
                if len(outcomes) != len(candidates):
                    return None
                return [MeasureResult.from_json(outcome) for outcome in outcomes]
            else:
                if event is None:  # it died (and may not be reaped yet: never reuse it)
                    self.kill()
                return None  # (or timing failed)

    # -- ending --------------------------------------------------------------------------

    def _death_note(self) -> str:
        """How the child ended (the signal or exit code) and the tail of its stderr."""
        self._alive = False
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.process.returncode
        for reader in self._readers:
            reader.join(timeout=2)
        if code is not None and code < 0:
            try:
                how = f"child killed by signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"child killed by signal {-code}"
        else:
            how = f"child exited with code {code}"
        tail = "\n".join(self._stderr)[-1500:]
        return f"{how}\n{tail}".rstrip()

    def kill(self) -> None:
        """Kill the child (a hang or a start failure) and reap it."""
        self._alive = False
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._close_pipes()

    def close(self) -> None:
        """Let an idle child exit (it stops at the end of its input), or kill it."""
        if self.process.poll() is None and self.process.stdin is not None:
            try:
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def _close_pipes(self) -> None:
        for reader in self._readers:
            reader.join(timeout=2)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None and not stream.closed:
                with contextlib.suppress(OSError):
                    stream.close()
