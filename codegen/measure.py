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

import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from codegen.backends import default_schedule_for
from codegen.cuda.build import build_cuda
from codegen.cuda.device import GpuRuntimeError, check_target_device, device_lock
from codegen.cuda.nvcc import compile_sources
from codegen.cuda.target import parse_cuda_target
from codegen.measure_process import ChildGone, MeasureChild, child_environment
from codegen.measure_protocol import (
    STATUSES,
    MeasureError,
    MeasureInput,
    MeasureOptions,
    MeasureResult,
    MeasureStopped,
    outcome_error,
)
from codegen.target import parse_target
from ir.errors import IRError
from ir.graph.canonical import function_from_json
from ir.graph.nodes import Function
from ir.lower import lower
from ir.schedule import Schedule, Trace
from ir.te.program import TEProgram, function_to_te

__all__ = [
    "STATUSES",
    "MeasureError",
    "MeasureInput",
    "MeasureOptions",
    "MeasureResult",
    "MeasureSession",
    "MeasureStopped",
    "candidate_schedule",
    "child_environment",
    "default_trace",
    "measure_batch",
    "measure_default",
    "outcome_error",
    "prebuild_cubins",
    "workload_from_task_json",
]

CHILD_MAX_CANDIDATES = 64  # a child is replaced after this many, to bound its memory


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
        self._child: MeasureChild | None = None
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
            except ChildGone:
                child.close()
                child = self._child = MeasureChild()
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

    def _usable_child(self) -> MeasureChild:
        """This session's child, replaced first when it died or has measured
        CHILD_MAX_CANDIDATES (the caller holds _MEASURE_LOCK)."""
        child = self._child
        if child is not None and (not child.alive or child.used >= CHILD_MAX_CANDIDATES):
            child.close()
            child = self._child = None
        if child is None:
            child = self._child = MeasureChild()
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
