"""The measurement protocol: child processes, correctness gate, timing and failures as data.

Child processes take about a second each to start, so the failure cases share one batch:
each fault (from the AUTOTUNE_MEASURE_FAULT test hook, read only by the child) is
followed by a good candidate that must still measure ok.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import threading
import time
from typing import Any

import numpy as np
import pytest

from codegen import measure_child
from codegen.llvm import host_target
from codegen.measure import (
    MeasureInput,
    MeasureOptions,
    MeasureResult,
    MeasureSession,
    MeasureStopped,
    child_environment,
    default_trace,
    measure_batch,
    measure_default,
    workload_from_task_json,
)
from codegen.measure_child import (
    FAULT_ENV,
    LONG_REDUCTION_TOLERANCE,
    MAX_COLD_NUMBER,
    MAX_RETAKEN_REPEATS,
    _build,
    _checked_args,
    _cold_mean,
    _time_in_turns,
    _time_kernel,
    _workload,
    tolerance,
    undisturbed_repeats,
)
from codegen.placement import PLACEMENTS
from ir.errors import IRError
from ir.graph.canonical import function_to_json
from ir.graph.nodes import Call, Constant, Function, Var, call
from ir.graph.passes.pipeline import optimize
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.te.program import function_to_te
from ir.tir.expr import IntImm

TARGET = str(host_target())


def _task_json(fn: Function) -> dict[str, Any]:
    """What `Task.to_json()` sends for the first fused call of `fn` (the fields read here)."""
    fused = optimize(fn)
    node = next(
        n for n in post_order(fused.body) if isinstance(n, Call) and isinstance(n.op, Function)
    )
    constants = [f"p{i}" for i, arg in enumerate(node.args) if isinstance(arg, Constant)]
    return {
        "function": function_to_json(node.op, positional_params=True),
        "constant_params": constants,
    }


def _matmul_task(m: int = 16, n: int = 32, k: int = 64) -> dict[str, Any]:
    """relu(x · Wᵀ) with a constant weight (so the default schedule may repack it)."""
    x = Var("x", TensorType((m, k)))
    weight = Constant(np.ones((n, k), np.float32))
    return _task_json(Function((x,), call("nn.relu", call("nn.dense", x, weight))))


def test_default_schedule_of_a_matmul_measures_ok() -> None:
    task = _matmul_task()
    result = measure_default(task, TARGET, MeasureOptions(repeat=3, min_repeat_ms=5))
    assert result.status == "ok", result.error
    assert result.error == ""
    assert len(result.costs_s) == 3
    assert all(0 < cost < 0.5 for cost in result.costs_s), result.costs_s
    assert result.build_s > 0 and result.measure_s > 0


def test_candidates_run_on_64_byte_aligned_arguments() -> None:
    # The artifact's buffers are 64-byte aligned and numpy's only 16: a candidate is
    # checked and timed on the alignment it will run on (inputs, repacked weights, outputs).
    task = _matmul_task(m=64, n=96, k=80)
    built = _build({"target": TARGET, "task": task, "trace": default_trace(task, TARGET)})
    assert built.schedule.input_layouts, "the test wants a repacked weight"
    status, args, error = _checked_args(built, _workload(task, built.function, seed=0), "")
    assert status == "ok", error
    assert len(args) == 3
    assert all(arg.ctypes.data % 64 == 0 and arg.flags.c_contiguous for arg in args)


def test_faults_and_invalid_traces_cost_one_candidate(monkeypatch: pytest.MonkeyPatch) -> None:
    task = _matmul_task()
    good = default_trace(task, TARGET)
    invalid = {
        "version": 1,
        "steps": [
            {"kind": "split", "stage": "no_such_stage", "axis": "i0", "factor": 4, "nparts": None}
        ],
    }
    monkeypatch.setenv(FAULT_ENV, "wrong@2,crash@4,hang@6")
    traces = [invalid, good, good, good, good, good, good, good]
    options = MeasureOptions(number=1, repeat=2, run_timeout_s=4)
    results = measure_batch([MeasureInput(task, trace, TARGET) for trace in traces], options)
    statuses = [result.status for result in results]
    assert statuses == [
        "build_error",
        "ok",
        "wrong_result",
        "ok",
        "runtime_error",
        "ok",
        "timeout",
        "ok",
    ], [(r.status, r.error[:200]) for r in results]
    assert "ScheduleError" in results[0].error and "no stage 'no_such_stage'" in results[0].error
    assert "output 0" in results[2].error and "differ" in results[2].error
    assert "SIGABRT" in results[4].error
    assert "run_timeout_s=4" in results[6].error
    for result in results[1::2]:
        assert len(result.costs_s) == 2 and all(cost > 0 for cost in result.costs_s)
    for result in results[0::2]:
        assert result.costs_s == ()


def test_a_device_fault_costs_its_own_candidate_and_retires_the_child(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A faulting GPU kernel leaves the CUDA context unusable for the rest of the process;
    # the hook's device_fault does the same on any machine. The candidates after it must
    # get a fresh child, not inherit the fault.
    task = _matmul_task()
    monkeypatch.setenv(FAULT_ENV, "device_fault@1")
    trace = default_trace(task, TARGET)
    options = MeasureOptions(number=1, repeat=1)
    results = measure_batch([MeasureInput(task, trace, TARGET)] * 4, options)
    statuses = [result.status for result in results]
    assert statuses == ["ok", "runtime_error", "ok", "ok"], [r.error[:200] for r in results]
    assert "illegal memory access" in results[1].error


def test_tolerance_is_loosened_for_long_float32_reductions_only() -> None:
    def program(k: int, dtype: str = "float32") -> Any:
        x = Var("x", TensorType((2, k), dtype))
        w = Var("w", TensorType((3, k), dtype))
        fn = optimize(Function((x, w), call("nn.dense", x, w)))
        prim = next(n.op for n in post_order(fn.body) if isinstance(n, Call))
        assert isinstance(prim, Function)
        return function_to_te(prim)

    assert tolerance(program(255)) == (None, None)
    assert tolerance(program(256)) == LONG_REDUCTION_TOLERANCE
    assert tolerance(program(1024)) == LONG_REDUCTION_TOLERANCE
    assert tolerance(program(4096, "float64")) == (None, None)


class _SleepyKernel:
    """Stands in for a compiled kernel: counts its calls, each taking about `cost_s`."""

    def __init__(self, cost_s: float) -> None:
        self.cost_s = cost_s
        self.calls = 0

    def __call__(self, *arrays: np.ndarray) -> None:
        self.calls += 1
        time.sleep(self.cost_s)


class _LoggedKernel(_SleepyKernel):
    """A `_SleepyKernel` that writes its name to a shared log at each call."""

    def __init__(self, name: str, cost_s: float, log: list[str]) -> None:
        super().__init__(cost_s)
        self.name, self.log = name, log

    def __call__(self, *arrays: np.ndarray) -> None:
        self.log.append(self.name)
        super().__call__(*arrays)


def test_kernels_timed_in_turns_take_one_repeat_each_in_order() -> None:
    log: list[str] = []
    kernels = [_LoggedKernel(name, cost, log) for name, cost in (("a", 1e-4), ("b", 3e-4))]
    options = MeasureOptions(number=2, repeat=3)
    costs = _time_in_turns([(kernel, []) for kernel in kernels], options)  # type: ignore[misc]
    # Each: a warm-up run per placement of its arguments first; then repeats of `number`
    # runs, alternating; then (on a busy machine) a few slow repeats taken again.
    turns = ["a"] * PLACEMENTS + ["b"] * PLACEMENTS + ["a", "a", "b", "b"] * 3
    assert log[: len(turns)] == turns
    retaken = log[len(turns) :]
    assert len(retaken) <= 2 * 2 * MAX_RETAKEN_REPEATS
    assert all(retaken[i] == retaken[i + 1] for i in range(0, len(retaken), 2))
    assert [len(c) for c in costs] == [3, 3]
    assert all(cost >= 1e-4 for cost in costs[0]) and all(cost >= 3e-4 for cost in costs[1])
    # (medians: on a busy machine one repeat of the short kernel took 1.1 ms)
    assert statistics.median(costs[1]) > statistics.median(costs[0])


def test_a_repeat_disturbed_in_turns_is_taken_again() -> None:
    """A kernel slowed down for two repeats in a row (a spell of a shared machine) gets
    its slowest repeat taken again, after the turns; an undisturbed one does not."""
    log: list[str] = []
    steady = _LoggedKernel("steady", 2e-4, log)
    spelled = _LoggedKernel("spelled", 2e-4, log)
    calls = 0

    def slowed(*arrays: np.ndarray) -> None:
        nonlocal calls
        calls += 1
        # (runs 4-7 are its first two repeats of two runs: after the placements' warm-ups
        # and a calibration that `number` skips)
        spelled.cost_s = 2e-3 if 4 <= calls <= 7 else 2e-4
        spelled(*arrays)

    options = MeasureOptions(number=2, repeat=3)
    costs = _time_in_turns([(steady, []), (slowed, [])], options)  # type: ignore[list-item]
    assert len(costs[1]) == 3 and max(costs[1]) < 5 * min(costs[1])
    assert log.count("spelled") > PLACEMENTS + 2 * 3  # retaken


def test_a_batch_timed_in_turns_measures_each_candidate_ok() -> None:
    task = _matmul_task(32, 64, 64)
    default = default_trace(task, TARGET)
    plain = {"version": default["version"], "steps": []}  # no schedule: the naive loops
    traces = [default, plain, default]
    options = MeasureOptions(repeat=4, min_repeat_ms=5, in_turn=True)
    results = measure_batch([MeasureInput(task, trace, TARGET) for trace in traces], options)
    assert [r.status for r in results] == ["ok"] * 3, [r.error for r in results]
    assert all(len(r.costs_s) == 4 and min(r.costs_s) > 0 for r in results)
    assert all(r.build_s > 0 and r.measure_s > 0 for r in results)
    # Timed together: each is given an equal share of the timing.
    assert len({r.measure_s for r in results}) == 1
    apart = measure_batch([MeasureInput(task, trace, TARGET) for trace in traces[:2]])
    assert len({r.measure_s for r in apart}) == 2


def test_failures_in_turns_are_results_and_a_crash_measures_the_batch_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A candidate that does not build or check gets its status in the shared child and
    the others are still timed there together; a crash sends the whole batch back to
    one child per candidate, numbered as before, where it costs only its candidate."""
    task = _matmul_task()
    good = default_trace(task, TARGET)
    invalid = {"version": good["version"], "steps": [{"kind": "fuse", "stage": "nope"}]}
    # (No failure here waits on the run timeout; a short one made a loaded machine's
    # slow first candidate a "timeout".)
    options = MeasureOptions(number=1, repeat=2, run_timeout_s=20, in_turn=True)
    monkeypatch.setenv(FAULT_ENV, "wrong@1")
    results = measure_batch([MeasureInput(task, good, TARGET)] * 3, options)
    assert [r.status for r in results] == ["ok", "wrong_result", "ok"]
    assert "output 0" in results[1].error and results[1].costs_s == ()
    assert results[0].measure_s == results[2].measure_s > 0  # timed together
    monkeypatch.setenv(FAULT_ENV, "crash@2")
    results = measure_batch([MeasureInput(task, good, TARGET)] * 3, options)
    assert [r.status for r in results] == ["ok", "ok", "runtime_error"]
    assert "SIGABRT" in results[2].error
    assert results[0].measure_s != results[1].measure_s  # one by one
    monkeypatch.delenv(FAULT_ENV)
    traces = [good, invalid, good]
    results = measure_batch([MeasureInput(task, t, TARGET) for t in traces], options)
    assert [r.status for r in results] == ["ok", "build_error", "ok"]
    assert "fuse(stage='nope')" in results[1].error
    assert all(len(r.costs_s) == 2 for r in results[0::2])
    assert results[0].measure_s == results[2].measure_s > 0


