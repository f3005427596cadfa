"""The child side of the measurement protocol (see codegen.measure): build a candidate,
check it against the reference, time it, and answer on a private copy of stdout.

Run as `python -c "from codegen.measure_child import child_main; child_main()"` by
`codegen.measure`'s sessions; one request (a JSON line) at a time from stdin. A request
with an "in_turn" list measures those candidates together: each built and checked, then
timed in turns of one repeat each (see `_serve_in_turn`).
"""

from __future__ import annotations

import collections
import gc
import json
import math
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from codegen.cuda.candidate import GpuKernel
from codegen.cuda.device import GpuRuntimeError
from codegen.cuda.target import CudaTarget
from codegen.llvm import CompiledKernel, compile_kernel
from codegen.llvm.cache_flush import can_evict, evict_arrays
from codegen.llvm.jit import clear_kernel_cache
from codegen.measure import MeasureOptions, candidate_schedule
from codegen.placement import PLACEMENTS, placed_arguments
from codegen.runtime.aligned import aligned_copy, aligned_empty
from codegen.target import parse_target
from ir.errors import AutotuneError, IRError
from ir.graph.nodes import Function
from ir.graph.passes.narrow_sizes import bind_sizes, size_uppers
from ir.graph.types import TensorType, tensor_types
from ir.lower import lower
from ir.reference import check_close, evaluate, random_inputs
from ir.schedule import Schedule
from ir.te.program import TEProgram
from ir.tir.expr import INDEX_DTYPE, Var

FLUSH_BYTES = 64 * 1024 * 1024
MAX_NUMBER = 1_000_000  # runs per repeat, however fast the kernel
MAX_COLD_NUMBER = 10  # runs per repeat with flush_cache (each pays for a flush) unless set
SLOW_REPEAT_FACTOR = 1.5  # a repeat this much slower than the fastest was disturbed ...
MAX_RETAKEN_REPEATS = 3  # ... and is taken again, this many times at most per candidate
# Arguments (with their placed copies) of the candidates timed together in one group.
IN_TURN_MAX_BYTES = 1 << 30
FAULT_ENV = "AUTOTUNE_MEASURE_FAULT"  # test hook, read by the child only (see _fault_for)

# The first GPU error this child met ("" while none). After a kernel faults (an illegal
# address, a launch failure) CUDA leaves the process's context unusable: every later call
# fails the same way. So the child reports that candidate's runtime_error, asks the parent
# to retire it, and exits: the next candidate gets a fresh child and a fresh context.
_device_fault = ""

# float32 sums over more than this many elements are checked with a looser tolerance.
LONG_REDUCTION = 256  # terms; see tolerance()
LONG_REDUCTION_TOLERANCE = (1e-3, 1e-4)  # (rtol, atol)


def child_main() -> None:
    """The child's entry point: answer measurement requests from stdin until it closes."""
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # stray output (ours, a library's, a kernel's) goes to stderr
    sys.stdout = sys.stderr
    _reply(protocol, {"event": "ready", "pid": os.getpid()})
    for line in sys.stdin:
        if line.strip():
            request = json.loads(line)
            if "in_turn" in request:
                _serve_in_turn(request, protocol)
            else:
                _serve(request, protocol)


def _reply(protocol: IO[str], message: Mapping[str, Any]) -> None:
    protocol.write(json.dumps(message) + "\n")
    protocol.flush()


def _describe(err: BaseException) -> str:
    """The error's message; internal errors (not AutotuneError) also say where they arose."""
    text = f"{type(err).__name__}: {err}"
    if not isinstance(err, AutotuneError | AssertionError):
        frames = traceback.extract_tb(err.__traceback__)[-3:]
        text += "\n" + "".join(traceback.format_list(frames)).rstrip()
    return text


@dataclass
class _Built:
    function: Function
    constants: frozenset[str]
    program: TEProgram
    schedule: Schedule
    kernel: CompiledKernel | GpuKernel
    build_s: float


