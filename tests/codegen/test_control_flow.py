"""Compiled control flow: If and Loop nodes planned as branch and loop steps, run by the JIT
executor and by an artifact's entry function, checked against the numpy reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.aot.build import build_model_artifact
from codegen.aot.cuda_build import build_cuda_artifact
from codegen.aot.plan import BranchStep, CopyStep, KernelStep, LoopStep, ZeroStep, all_steps
from codegen.cuda.target import CudaTarget
from codegen.errors import CodegenError
from codegen.executor import CompiledModel, compile_model
from codegen.llvm import host_target
from codegen.profile import time_kernel_calls
from codegen.runtime.loader import load_artifact
from ir.graph.attrs import Attrs
from ir.graph.nodes import Function, If, Loop, Tuple, TupleGetItem, Var, call, const
from ir.graph.passes.pipeline import optimize
from ir.graph.types import TensorType
from ir.reference import evaluate
from tests.support.graph_loops import python_trace, tracing_loop

MATRIX = TensorType((4, 8), "float32")
SCALAR_INT, SCALAR_BOOL = TensorType((), "int64"), TensorType((), "bool")
RNG = np.random.default_rng(11)
WEIGHT = (RNG.standard_normal((8, 8)) * 0.3).astype(np.float32)


def _recurrent_then_branch() -> Function:
    """An If on a run-time flag, then a loop `s = tanh(s @ W) + x` that stops after n
    iterations or once sum(s) reaches the limit; returns (the If's value, the final s)."""
    x, c = Var("x", MATRIX), Var("c", TensorType((1,), "bool"))
    n, limit = Var("n", SCALAR_INT), Var("limit", TensorType((), "float32"))
    a = Var("a", MATRIX)
    then_branch = Function((a,), call("nn.relu", call("nn.matmul", a, const(WEIGHT))))
    else_branch = Function((a,), call("negative", call("exp", a)))
    picked = If(c, then_branch, else_branch, (x,))
    i, running = Var("i", SCALAR_INT), Var("running", SCALAR_BOOL)
    s, inv, bound = Var("s", MATRIX), Var("inv", MATRIX), Var("bound", TensorType((), "float32"))
    new_s = call("add", call("tanh", call("nn.matmul", s, const(WEIGHT))), inv)
    going = call("less", call("sum", new_s, axis=None, keepdims=False), bound)
    body = Function((i, running, s, inv, bound), Tuple((going, new_s)))
    loop = Loop(n, const(True), (picked,), (x, limit), body)
    return optimize(Function((x, c, n, limit), Tuple((picked, TupleGetItem(loop, 0)))))


def _swapping_loop() -> Function:
    """Each iteration swaps two states and adds the parity branch's value to the first:
    a state moving into another's storage, an If nested in a loop body, and a third state
    passed through unchanged."""
    x, n = Var("x", TensorType((8,), "float32")), Var("n", SCALAR_INT)
    i, running = Var("i", SCALAR_INT), Var("running", SCALAR_BOOL)
    a, b, kept = (Var(name, TensorType((8,), "float32")) for name in ("a", "b", "kept"))
    odd = call("equal", call("trunc_mod", i, const(np.int64(2))), const(np.int64(1)))
    v = Var("v", TensorType((8,), "float32"))
    parity = If(
        odd,
        Function((v,), call("multiply", v, const(np.float32(2.0)))),
        Function((v,), call("subtract", v, const(np.float32(1.0)))),
        (b,),
    )
    body = Function(
        (i, running, a, b, kept),
        Tuple((running, call("add", b, parity), a, kept)),
        Attrs({"name": "swap"}),
    )
    loop = Loop(n, const(True), (x, call("negative", x), call("exp", x)), (), body)
    outputs = Tuple(tuple(TupleGetItem(loop, index) for index in range(3)))
    return optimize(Function((x, n), outputs))


def _run_both(fn: Function, inputs: dict[str, np.ndarray], tmp_path: Path) -> None:
    expected = evaluate(fn, inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    jit = compile_model(fn).run(inputs)
    jit = jit if isinstance(jit, tuple) else (jit,)
    artifact = build_model_artifact(fn, host_target(), tmp_path)
    assert artifact.manifest["control_flow"] is True
    with load_artifact(artifact.path) as loaded:
        aot = tuple(loaded.run(inputs).values())
    for index, want in enumerate(expected):
        np.testing.assert_allclose(jit[index], want, rtol=1e-5, atol=1e-5, err_msg="JIT")
        np.testing.assert_allclose(aot[index], want, rtol=1e-5, atol=1e-5, err_msg="artifact")


def test_a_branch_and_an_early_exit_loop_run_as_the_reference_in_both_backends(
    tmp_path: Path,
) -> None:
    fn = _recurrent_then_branch()
    cases = [
        (flag, trips, limit) for flag in (True, False) for trips, limit in ((0, 9e9), (5, 9e9))
    ]
    cases.append((True, 50, 0.0))  # ends on the condition after one iteration
    for flag, trips, limit in cases:
        inputs = {
            "x": RNG.standard_normal((4, 8)).astype(np.float32),
            "c": np.array([flag]),
            "n": np.array(trips, np.int64),
            "limit": np.array(limit, np.float32),
        }
        _run_both(fn, inputs, tmp_path)


def test_only_the_branch_taken_runs_and_loop_kernels_are_compiled_once() -> None:
    model = compile_model(_recurrent_then_branch())
    steps = all_steps(model.plan.steps)
    branch = next(step for step in steps if isinstance(step, BranchStep))
    assert [type(s) for s in branch.then_steps] == [KernelStep, CopyStep]
    assert [type(s) for s in branch.else_steps] == [KernelStep, CopyStep]
    loop = next(step for step in steps if isinstance(step, LoopStep))
    assert sum(isinstance(s, KernelStep) for s in loop.body) == 3  # cell, sum, less
    assert model.num_kernels == 5


def test_values_read_in_a_loop_are_not_overwritten_by_its_body() -> None:
    """Every workspace value read inside a loop but made before it, and the loop's own
    storage, must not share bytes with a value the body writes."""
    model = compile_model(_recurrent_then_branch())
    plan = model.plan
    loop = next(step for step in all_steps(plan.steps) if isinstance(step, LoopStep))
    body_steps = all_steps(loop.body)
    written = {v for s in body_steps if isinstance(s, KernelStep) for v in s.outputs}
    written |= {s.target for s in body_steps if isinstance(s, CopyStep)}
    read = {v for s in body_steps if isinstance(s, KernelStep) for v in s.args}
    read |= {loop.iteration, loop.running, loop.trip_count}
    outer = read - written

    def extent(value: int) -> tuple[int, int] | None:
        location = plan.locations[value]
        if location.kind != "workspace":
            return None
        return location.position, location.position + plan.value_bytes[value]

    for made in written - read:
        made_extent = extent(made)
        for kept in outer:
            kept_extent = extent(kept)
            if made_extent and kept_extent:
                overlap = made_extent[0] < kept_extent[1] and kept_extent[0] < made_extent[1]
                assert not overlap, (made, kept)


_SWAPPING: dict[str, tuple[Function, CompiledModel]] = {}  # compiled once for the examples


@settings(max_examples=12, deadline=None)
@given(trips=st.integers(0, 7), seed=st.integers(0, 2**16))
def test_swapped_states_and_a_branch_in_a_loop_body(trips: int, seed: int) -> None:
    if not _SWAPPING:
        fn = _swapping_loop()
        _SWAPPING["model"] = (fn, compile_model(fn))
    fn, model = _SWAPPING["model"]
    x = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
    inputs: dict[str, np.ndarray] = {"x": x, "n": np.array(trips, np.int64)}
    for got, want in zip(model.run(inputs), evaluate(fn, inputs), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_the_swapping_loop_artifact_matches_the_reference(tmp_path: Path) -> None:
    for trips in (0, 1, 4):
        x = RNG.standard_normal(8).astype(np.float32)
        inputs: dict[str, np.ndarray] = {"x": x, "n": np.array(trips, np.int64)}
        _run_both(_swapping_loop(), inputs, tmp_path)


def test_a_gpu_build_refuses_control_flow_by_name(tmp_path: Path) -> None:
    with pytest.raises(CodegenError, match=r"control flow .* not supported on GPU targets"):
        build_cuda_artifact(_swapping_loop(), CudaTarget("sm_80"), tmp_path)


def test_kernel_calls_inside_branches_and_loops_are_timed_one_by_one() -> None:
    """The profile's timer sees every kernel call an inference makes: the branch taken
    once, and each body kernel once per iteration."""
    model = compile_model(_recurrent_then_branch())
    inputs: dict[str, np.ndarray] = {
        "x": RNG.standard_normal((4, 8)).astype(np.float32),
        "c": np.array([False]),
        "n": np.array(3, np.int64),
        "limit": np.array(9e9, np.float32),
    }
    timed = time_kernel_calls(model, inputs, runs=2)
    counts: dict[str, int] = {}
    for symbol in timed.symbols:
        counts[symbol] = counts.get(symbol, 0) + 1
    loop = next(step for step in all_steps(model.plan.steps) if isinstance(step, LoopStep))
    for step in loop.body:
        if isinstance(step, KernelStep):
            assert counts.pop(model.plan.kernels[step.kernel].symbol) == 3
    (branch_symbol,) = counts  # the else branch's kernel, once; the then branch's never ran
    assert "exp" in branch_symbol and counts[branch_symbol] == 1
    assert len(timed.call_s) == len(timed.symbols) == 10


def test_constant_states_and_invariants_become_weights(tmp_path: Path) -> None:
    """A loop started from a constant state, reading a constant and returning it as a
    state: constants reach kernels and copies as weights."""
    n = Var("n", SCALAR_INT)
    i, running = Var("i", SCALAR_INT), Var("running", SCALAR_BOOL)
    s, step, last = (Var(name, TensorType((8,), "float32")) for name in ("s", "step", "last"))
    body = Function((i, running, s, last, step), Tuple((running, call("add", s, step), step)))
    start = const(np.zeros(8, np.float32))
    step_value = const(np.arange(8, dtype=np.float32))
    loop = Loop(n, const(True), (start, start), (step_value,), body)
    fn = optimize(Function((n,), Tuple((TupleGetItem(loop, 0), TupleGetItem(loop, 1)))))
    for trips in (0, 3):
        total, last_step = compile_model(fn).run({"n": np.array(trips, np.int64)})
        np.testing.assert_allclose(total, trips * np.arange(8, dtype=np.float32))
        np.testing.assert_allclose(last_step, np.arange(8) if trips else np.zeros(8))
        _run_both(fn, {"n": np.array(trips, np.int64)}, tmp_path)


def _nested_loops() -> Function:
    """for i < m: (for j < k: s = s * 0.5 + x + i) ; t = t + s  (the inner loop reads the
    outer body's iteration and an invariant from the main function)."""
    x, m, k = Var("x", TensorType((8,), "float32")), Var("m", SCALAR_INT), Var("k", SCALAR_INT)
    vector = TensorType((8,), "float32")
    j, inner_running = Var("j", SCALAR_INT), Var("inner_running", SCALAR_BOOL)
    s, x_inner, i_inner = Var("s", vector), Var("x_inner", vector), Var("i_inner", SCALAR_INT)
    half = call("multiply", s, const(np.float32(0.5)))
    shifted = call("add", call("add", half, x_inner), call("cast", i_inner, dtype="float32"))
    inner_body = Function((j, inner_running, s, x_inner, i_inner), Tuple((inner_running, shifted)))
    i, running = Var("i", SCALAR_INT), Var("running", SCALAR_BOOL)
    s_outer, t, x_outer, k_outer = (
        Var("s_outer", vector),
        Var("t", vector),
        Var("x_outer", vector),
        Var("k_outer", SCALAR_INT),
    )
    inner = Loop(k_outer, const(True), (s_outer,), (x_outer, i), inner_body)
    new_s = TupleGetItem(inner, 0)
    outer_body = Function(
        (i, running, s_outer, t, x_outer, k_outer),
        Tuple((running, new_s, call("add", t, new_s))),
    )
    outer = Loop(m, const(True), (x, call("negative", x)), (x, k), outer_body)
    return optimize(Function((x, m, k), Tuple((TupleGetItem(outer, 0), TupleGetItem(outer, 1)))))


def test_nested_loops_run_as_the_reference(tmp_path: Path) -> None:
    fn = _nested_loops()
    for outer_trips, inner_trips in ((0, 3), (3, 0), (2, 5), (4, 1)):
        inputs: dict[str, np.ndarray] = {
            "x": RNG.standard_normal(8).astype(np.float32),
            "m": np.array(outer_trips, np.int64),
            "k": np.array(inner_trips, np.int64),
        }
        _run_both(fn, inputs, tmp_path)


@pytest.mark.parametrize("ends_early", [False, True])
def test_scan_outputs_fill_their_rows_in_both_backends(ends_early: bool, tmp_path: Path) -> None:
    """Each iteration writes its row; a scan result that is a state's storage is copied
    before the state moves; rows of iterations cut short stay zero."""
    fn = optimize(tracing_loop(6, ends_early))
    x = RNG.standard_normal(8).astype(np.float32)
    xs = RNG.standard_normal((6, 8)).astype(np.float32)
    limits = (-1e9, 1.0, 1e9) if ends_early else (0.0,)
    for limit in limits:
        inputs = {"x": x, "xs": xs, "limit": np.array(limit, np.float32)}
        _run_both(fn, inputs, tmp_path)
        if ends_early:
            got_all = compile_model(fn).run(inputs)
            for got, want in zip(got_all, python_trace(x, xs, limit), strict=True):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    steps = all_steps(compile_model(fn).plan.steps)
    assert any(isinstance(step, ZeroStep) for step in steps) is ends_early
    loop = next(step for step in steps if isinstance(step, LoopStep))
    rows = [s for s in loop.body if isinstance(s, CopyStep) and s.row == loop.iteration]
    assert len(rows) == 2


def _chained_scan() -> Function:
    """s = tanh(s @ W) @ W * 0.5 + xs[i] over 6 rows, the state after each step scanned,
    the scan output then summed: the first matmul's value dies inside the body before its
    row is written, and the scan output is an intermediate of the main function."""
    xs, s0 = Var("xs", TensorType((6, 4, 8), "float32")), Var("s0", MATRIX)
    i, running = Var("i", SCALAR_INT), Var("running", SCALAR_BOOL)
    s, seq = Var("s", MATRIX), Var("seq", TensorType((6, 4, 8), "float32"))
    hidden = call("tanh", call("nn.matmul", s, const(WEIGHT)))
    scaled = call("multiply", call("nn.matmul", hidden, const(WEIGHT)), const(np.float32(0.5)))
    new_s = call("add", scaled, call("take", seq, i, axis=0))
    body = Function((i, running, s, seq), Tuple((running, new_s, new_s)))
    loop = Loop(const(np.int64(6)), const(True), (s0,), (xs,), body, scan_outputs=1)
    total = call("sum", TupleGetItem(loop, 1), axis=(0,), keepdims=False)
    return optimize(Function((s0, xs), Tuple((TupleGetItem(loop, 0), total))))


def test_scan_outputs_share_no_bytes_with_the_loop_body(tmp_path: Path) -> None:
    """A scan output kept in the workspace lives through the whole loop: no value the
    body writes may share its bytes."""
    fn = _chained_scan()
    plan = compile_model(fn).plan
    loop = next(step for step in all_steps(plan.steps) if isinstance(step, LoopStep))
    (scan,) = {s.target for s in loop.body if isinstance(s, CopyStep) and s.row is not None}
    assert plan.locations[scan].kind == "workspace"
    start, end = (
        plan.locations[scan].position,
        plan.locations[scan].position + plan.value_bytes[scan],
    )
    written = {v for s in all_steps(loop.body) if isinstance(s, KernelStep) for v in s.outputs}
    for value in written:
        other = plan.locations[value]
        if other.kind == "workspace":
            assert other.position + plan.value_bytes[value] <= start or end <= other.position
    inputs = {
        "s0": RNG.standard_normal((4, 8)).astype(np.float32),
        "xs": RNG.standard_normal((6, 4, 8)).astype(np.float32),
    }
    _run_both(fn, inputs, tmp_path)