def test_a_hang_in_turns_costs_its_own_timeouts_then_one_child_per_candidate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shared child waits build_timeout_s + run_timeout_s for each candidate's build
    and check, not the batch's sum, before the batch is measured one by one."""
    task = _matmul_task()
    good = default_trace(task, TARGET)
    options = MeasureOptions(number=1, repeat=2, build_timeout_s=20, run_timeout_s=3, in_turn=True)
    monkeypatch.setenv(FAULT_ENV, "hang@1")
    results = measure_batch([MeasureInput(task, good, TARGET)] * 3, options)
    assert [r.status for r in results] == ["ok", "timeout", "ok"]
    assert "run_timeout_s=3" in results[1].error


def test_a_stopped_batch_in_turns_kills_its_child_and_the_session_measures_on() -> None:
    """Setting the stop event while a batch is timed in turns kills the child at once
    (MeasureStopped, with the failed builds found until then); the session's next batch
    gets a fresh child."""
    task = _matmul_task()
    good = default_trace(task, TARGET)
    invalid = {"version": good["version"], "steps": [{"kind": "fuse", "stage": "nope"}]}
    inputs = [MeasureInput(task, trace, TARGET) for trace in (invalid, good, good)]
    slow = MeasureOptions(repeat=40, min_repeat_ms=250, in_turn=True)  # 20 s of timing
    stop = threading.Event()
    with MeasureSession() as session:
        # (a child already started: on a busy host, starting one can take past the stop)
        warm = session.measure_in_turn(inputs[1:2], MeasureOptions(repeat=1, min_repeat_ms=1))
        assert warm is not None
        threading.Timer(2.0, stop.set).start()
        started = time.monotonic()
        with pytest.raises(MeasureStopped, match="stopped") as stopped:
            session.measure_in_turn(inputs, slow, stop)
        assert time.monotonic() - started < 10
        # (the failed build is known before the timing; the others are not timed)
        assert {p: r.status for p, r in stopped.value.settled.items()} == {0: "build_error"}
        inputs = inputs[1:]
        results = session.measure_in_turn(inputs, MeasureOptions(repeat=2, min_repeat_ms=5))
    assert results is not None and [r.status for r in results] == ["ok", "ok"]


