"""The GPU search space: sampled traces compute the reference (interpreted, thread loops
in both orders), compile with nvcc, stay within the device's limits, and over-limit
traces are rejected with their reason before anything is measured."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.cuda import CudaTarget, build_cuda
from codegen.target import parse_target
from ir.graph.nodes import Call, Constant, Expr, Function, Var, call
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.lower import lower
from ir.reference import check_close, evaluate
from ir.schedule.gpu import GpuParams
from ir.schedule.trace import Trace
from ir.te.program import function_to_te
from tests.codegen.cuda.support import (
    build_named,
    compile_batch,
    one_op,
    require_nvcc,
    run_interpreted,
)
from tests.tuner.space.workloads import workloads
from tuner.space import SearchSpace, SpaceError, decisions_from_json, decisions_to_json
from tuner.space.gpu_space import GpuSearchSpace
from tuner.space.select import search_space_for

RNG = np.random.default_rng(11)


def _normal(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


@dataclass(frozen=True)
class SmallWorkload:
    """A one-group graph on small shapes, its arguments and reference outputs."""

    prim: Function
    args: list[np.ndarray]
    expected: list[np.ndarray]


def _graph_workload(build: Callable[[list[Var]], Expr], *inputs: np.ndarray) -> SmallWorkload:
    params = [Var(f"x{i}", TensorType(value.shape)) for i, value in enumerate(inputs)]
    fn = infer_type(Function(tuple(params), build(params)))
    named = {f"x{i}": value for i, value in enumerate(inputs)}
    expected = evaluate(fn, named)
    (prim_call,) = [
        node
        for node in post_order(fuse_ops(fn).body)
        if isinstance(node, Call) and isinstance(node.op, Function)
    ]
    assert isinstance(prim_call.op, Function)
    args = [
        named[arg.name] if isinstance(arg, Var) else np.asarray(arg.data)  # type: ignore[attr-defined]
        for arg in prim_call.args
    ]
    return SmallWorkload(prim_call.op, args, [np.asarray(expected)])


@cache
def small_workloads() -> dict[str, SmallWorkload]:
    """matmul, conv2d + bias + relu, depthwise conv, max pooling, softmax, elementwise."""
    bias = Constant(_normal(8, 1, 1))

    def conv_bias_relu(p: list[Var]) -> Expr:
        conv = call("nn.conv2d", p[0], p[1], padding=(1, 1))
        return call("nn.relu", call("add", conv, bias))

    def elementwise(p: list[Var]) -> Expr:
        return call("tanh", call("multiply", call("nn.relu", call("add", p[0], p[1])), p[0]))

    items = {
        "matmul": SmallWorkload(*one_op("nn.matmul", [_normal(8, 12), _normal(12, 16)], {})),
        "conv2d": _graph_workload(conv_bias_relu, _normal(1, 4, 6, 6), _normal(8, 4, 3, 3)),
        "depthwise_conv2d": SmallWorkload(
            *one_op(
                "nn.conv2d",
                [_normal(1, 4, 6, 6), _normal(4, 1, 3, 3)],
                {"padding": (1, 1), "groups": 4},
            )
        ),
        "max_pool2d": SmallWorkload(
            *one_op(
                "nn.max_pool2d",
                [_normal(1, 2, 7, 7)],
                {"pool_size": (3, 3), "strides": (2, 2), "padding": (1, 1, 1, 1)},
            )
        ),
        "softmax": SmallWorkload(*one_op("nn.softmax", [_normal(3, 10)], {})),
        "elementwise": _graph_workload(elementwise, _normal(4, 6), _normal(4, 6)),
    }
    return items


@pytest.mark.parametrize("name", sorted(small_workloads()))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_sampled_gpu_traces_compute_the_reference(name: str, seed: int) -> None:
    workload = small_workloads()[name]
    space = GpuSearchSpace(function_to_te(workload.prim))
    rng = random.Random(seed)
    trace = space.mutate(space.sample(rng), rng)
    replayed = Trace.from_json(trace.dumps()).replay(function_to_te(workload.prim))
    func = lower(replayed)
    build_cuda(func)  # within the default limits, and printable
    for reverse in (False, True):
        outputs = run_interpreted(func, workload.args, reverse_threads=reverse)
        for got, want in zip(outputs, workload.expected, strict=True):
            check_close(got, want, what=f"{name} seed {seed} (reverse threads: {reverse})")


def test_sampled_traces_of_matmul_and_conv2d_compile_with_nvcc() -> None:
    require_nvcc()
    modules = []
    for name in ("matmul", "conv2d", "depthwise_conv2d", "batch_matmul"):
        workload = workloads()[name]
        space = GpuSearchSpace(workload.program())
        rng = random.Random(7)
        for index in range(6):
            trace = space.sample(rng)
            func = lower(trace.replay(workload.program()))
            modules.append(build_named(func, f"{name}_{index}"))
    ptx = compile_batch(modules).decode()
    assert ptx.count(".entry ") == sum(len(m.metadata["kernels"]) for m in modules)


def test_sampled_traces_respect_tight_device_limits() -> None:
    limits = GpuParams(max_threads_per_block=64, max_shared_memory_per_block=2048)
    target = CudaTarget("sm_80", limits)
    for name in ("matmul", "conv2d", "softmax"):
        workload = workloads()[name]
        space = GpuSearchSpace(workload.program(), target)
        rng = random.Random(3)
        for _ in range(8):
            trace = space.mutate(space.sample(rng), rng)
            module = build_cuda(lower(trace.replay(workload.program())), target)
            for kernel in module.metadata["kernels"]:
                block = kernel["block"]
                assert block[0] * block[1] * block[2] <= 64
                assert kernel["shared_bytes"] <= 2048


def test_over_limit_decisions_and_traces_are_rejected_with_the_reason() -> None:
    workload = workloads()["matmul"]  # 64 x 48 @ 48 x 80
    space = GpuSearchSpace(workload.program())
    decisions = space.decisions_of(space.sample(random.Random(0)))
    too_many_threads = {
        **decisions,
        "matmul.tile.i0": (1, 1, 32, 1, 2),
        "matmul.tile.i1": (1, 1, 80, 1, 1),
    }
    with pytest.raises(SpaceError, match="2560 threads per block exceed 1024"):
        space.from_decisions(too_many_threads)
    small = GpuSearchSpace(workload.program(), GpuParams(max_shared_memory_per_block=1024))
    big_tiles = {
        **decisions,
        "matmul.tile.i0": (1, 1, 16, 1, 4),
        "matmul.tile.i1": (1, 1, 16, 1, 5),
        "matmul.tile.k": (1, 48, 1),
        "matmul.vector": 1,
    }
    with pytest.raises(SpaceError, match="shared memory exceed the limit 1024"):
        small.from_decisions(big_tiles)
    trace = GpuSearchSpace(workload.program()).from_decisions(big_tiles)
    reason = small.check(trace)
    assert reason is not None and "shared memory" in reason
    cpu_trace = SearchSpace(workload.program()).sample(random.Random(0))
    cpu_reason = space.check(cpu_trace)
    assert cpu_reason is not None  # a CPU schedule is no GPU kernel


def test_the_same_seed_gives_the_same_traces_and_decisions_round_trip() -> None:
    workload = workloads()["conv2d"]
    first, second = GpuSearchSpace(workload.program()), GpuSearchSpace(workload.program())
    traces_a = [first.sample(random.Random(seed)) for seed in range(4)]
    traces_b = [second.sample(random.Random(seed)) for seed in range(4)]
    assert traces_a == traces_b
    assert len(set(traces_a)) > 1
    for trace in traces_a:
        text = json.dumps(decisions_to_json(first.decisions_of(trace)))
        rebuilt = GpuSearchSpace(workload.program()).from_decisions(
            decisions_from_json(json.loads(text))
        )
        assert rebuilt == trace


def test_the_target_kind_selects_the_space() -> None:
    program = workloads()["matmul"].program()
    gpu = search_space_for(program, parse_target("cuda -arch=sm_80 -max_threads_per_block=256"))
    assert isinstance(gpu, GpuSearchSpace)
    assert gpu.limits.max_threads_per_block == 256
    assert isinstance(search_space_for(program, parse_target("llvm")), SearchSpace)
