"""Task extraction: one task per distinct workload, weights, keys and the JSON round trip."""

from __future__ import annotations

import json
from functools import cache

import numpy as np
import pytest

import tuner.tasks
from codegen.measure import workload_from_task_json
from codegen.target import canonical_target, parse_target
from ir.frontend.onnx import from_onnx
from ir.graph.nodes import Call, Constant, Function, Tuple, Var, call
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.pipeline import optimize
from ir.graph.summary import function_flops
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from tests.support.onnx_models import load_light_model
from tuner.tasks import Task, TaskError, extract_tasks, workload_key

TARGET = "llvm -mcpu=skylake-avx512 -num-cores=2"


@cache
def _squeezenet() -> Function:
    return optimize(from_onnx(load_light_model("light_squeezenet")))


def _fused_add() -> Function:
    a, b = Var("a", TensorType((4,))), Var("b", TensorType((4,)))
    return infer_type(Function((a, b), call("add", a, b), {"primitive": 1, "name": "fused_add"}))


def test_squeezenet_tasks_cover_every_fused_call() -> None:
    fn = _squeezenet()
    calls = [n for n in post_order(fn.body) if isinstance(n, Call) and isinstance(n.op, Function)]
    tasks = extract_tasks(fn, parse_target(TARGET))
    assert sum(task.weight for task in tasks) == len(calls)
    assert len({task.key for task in tasks}) == len(tasks)
    assert len(tasks) < len(calls)  # the fire modules repeat workloads
    for task in tasks:
        assert task.target == TARGET
        assert [p.name for p in task.function.params] == [
            f"p{i}" for i in range(len(task.function.params))
        ]
        assert task.key == workload_key(task.function, task.constant_params)
        assert task.flops == function_flops(task.function)
        assert task.name == task.function.attrs["name"]
    conv = next(task for task in tasks if "conv2d" in task.name)
    assert "p1" in conv.constant_params  # the weight
    assert conv.flops > 0


def test_identical_workloads_merge_and_constness_splits_them() -> None:
    prim = _fused_add()
    x, y = Var("x", TensorType((4,))), Var("y", TensorType((4,)))
    ones, twos = Constant(np.ones(4, np.float32)), Constant(np.full(4, 2, np.float32))
    body = Tuple((Call(prim, (x, ones)), Call(prim, (y, twos)), Call(prim, (x, y))))
    tasks = extract_tasks(infer_type(Function((x, y), body)), parse_target(TARGET))
    assert [(task.constant_params, task.weight) for task in tasks] == [
        (frozenset({"p1"}), 2),
        (frozenset(), 1),
    ]
    assert tasks[0].key != tasks[1].key


def test_key_ignores_parameter_names_and_follows_the_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prim = _fused_add()
    p, q = Var("p", TensorType((4,))), Var("q", TensorType((4,)))
    renamed = infer_type(Function((p, q), call("add", p, q), prim.attrs))
    key = workload_key(prim, {"p1"})
    assert workload_key(renamed, {"p1"}) == key
    assert workload_key(prim, set()) != key
    monkeypatch.setattr(tuner.tasks, "COMPUTE_VERSION", "test-next")
    assert workload_key(prim, {"p1"}) != key


def test_task_json_round_trip_and_what_workers_read() -> None:
    task = extract_tasks(_squeezenet(), parse_target(TARGET))[0]
    data = task.to_json()
    assert Task.from_json(data) == task
    assert Task.from_json(json.dumps(data)) == task
    function, constants = workload_from_task_json(data)
    assert (function, constants) == (task.function, task.constant_params)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"version": "0"}, "TE version"),
        ({"key": "0" * 64}, "does not match"),
        ({"weight": "many"}, "malformed task JSON"),
    ],
)
def test_bad_task_json_raises_task_error(change: dict[str, object], message: str) -> None:
    data = {**extract_tasks(_squeezenet(), parse_target(TARGET))[0].to_json(), **change}
    with pytest.raises(TaskError, match=message):
        Task.from_json(data)


def test_llvm_means_this_host() -> None:
    assert canonical_target("llvm").startswith("llvm -mcpu=")
    assert canonical_target(TARGET) == TARGET
    assert canonical_target("cuda -arch=sm_90") == "cuda -arch=sm_90"


def test_kernels_inside_loop_bodies_and_branches_are_tasks() -> None:
    """A decoder loop with an If in its body: the cell, the branches' ops and the early
    exit's reduction are tasks like any other, each with its flops."""
    from ir.frontend.onnx import import_model
    from tests.support.control_flow_models import decoder_loop_model

    fn = optimize(import_model(decoder_loop_model()).function)
    names = [task.name for task in extract_tasks(fn, parse_target(TARGET))]
    assert any("matmul" in name and "tanh" in name for name in names), names
    assert any("multiply" in name for name in names), names  # the odd branch
    assert any("subtract" in name for name in names), names  # the even branch
    assert any(name.startswith("fused_max") for name in names), names
    main_calls = [n for n in post_order(fn.body) if isinstance(n, Call)]
    assert len(names) > len(main_calls)  # most of the work is inside the loop


def test_a_loop_bodys_tasks_weigh_one_call_per_iteration() -> None:
    """A Scan over 12 rows runs its cell 12 times per inference: its tasks weigh 12 (the
    scheduler's latency estimate multiplies by the weight); a loop whose trip count is a
    run-time value weighs its body's tasks once."""
    from bench.control_flow import scan_rnn
    from ir.frontend.onnx import import_model
    from tests.support.control_flow_models import decoder_loop_model

    scan = optimize(import_model(scan_rnn(hidden=16, batch=1, length=12)).function)
    weights = {task.name: task.weight for task in extract_tasks(scan, parse_target(TARGET))}
    assert weights and all(weight == 12 for weight in weights.values()), weights
    decoder = optimize(import_model(decoder_loop_model()).function)
    tasks = extract_tasks(decoder, parse_target(TARGET))
    assert {task.weight for task in tasks} == {1}, [(task.name, task.weight) for task in tasks]