def test_in_turns_large_arguments_are_timed_in_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    """Candidates whose arguments would pass IN_TURN_MAX_BYTES together are timed in
    successive groups, each in turns, and every candidate still gets its result."""
    task = _matmul_task()
    good = default_trace(task, TARGET)
    built = _build({"target": TARGET, "task": task, "trace": good})
    _, args, _ = _checked_args(built, _workload(task, built.function, seed=0), "")
    one_candidate = sum(a.nbytes for a in args) * (1 + PLACEMENTS)
    monkeypatch.setattr(measure_child, "IN_TURN_MAX_BYTES", 2 * one_candidate)
    request = {
        "options": MeasureOptions(number=1, repeat=2).to_json(),
        "in_turn": [
            {"index": index, "task": task, "trace": good, "target": TARGET, "cubin_cache": None}
            for index in range(5)
        ],
    }
    protocol = io.StringIO()
    measure_child._serve_in_turn(request, protocol)
    events = [json.loads(line) for line in protocol.getvalue().splitlines()]
    timing = [e["candidates"] for e in events if e["event"] == "timing"]
    assert timing == [2, 2, 1]
    assert [e["position"] for e in events if e["event"] == "checked"] == [0, 1, 2, 3, 4]
    (results,) = [e["results"] for e in events if e["event"] == "results"]
    assert [r["status"] for r in results] == ["ok"] * 5
    assert all(len(r["costs_s"]) == 2 for r in results)
    measure_s = [r["measure_s"] for r in results]
    assert measure_s[0] == measure_s[1] and measure_s[2] == measure_s[3]