@dataclass
class _Workload:
    """Seeded inputs and reference outputs of one workload (kept for its next candidate)."""

    inputs: dict[str, np.ndarray]
    expected: list[np.ndarray]
    error: str = ""
    outputs: tuple[TensorType, ...] = ()  # (of a symbolic workload, at the measured sizes)


_WORKLOADS: collections.OrderedDict[tuple[str, int], _Workload] = collections.OrderedDict()
_FLUSH_BUFFER: list[np.ndarray] = []


def _serve(request: Mapping[str, Any], protocol: IO[str]) -> None:
    options = MeasureOptions.from_json(request["options"])
    fault = _fault_for(int(request.get("index", -1)))
    try:
        built = _build(request)
        workload = _workload(request["task"], built.function, options.seed)
    except Exception as err:  # every build failure is data, whatever its kind
        _reply(protocol, {"event": "result", "status": "build_error", "error": _describe(err)})
        return
    _reply(protocol, {"event": "built", "build_s": built.build_s})
    started = time.perf_counter()
    try:
        status, costs, error = _run(built, workload, options, fault)
    finally:
        if isinstance(built.kernel, GpuKernel):
            built.kernel.close()
    measure_s = time.perf_counter() - started
    result = {
        "event": "result",
        "status": status,
        "costs_s": costs,
        "error": error,
        "measure_s": measure_s,
    }
    _reply(protocol, {**result, "retire": True} if _device_fault else result)
    if _device_fault:
        sys.exit(0)
    clear_kernel_cache()  # the next candidate compiles afresh; free this one's code


def _serve_in_turn(request: Mapping[str, Any], protocol: IO[str]) -> None:
    """Build and check every candidate of `request["in_turn"]` (each a request as
    `_serve`'s, without options), then time the ones that passed in turns: one repeat of
    each, in order, `repeat` times. Events: "checked" after each candidate's build and
    check (with its position; with its outcome when that is final: a failed build or
    check), "timing" before a group of candidates is timed (with their
    number), then one "results" event with each candidate's outcome (status, costs_s,
    error, build_s, measure_s), failures included; or "failed" when timing raised.

    Candidates are timed in groups of at most IN_TURN_MAX_BYTES of arguments (their
    placed copies included), so a batch of large workloads does not hold every
    candidate's copies at once.

    A shared machine slows down for a fraction of a second to seconds at a time. Timed one
    after the other, the candidates that ran in a slow spell would be ranked by it (and the
    cost model trained on it); timed in turns, a spell falls on one repeat of several
    candidates, and each candidate's median leaves it out."""
    options = MeasureOptions.from_json(request["options"])
    outcomes: list[dict[str, Any]] = []
    group: list[tuple[int, CompiledKernel, list[np.ndarray]]] = []
    group_bytes = 0

    def time_group() -> bool:
        nonlocal group_bytes
        if not group:
            return True
        _reply(protocol, {"event": "timing", "candidates": len(group)})
        started = time.perf_counter()
        try:
            costs = _time_in_turns([(kernel, args) for _, kernel, args in group], options)
        except Exception as err:
            _reply(protocol, {"event": "failed", "error": _describe(err)})
            return False
        share = (time.perf_counter() - started) / len(group)
        for (position, _, _), taken in zip(group, costs, strict=True):
            outcomes[position].update(costs_s=taken, measure_s=share)
        group.clear()
        group_bytes = 0
        clear_kernel_cache()  # the group's code is no longer needed
        return True

    try:
        for position, item in enumerate(request["in_turn"]):
            started = time.perf_counter()
            status, kernel, args, error = _built_and_checked(
                {**item, "device": request.get("device", 0)}, options
            )
            outcomes.append(
                {
                    "status": status,
                    "error": error,
                    "costs_s": [],
                    "build_s": time.perf_counter() - started,
                    "measure_s": 0.0,
                }
            )
            checked = {"event": "checked", "position": position, "status": status}
            if kernel is None:  # its outcome is final (kept by a parent that stops)
                _reply(protocol, {**checked, "outcome": outcomes[-1]})
                continue
            _reply(protocol, checked)
            group.append((position, kernel, args))
            group_bytes += sum(array.nbytes for array in args) * (1 + PLACEMENTS)
            if group_bytes >= IN_TURN_MAX_BYTES and not time_group():
                return
        if time_group():
            _reply(protocol, {"event": "results", "results": outcomes})
    finally:
        group.clear()
        clear_kernel_cache()


