"""Measuring and tuning on a `cuda ...` target: without pycuda or a GPU a clear error (and
no candidate blamed); the GPU search space and default schedules wired into the tuner
(checked with a stand-in measurer); real measurements only on a GPU (marked `gpu`)."""

from __future__ import annotations

import importlib.util
import io
import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen.cuda.build import build_cuda
from codegen.cuda.device import gpu_device
from codegen.cuda.kernels import plan_kernels
from codegen.cuda.nvcc import cache_path
from codegen.cuda.target import parse_cuda_target
from codegen.measure import (
    MeasureError,
    MeasureInput,
    MeasureOptions,
    MeasureResult,
    MeasureSession,
    default_trace,
    measure_batch,
    prebuild_cubins,
    workload_from_task_json,
)
from codegen.measure_child import _serve
from ir.graph.canonical import function_to_json
from ir.graph.nodes import Function
from ir.lower import lower
from ir.schedule import Trace
from ir.te.program import function_to_te
from tests.codegen.cuda.support import one_op, require_nvcc
from tests.support.gpu import needs_gpu
from tests.tuner.test_tune import two_task_model
from tuner.options import TuneOptions
from tuner.records import load_records
from tuner.space.gpu_space import GpuSearchSpace
from tuner.tune import tune_model

TARGET = "cuda -arch=sm_90"
needs_no_pycuda = pytest.mark.skipif(
    importlib.util.find_spec("pycuda") is not None, reason="pycuda is installed"
)


def _matmul_task() -> dict[str, Any]:
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(shape).astype(np.float32) for shape in ((32, 16), (16, 24))]
    prim, _, _ = one_op("nn.matmul", inputs, {})
    return {"function": function_to_json(prim, positional_params=True), "constant_params": []}


def _function(task: Mapping[str, Any]) -> Function:
    return workload_from_task_json(task)[0]


def test_the_default_trace_of_a_cuda_target_is_the_gpu_schedule() -> None:
    task = _matmul_task()
    gpu_trace = default_trace(task, TARGET)
    assert gpu_trace != default_trace(task, "llvm")
    function = function_to_te(_function(task))
    plan = plan_kernels(lower(Trace.from_json(gpu_trace).replay(function)))
    assert plan.kernels and all(kernel.launch.threads > 1 for kernel in plan.kernels)


@needs_no_pycuda
def test_measuring_on_cuda_without_pycuda_is_a_clear_error() -> None:
    task = _matmul_task()
    candidate = MeasureInput(task, default_trace(task, TARGET), TARGET)
    with pytest.raises(MeasureError, match=r"pycuda is not installed: pip install autotune\[gpu\]"):
        measure_batch([candidate])


@needs_no_pycuda
def test_a_cuda_candidate_in_the_child_without_pycuda_is_a_build_error() -> None:
    # The parent refuses first; a child asked anyway reports data, not a traceback.
    task = _matmul_task()
    request = {
        "index": 0,
        "device": 0,
        "task": task,
        "trace": default_trace(task, TARGET),
        "target": TARGET,
        "options": MeasureOptions().to_json(),
    }
    protocol = io.StringIO()
    _serve(request, protocol)
    (reply,) = [json.loads(line) for line in protocol.getvalue().splitlines()]
    assert reply["status"] == "build_error"
    assert "pycuda is not installed" in reply["error"] and "Traceback" not in reply["error"]


def test_prebuilt_cubins_are_where_each_candidates_child_looks(tmp_path: Path) -> None:
    require_nvcc()
    task = _matmul_task()
    program = function_to_te(_function(task))
    space = GpuSearchSpace(program, parse_cuda_target(TARGET))
    rng = random.Random(0)
    traces = [default_trace(task, TARGET), *(space.sample(rng).to_json() for _ in range(3))]
    broken = {"version": 1, "steps": [{"kind": "split", "stage": "nowhere", "axis": "i"}]}
    inputs = [MeasureInput(task, trace, TARGET) for trace in [*traces, traces[0], broken]]
    built = prebuild_cubins(inputs, tmp_path, workers=2)
    assert built == len(traces) + 1  # the repeated one too; the broken one is its child's
    target = parse_cuda_target(TARGET)
    for trace in traces:  # what the child compiles: GpuKernel(lower(replay), target)
        source = build_cuda(lower(Trace.from_json(trace).replay(program)), target).source
        assert cache_path(tmp_path, source, target.arch, "cubin").is_file()
    assert len(list(tmp_path.iterdir())) == len({json.dumps(t, sort_keys=True) for t in traces})


def test_a_session_keeps_one_batchs_cubins_in_its_own_cache_and_removes_it_on_close() -> None:
    require_nvcc()
    task = _matmul_task()
    gpu = MeasureInput(task, default_trace(task, TARGET), TARGET)
    cpu = MeasureInput(task, default_trace(task, "llvm"), "llvm")
    with MeasureSession() as session:
        session.prebuild([gpu, cpu], MeasureOptions())  # one CUDA candidate: its child's job
        folder = Path(session.cubin_cache)
        assert not list(folder.iterdir())
        session.prebuild([gpu, cpu, gpu], MeasureOptions())
        (first,) = folder.iterdir()
        space = GpuSearchSpace(function_to_te(_function(task)), parse_cuda_target(TARGET))
        rng = random.Random(1)
        others = [MeasureInput(task, space.sample(rng).to_json(), TARGET) for _ in range(2)]
        session.prebuild(others, MeasureOptions())  # the next batch: the last one's go
        assert first not in set(folder.iterdir()) and len(list(folder.iterdir())) >= 1
    assert not folder.exists()


def test_tuning_a_cuda_target_samples_gpu_schedules_within_the_limits(tmp_path: Path) -> None:
    seen: list[MeasureInput] = []

    def fake_measurer(
        inputs: Sequence[MeasureInput], options: MeasureOptions
    ) -> list[MeasureResult]:
        seen.extend(inputs)
        return [MeasureResult("ok", (1e-5 * (1 + i % 3),)) for i in range(len(inputs))]

    records = tmp_path / "run.jsonl"
    result = tune_model(
        two_task_model(),
        TARGET,
        TuneOptions(8, search="random", cost_model="random", remeasure_top=0),
        records,
        measurer=fake_measurer,
    )
    assert result.measured == 8 and {c.target for c in seen} == {TARGET}
    assert {record.target for record in load_records(records)} == {TARGET}
    for candidate in seen:
        program = function_to_te(_function(dict(candidate.task_json)))
        plan = plan_kernels(lower(Trace.from_json(dict(candidate.trace_json)).replay(program)))
        assert all(kernel.launch.threads <= 1024 for kernel in plan.kernels)


@needs_gpu()
def test_a_gpu_candidate_is_measured_checked_and_timed(monkeypatch: pytest.MonkeyPatch) -> None:
    device = gpu_device(0)
    task = _matmul_task()
    candidate = MeasureInput(task, default_trace(task, device.target), device.target)
    options = MeasureOptions(repeat=2, min_repeat_ms=5.0)
    (result,) = measure_batch([candidate], options)
    assert result.status == "ok", result.error
    assert len(result.costs_s) == 2 and all(cost > 0 for cost in result.costs_s)
    monkeypatch.setenv("AUTOTUNE_MEASURE_FAULT", "wrong@0,crash@1")
    wrong, crashed = measure_batch([candidate, candidate], options)
    assert wrong.status == "wrong_result"
    assert crashed.status == "runtime_error" and "SIGABRT" in crashed.error