def test_timing_runs_a_warm_up_per_placement_then_number_times_repeat() -> None:
    kernel = _SleepyKernel(1e-4)
    options = MeasureOptions(number=3, repeat=4, flush_cache=True)
    costs = _time_kernel(kernel, [], options)  # type: ignore[arg-type]
    # Slow repeats (a busy machine) are taken again, a few at most.
    assert kernel.calls in {
        PLACEMENTS + 3 * (4 + retaken) for retaken in range(MAX_RETAKEN_REPEATS + 1)
    }
    assert len(costs) == 4 and all(cost >= 1e-4 for cost in costs)


def test_timing_picks_number_for_min_repeat_ms() -> None:
    kernel = _SleepyKernel(1e-3)
    options = MeasureOptions(number=0, repeat=2, min_repeat_ms=10)
    costs = _time_kernel(kernel, [], options)  # type: ignore[arg-type]
    assert len(costs) == 2
    # Each repeat ran at least ten 1 ms calls, and reports the mean of one call.
    assert all(1e-3 <= cost < 5e-3 for cost in costs), costs
    assert kernel.calls >= 1 + 2 * 10


def test_cold_timing_empties_the_caches_before_every_run() -> None:
    events: list[str] = []

    def kernel(*arrays: np.ndarray) -> None:
        events.append("run")

    cost = _cold_mean(kernel, [], 3, lambda: events.append("flush"))  # type: ignore[arg-type]
    assert events == ["flush", "run"] * 3
    assert cost >= 0