def _built_and_checked(
    item: Mapping[str, Any], options: MeasureOptions
) -> tuple[str, CompiledKernel | None, list[np.ndarray], str]:
    """Build and check one candidate of an in-turn request: (status, the kernel and its
    arguments when it is ok to time, error)."""
    fault = _fault_for(int(item.get("index", -1)))
    try:
        built = _build(item)
        workload = _workload(item["task"], built.function, options.seed)
    except Exception as err:  # every build failure is data, whatever its kind
        return "build_error", None, [], _describe(err)
    if not isinstance(built.kernel, CompiledKernel):
        if isinstance(built.kernel, GpuKernel):
            built.kernel.close()
        return "runtime_error", None, [], "only CPU kernels are timed in turns"
    status, args, error = _checked_args(built, workload, fault)
    return status, (built.kernel if status == "ok" else None), args, error


def _fault_for(index: int) -> str:
    """The fault the test hook asks for at this candidate: AUTOTUNE_MEASURE_FAULT holds
    comma-separated `kind` or `kind@index` entries (kind: wrong, crash, hang or
    device_fault)."""
    for entry in filter(None, os.environ.get(FAULT_ENV, "").split(",")):
        kind, _, at = entry.strip().partition("@")
        if not at or int(at) == index:
            return kind
    return ""


def _build(request: Mapping[str, Any]) -> _Built:
    started = time.perf_counter()
    target_text = str(request["target"])
    function, constants, program, schedule = candidate_schedule(request["task"], request["trace"])
    kernel: CompiledKernel | GpuKernel
    target = parse_target(target_text, ask_local_gpu=False)
    if isinstance(target, CudaTarget):
        device_index = int(request.get("device", 0))
        cache = request.get("cubin_cache")
        kernel = GpuKernel(lower(schedule), target, device_index, cache and str(cache))
    else:
        kernel = compile_kernel(lower(schedule), target)
        sizes = measured_sizes(request["task"], function)
        if sizes:  # (a kernel whose dims are all products cannot bind them from shapes)
            kernel = kernel.sized({Var(name, INDEX_DTYPE): size for name, size in sizes.items()})
    return _Built(function, constants, program, schedule, kernel, time.perf_counter() - started)


def _workload(task: Mapping[str, Any], function: Function, seed: int) -> _Workload:
    """Seeded inputs and the reference's outputs, cached for the workload's next candidate."""
    sizes = measured_sizes(task, function)
    key = (json.dumps([task.get("function"), sizes], sort_keys=True), seed)
    cached = _WORKLOADS.get(key)
    if cached is not None:
        return cached
    try:
        # A symbolic workload is measured at the sizes its task names, the reference too.
        reference = bind_sizes(function, sizes) if sizes else function
        _check_within_bounds(function, reference, sizes)
    except Exception as err:
        return _Workload({}, [], error=f"cannot bind the workload's sizes: {_describe(err)}")
    inputs = random_inputs(reference, seed)
    outputs = tuple(tensor_types(reference.ret_type))
    try:
        expected = _flatten(evaluate(reference, inputs))
        workload = _Workload(inputs, expected, outputs=outputs)
    except Exception as err:  # e.g. indices out of range for the seeded inputs
        workload = _Workload(inputs, [], error=f"reference evaluation failed: {_describe(err)}")
    _WORKLOADS[key] = workload
    while len(_WORKLOADS) > 2:
        _WORKLOADS.popitem(last=False)
    return workload


