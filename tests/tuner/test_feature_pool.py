"""Features computed by worker processes are the serial ones, in order, and a dead
worker costs only time."""

from __future__ import annotations

import logging
import os
import random
import signal

import numpy as np
import pytest

from codegen.llvm import host_target
from ir.graph.nodes import Constant, Function, Var, call
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.pipeline import optimize
from ir.graph.types import TensorType
from ir.schedule import Trace
from ir.schedule.trace import Step
from ir.te.program import TEProgram, function_to_te
from tuner.feature_pool import (
    CHUNKS_PER_PROCESS,
    MIN_POOLED,
    FeaturePool,
    FeatureRow,
    candidate_features,
)
from tuner.space import SearchSpace
from tuner.tasks import Task, extract_tasks


def _conv_task() -> Task:
    data = Var("data", TensorType((1, 8, 12, 12)))
    weight = Constant(np.ones((16, 8, 3, 3), np.float32))
    body = call("nn.relu", call("nn.conv2d", data, weight, padding=(1, 1)))
    (task,) = extract_tasks(optimize(infer_type(Function((data,), body))), host_target())
    return task


def _traces(task: Task, program: TEProgram, count: int) -> list[Trace]:
    space = SearchSpace(program, constant_inputs=task.constant_params)
    rng = random.Random(0)
    traces = [space.sample(rng) for _ in range(count)]
    # An invalid candidate in the middle: its row is None, wherever it is computed.
    bogus = Trace((Step.make("split", stage="no_such_stage", axis="x", factor=2, nparts=None),))
    traces.insert(count // 2, bogus)
    return traces


def _same(got: list[FeatureRow], want: list[FeatureRow]) -> bool:
    return len(got) == len(want) and all(
        (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))
        for a, b in zip(got, want, strict=True)
    )


def _started_pool(task: Task, program: TEProgram, traces: list[Trace]) -> FeaturePool:
    """A pool of one worker, after a first batch (computed here while the worker starts)
    and once the worker is ready."""
    pool = FeaturePool(workers=1)
    assert _same(
        pool.features(task.to_json(), program, traces),
        [candidate_features(program, trace) for trace in traces],
    )
    assert pool.start(timeout_s=120), "the feature worker did not start"
    return pool


def test_pooled_features_are_the_serial_ones_in_order() -> None:
    task = _conv_task()
    program = function_to_te(task.function)
    traces = _traces(task, program, 2 * MIN_POOLED)
    serial = [candidate_features(program, trace) for trace in traces]
    assert serial[MIN_POOLED] is None and sum(row is None for row in serial) == 1
    with _started_pool(task, program, traces) as pool:
        assert _same(pool.features(task.to_json(), program, traces), serial)
        # Both processes took chunks off the counter until it ran out: one index past
        # the last chunk each.
        assert pool._next_chunk.value == 2 * CHUNKS_PER_PROCESS + 2
        # a batch too small to hand off is computed here, equally
        assert _same(pool.features(task.to_json(), program, traces[:3]), serial[:3])
    assert not pool._processes


def test_a_killed_worker_costs_only_time(caplog: pytest.LogCaptureFixture) -> None:
    task = _conv_task()
    program = function_to_te(task.function)
    traces = _traces(task, program, 2 * MIN_POOLED)
    serial = [candidate_features(program, trace) for trace in traces]
    with _started_pool(task, program, traces) as pool:
        (worker,) = pool._processes
        os.kill(worker.process.pid, signal.SIGKILL)
        worker.process.join()
        with caplog.at_level(logging.WARNING, logger="tuner.feature_pool"):
            assert _same(pool.features(task.to_json(), program, traces), serial)
            assert _same(pool.features(task.to_json(), program, traces), serial)
    assert "feature workers failed" in caplog.text
    assert not pool._processes