def test_cold_timing_bounds_the_runs_it_picks(monkeypatch: pytest.MonkeyPatch) -> None:
    import codegen.measure_child as child

    monkeypatch.setattr(child, "_calibrate", lambda *args: 500)  # a very fast kernel
    kernel = _SleepyKernel(1e-5)
    costs = _time_kernel(
        kernel, [np.zeros(4), np.ones(1000)], MeasureOptions(repeat=2, flush_cache=True)
    )  # type: ignore[arg-type]
    assert len(costs) == 2
    assert kernel.calls in {
        PLACEMENTS + MAX_COLD_NUMBER * (2 + retaken) for retaken in range(MAX_RETAKEN_REPEATS + 1)
    }
    hot = _SleepyKernel(1e-5)
    _time_kernel(hot, [], MeasureOptions(repeat=2))  # type: ignore[arg-type]
    assert hot.calls in {
        PLACEMENTS + 500 * (2 + retaken) for retaken in range(MAX_RETAKEN_REPEATS + 1)
    }


def test_a_candidate_measures_on_cold_caches() -> None:
    task = _matmul_task(64, 64, 128)
    options = MeasureOptions(repeat=2, min_repeat_ms=5, flush_cache=True)
    result = measure_default(task, TARGET, options)
    assert result.status == "ok", result.error
    assert len(result.costs_s) == 2 and all(cost > 0 for cost in result.costs_s)


def test_slow_repeats_are_taken_again() -> None:
    taken: list[int] = []

    def timings(*costs: float) -> tuple[list[float], list[float]]:
        queue = list(costs)
        taken.clear()

        def one_repeat(index: int) -> float:
            taken.append(index)
            return queue.pop(0)

        return queue, undisturbed_repeats(one_repeat, 3)

    # Two disturbed repeats of three: both retaken, the median is the kernel's own cost.
    # A repeat is taken again as itself (on the same placement of the arguments).
    left, costs = timings(1.0, 4.0, 3.0, 1.1, 1.2, 9.9)
    assert costs == [1.0, 1.1, 1.2] and left == [9.9]
    assert taken == [0, 1, 2, 1, 2]
    # A quiet run is never retaken; a run disturbed throughout stops after the cap.
    left, costs = timings(1.0, 1.4, 1.2, 9.9)
    assert costs == [1.0, 1.4, 1.2] and left == [9.9]
    left, costs = timings(*([1.0] + [5.0] * (2 + MAX_RETAKEN_REPEATS)), 9.9)
    assert costs == [1.0, 5.0, 5.0] and left == [9.9]