def _check_within_bounds(function: Function, bound: Function, sizes: Mapping[str, int]) -> None:
    """IRError where `bound` (`function` at `sizes`) has a dim past `function`'s upper bound
    for it (a kernel's static analyses hold only within them)."""
    types = [param.type_annotation for param in function.params]
    bound_types = [param.type_annotation for param in bound.params]
    for ty, at in zip(
        [*types, *tensor_types(function.ret_type)],
        [*bound_types, *tensor_types(bound.ret_type)],
        strict=True,
    ):
        if not (isinstance(ty, TensorType) and isinstance(at, TensorType)):
            continue
        if any(size > upper for size, upper in zip(at.shape, ty.shape, strict=True)):
            raise IRError(f"sizes {dict(sizes)} give shape {at.shape}, past {ty.shape}")


def measured_sizes(task: Mapping[str, Any], function: Function) -> dict[str, int]:
    """The size variables of a symbolic workload at the sizes it is measured at: its
    task's representative sizes (`tuner.tasks.Task.measure_at`) over the largest it
    covers (`Task.covers`), else the sizes its dims' upper bounds bind."""
    sizes = size_uppers(function)
    for field in ("covers", "measure_at"):
        given = task.get(field)
        if isinstance(given, Mapping):
            sizes.update({str(name): int(size) for name, size in given.items()})
    return sizes


def _flatten(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [array for item in value for array in _flatten(item)]
    return [np.asarray(value)]


def tolerance(program: TEProgram) -> tuple[float | None, float | None]:
    """The (rtol, atol) to check a program's outputs with (None: the dtype's default).

    A float32 sum of many terms computed in another order (tiled, vectorised partial
    sums) than numpy's pairwise summation differs from it by rounding errors that grow
    with the number and the size of the partial sums, not with the result: near
    cancellation, sums of LONG_REDUCTION or more terms exceed the float32 default
    (rtol=1e-4, atol=1e-5) though both are right. Those programs get rtol=1e-3,
    atol=1e-4.
    """
    for op in program.computes:
        length = math.prod(axis.extent for axis in op.reduce_axes)
        if op.reduce_axes and op.dtype == "float32" and length >= LONG_REDUCTION:
            return LONG_REDUCTION_TOLERANCE
    return None, None


def _run(
    built: _Built, workload: _Workload, options: MeasureOptions, fault: str
) -> tuple[str, list[float], str]:
    """Run once and check, then time; (status, costs, error)."""
    status, args, error = _checked_args(built, workload, fault)
    if status != "ok":
        return status, [], error
    try:
        if isinstance(built.kernel, GpuKernel):
            number, repeat, min_repeat_ms = options.number, options.repeat, options.min_repeat_ms
            inputs = args[: len(workload.inputs)]
            return "ok", built.kernel.time(inputs, number, repeat, min_repeat_ms), ""
        return "ok", _time_kernel(built.kernel, args, options), ""
    except Exception as err:
        return "runtime_error", [], _runtime_error(err)


def _runtime_error(err: Exception) -> str:
    """The runtime_error text of `err`; a GPU error also marks this child for retirement."""
    global _device_fault
    text = _describe(err)
    if isinstance(err, GpuRuntimeError) and not _device_fault:
        _device_fault = text
    return text


def _simulate_device_fault() -> None:
    """The test hook's `device_fault`: what a faulting kernel does to the CUDA context, on
    any machine: this candidate fails, and so would every later one in this process."""
    if _device_fault:
        raise GpuRuntimeError(f"the device context is unusable after: {_device_fault}")
    raise GpuRuntimeError(
        "an illegal memory access was encountered (simulated by AUTOTUNE_MEASURE_FAULT)"
    )


def _checked_args(
    built: _Built, workload: _Workload, fault: str
) -> tuple[str, list[np.ndarray], str]:
    """Run the kernel once on the workload's inputs and compare its outputs with the
    reference; (status, the kernel's arguments: inputs then outputs, error)."""
    if workload.error:
        return "runtime_error", [], workload.error
    layouts = built.schedule.input_layouts
    # Fresh copies: a kernel that writes out of bounds cannot spoil the cached inputs.
    # 64-byte aligned, as the artifact's buffers are, so a candidate is timed on the
    # alignment it will run on.
    args = [
        aligned_copy(layouts[name].apply(array) if name in layouts else array)
        for name, array in workload.inputs.items()
    ]
    outputs = []
    for ty in workload.outputs or tensor_types(built.function.ret_type):
        output = aligned_empty(ty.shape, ty.dtype)
        output.fill(np.nan if output.dtype.kind == "f" else 0)  # unwritten elements show
        outputs.append(output)
    if fault == "hang":
        while True:
            time.sleep(3600)
    if fault == "crash":
        os.abort()
    try:
        if fault == "device_fault" or _device_fault:
            _simulate_device_fault()
        built.kernel(*args, *outputs)
    except Exception as err:
        return "runtime_error", [], _runtime_error(err)
    if fault == "wrong" and outputs[0].size:
        flat = outputs[0].reshape(-1)
        flat[0] = (
            not flat[0] if flat.dtype.kind == "b" else (flat[0] + 1 if flat[0] == flat[0] else 0)
        )
    rtol, atol = tolerance(built.program)
    try:
        for position, (got, want) in enumerate(zip(outputs, workload.expected, strict=True)):
            check_close(got, want, rtol, atol, what=f"output {position}")
    except AssertionError as err:
        return "wrong_result", [], str(err)
    return "ok", [*args, *outputs], ""


def _cache_flusher(args: list[np.ndarray]) -> Callable[[], None]:
    """What empties the caches before a cold run: on x86, every argument evicted from all
    cores' caches; elsewhere a 64 MiB buffer written from this thread. TVM's cache flush
    keeps the first argument (the data input, just written by the previous kernel); on
    light_resnet50 its convs timed in sequence (bench/model_profile.py) were as slow as
    with every argument evicted, their inputs (up to 3 MiB) too big to stay cached."""
    if can_evict():
        return lambda: evict_arrays(args)
    if not _FLUSH_BUFFER:
        _FLUSH_BUFFER.append(np.zeros(FLUSH_BYTES, np.uint8))
    buffer = _FLUSH_BUFFER[0]
    return lambda: buffer.fill(buffer[0] + 1)


def _time_kernel(
    kernel: CompiledKernel, args: list[np.ndarray], options: MeasureOptions
) -> list[float]:
    """A warm-up run per placement, then `repeat` repeats of `number` runs, repeat r on
    placement r mod PLACEMENTS of the arguments (`codegen.placement`); each repeat's mean
    cost. With `flush_cache` every run is timed alone right after the caches are emptied."""
    with _collector_off():
        return undisturbed_repeats(_repeat_timer(kernel, args, options), options.repeat)


def _time_in_turns(
    kernels: list[tuple[CompiledKernel, list[np.ndarray]]], options: MeasureOptions
) -> list[list[float]]:
    """Each kernel's `repeat` costs (as `_time_kernel`'s), its repeats taken in turns
    with the others'. Then, as `undisturbed_repeats` does for one kernel, a repeat over
    SLOW_REPEAT_FACTOR times its kernel's fastest is taken again (the slowest of each
    such kernel, one per kernel in a pass, in turns, MAX_RETAKEN_REPEATS passes at most):
    a spell can still fall on two repeats of one kernel."""
    with _collector_off():
        timers = [_repeat_timer(kernel, args, options) for kernel, args in kernels]
        costs: list[list[float]] = [[] for _ in timers]
        for index in range(options.repeat):
            for timer, taken in zip(timers, costs, strict=True):
                taken.append(timer(index))
        for _ in range(MAX_RETAKEN_REPEATS):
            disturbed = False
            for timer, taken in zip(timers, costs, strict=True):
                slowest = max(range(len(taken)), key=taken.__getitem__)
                if taken[slowest] > SLOW_REPEAT_FACTOR * min(taken):
                    taken[slowest] = timer(slowest)
                    disturbed = True
            if not disturbed:
                break
        return costs


@contextmanager
def _collector_off() -> Iterator[None]:
    """The garbage collector disabled (a collection inside a timed run is noise)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _repeat_timer(
    kernel: CompiledKernel, args: list[np.ndarray], options: MeasureOptions
) -> Callable[[int], float]:
    """After a warm-up run on each placement of `args` (and calibrating `number`), a
    function that times repeat r: the mean cost of `number` runs on placement r mod
    PLACEMENTS (each run alone after a cache flush with `flush_cache`)."""
    placements = [placed_arguments(args, placement) for placement in range(PLACEMENTS)]
    started = time.perf_counter()
    kernel(*placements[0])  # warm-up
    warm_up_s = time.perf_counter() - started
    for placed in placements[1:]:
        kernel(*placed)
    number = options.number or _calibrate(kernel, placements[0], options, warm_up_s)
    if options.flush_cache:
        if not options.number:
            number = min(number, MAX_COLD_NUMBER)
        flushes = [_cache_flusher(placed) for placed in placements]

        def one_cold_repeat(index: int) -> float:
            placement = index % PLACEMENTS
            return _cold_mean(kernel, placements[placement], number, flushes[placement])

        return one_cold_repeat

    def one_repeat(index: int) -> float:
        placed = placements[index % PLACEMENTS]
        started = time.perf_counter()
        for _ in range(number):
            kernel(*placed)
        return (time.perf_counter() - started) / number

    return one_repeat


def undisturbed_repeats(one_repeat: Callable[[int], float], repeat: int) -> list[float]:
    """The costs of `one_repeat(r)` for r below `repeat`, where one over
    SLOW_REPEAT_FACTOR times the fastest is taken again with the same r (at most
    MAX_RETAKEN_REPEATS times in all).

    On a shared machine a repeat is only ever slowed down: when another process takes a
    core, a parallel kernel's threads wait for it at every barrier. Such repeats (seen 3-4x
    slow, two of three in a row) would otherwise decide the median a candidate is ranked
    by, and a good schedule, the default included, could lose to worse ones.
    """
    costs = [one_repeat(index) for index in range(repeat)]
    for _ in range(MAX_RETAKEN_REPEATS):
        slowest = max(range(len(costs)), key=costs.__getitem__)
        if costs[slowest] <= SLOW_REPEAT_FACTOR * min(costs):
            break
        costs[slowest] = one_repeat(slowest)
    return costs


def _cold_mean(
    kernel: CompiledKernel, args: list[np.ndarray], number: int, flush: Callable[[], None]
) -> float:
    """The mean cost of `number` runs, each timed alone after `flush`."""
    total = 0.0
    for _ in range(number):
        flush()
        started = time.perf_counter()
        kernel(*args)
        total += time.perf_counter() - started
    return total / number


def _calibrate(
    kernel: CompiledKernel, args: list[np.ndarray], options: MeasureOptions, warm_up_s: float
) -> int:
    """Runs per repeat so that one repeat lasts at least `min_repeat_ms` (as TVM does: grow
    the count from an estimate until a trial repeat is long enough)."""
    min_repeat_s = options.min_repeat_ms / 1000.0
    if min_repeat_s <= 0:
        return 1
    number = max(1, min(MAX_NUMBER, math.ceil(min_repeat_s / max(warm_up_s, 1e-9))))
    for _ in range(4):
        started = time.perf_counter()
        for _ in range(number):
            kernel(*args)
        elapsed = time.perf_counter() - started
        if elapsed >= min_repeat_s or number >= MAX_NUMBER:
            break
        number = min(MAX_NUMBER, math.ceil(number * 1.2 * min_repeat_s / max(elapsed, 1e-9)))
    return number