def test_the_child_holds_blas_to_one_thread() -> None:
    # The reference is computed just before the first candidate of a workload is timed: a
    # multi-threaded BLAS left spinning would take a core from that candidate's loops.
    env = child_environment({"OPENBLAS_NUM_THREADS": "8", "PYTHONPATH": "/elsewhere"})
    assert env["OPENBLAS_NUM_THREADS"] == "1" and env["MKL_NUM_THREADS"] == "1"
    assert env["PYTHONPATH"].split(os.pathsep)[-1] == "/elsewhere"


def test_options_and_results_travel_as_json() -> None:
    options = MeasureOptions(number=4, repeat=5, flush_cache=True, seed=3, in_turn=True)
    assert MeasureOptions.from_json(options.to_json()) == options
    result = MeasureResult("ok", (1e-3, 2e-3), "", 0.5, 0.25)
    assert MeasureResult.from_json(result.to_json()) == result
    with pytest.raises(ValueError, match="repeat"):
        MeasureOptions(repeat=0)


def test_workload_from_task_json() -> None:
    task = _matmul_task()
    function, constants = workload_from_task_json(task)
    assert [p.name for p in function.params] == ["p0", "p1"]
    assert constants == frozenset({"p1"})
    with pytest.raises(IRError, match="constant_params"):
        workload_from_task_json({"function": task["function"]})


def test_every_kernel_of_a_model_over_shape_ranges_measures_ok() -> None:
    """Reshapes to symbolic targets and slices to symbolic ends (a transformer's heads)
    carry their dims as (text, upper bound) attributes; the reference a candidate is
    checked against evaluates them at the upper bounds, where the inputs are."""
    from ir.frontend.onnx.importer import import_model
    from ir.frontend.onnx.symbolic_dims import DimRange
    from tests.ir.frontend.test_onnx_transformer import HIDDEN, transformer_block
    from tuner.tasks import extract_tasks

    imported = import_model(
        transformer_block(), shape={"x": (DimRange(1, 2), DimRange(1, 80), HIDDEN)}
    )
    tasks = extract_tasks(optimize(imported.function), host_target())
    assert any(task.layouts_of for task in tasks)  # (seq reaches past 64: size buckets too)
    reshapes = [task for task in tasks if "reshape" in task.name]
    assert reshapes
    for task in tasks:
        result = measure_default(task.to_json(), TARGET, MeasureOptions(repeat=1, min_repeat_ms=1))
        assert result.status == "ok", f"{task.name}: {result.error}"


def test_a_kernel_whose_dims_are_all_products_is_measured_at_the_sizes_its_task_covers() -> None:
    """relu(dense) over [(b * s), 64] rows: the arrays' shapes cannot bind b and s, so
    the task says the sizes it covers (`Task.covers`) and the candidate runs at them."""
    from ir.tir.expr import INDEX_DTYPE, binary
    from ir.tir.expr import Var as SizeVar

    b, s = SizeVar("b", INDEX_DTYPE), SizeVar("s", INDEX_DTYPE)
    rows = binary("mul", b, s)
    x = Var("x", TensorType((80, 64), "float32", (rows, IntImm(64, INDEX_DTYPE))))
    weight = Constant(np.ones((32, 64), np.float32))
    task = _task_json(Function((x,), call("nn.relu", call("nn.dense", x, weight))))
    options = MeasureOptions(repeat=1, min_repeat_ms=1)
    unbound = measure_default(task, TARGET, options)
    assert unbound.status == "runtime_error" and "cannot bind it" in unbound.error
    result = measure_default({**task, "covers": {"b": 2, "s": 40}}, TARGET, options)
    assert result.status == "ok", result.error
    smaller = {**task, "covers": {"b": 2, "s": 40}, "measure_at": {"b": 1, "s": 3}}
    assert measure_default(smaller, TARGET, options).status == "ok"
    assert measure_default({**smaller, "measure_at": {"s": 41}}, TARGET, options).status != "ok"
