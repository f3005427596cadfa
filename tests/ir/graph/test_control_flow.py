"""Control flow in the graph IR: If and Loop nodes, their types, printing, verification,
the passes run inside their functions, and the numpy reference."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir.errors import IRError, TypeInferenceError
from ir.graph.attrs import Attrs
from ir.graph.nodes import Call, Function, If, Loop, Tuple, TupleGetItem, Var, call, const
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.pipeline import optimize
from ir.graph.passes.verify import verify
from ir.graph.traversal import has_control_flow, nodes_everywhere, post_order
from ir.graph.types import TensorType
from ir.reference import evaluate
from tests.support.graph_loops import python_trace, tracing_loop

MATRIX = TensorType((4, 8), "float32")
RNG = np.random.default_rng(3)
WEIGHT = (RNG.standard_normal((8, 8)) * 0.3).astype(np.float32)


def _branches() -> tuple[Function, Function]:
    a = Var("a", MATRIX)
    then_branch = Function((a,), call("nn.relu", call("nn.matmul", a, const(WEIGHT))))
    else_branch = Function((a,), call("negative", call("exp", a)))
    return then_branch, else_branch


def _accumulating_loop(trips: Var | None = None) -> Function:
    """s = tanh(s @ W) + x, while the iteration is below n and sum(s) stays below limit."""
    x, n = Var("x", MATRIX), trips or Var("n", TensorType((), "int64"))
    limit = Var("limit", TensorType((), "float32"))
    i, running = Var("i", TensorType((), "int64")), Var("running", TensorType((), "bool"))
    s, inv, bound = Var("s", MATRIX), Var("inv", MATRIX), Var("bound", TensorType((), "float32"))
    new_s = call("add", call("tanh", call("nn.matmul", s, const(WEIGHT))), inv)
    keep_going = call("less", call("sum", new_s, axis=None, keepdims=False), bound)
    body = Function((i, running, s, inv, bound), Tuple((keep_going, new_s)), Attrs({"name": "b"}))
    loop = Loop(n, const(True), (x,), (x, limit), body)
    return infer_type(Function((x, n, limit), TupleGetItem(loop, 0)))


def _python_loop(x: np.ndarray, trips: int, limit: float) -> np.ndarray:
    state = x
    for _ in range(trips):
        state = np.tanh(state @ WEIGHT) + x
        if not state.sum(dtype=np.float32) < limit:
            break
    return state


def test_if_type_is_its_branches_and_mismatched_branches_are_refused() -> None:
    x, c = Var("x", MATRIX), Var("c", TensorType((1,), "bool"))
    then_branch, else_branch = _branches()
    typed = infer_type(Function((x, c), If(c, then_branch, else_branch, (x,))))
    assert typed.ret_type == MATRIX
    a = Var("a", MATRIX)
    narrow = Function((a,), call("sum", a, axis=(0,), keepdims=False))
    with pytest.raises(TypeInferenceError, match=r"if \(node 'pick'\).*different types"):
        infer_type(Function((x, c), If(c, then_branch, narrow, (x,), span="pick")))
    number = Var("number", TensorType((1,), "float32"))
    with pytest.raises(TypeInferenceError, match="condition must be one bool"):
        infer_type(Function((x, number), If(number, then_branch, else_branch, (x,))))
    with pytest.raises(TypeInferenceError, match="then branch takes"):
        infer_type(Function((x, c), If(c, then_branch, else_branch, (c,))))


def test_a_loop_state_that_changes_type_is_refused() -> None:
    x, n = Var("x", TensorType((4,), "float32")), Var("n", TensorType((), "int64"))
    i, running = Var("i", TensorType((), "int64")), Var("running", TensorType((), "bool"))
    s = Var("s", TensorType((4,), "float32"))
    grown = call("concatenate", s, s, axis=0)
    body = Function((i, running, s), Tuple((running, grown)))
    with pytest.raises(TypeInferenceError, match=r"loop \(node 'grow'\).*must return"):
        infer_type(Function((x, n), Loop(n, const(True), (x,), (), body, span="grow")))
    with pytest.raises(TypeInferenceError, match="trip count must be a int64 scalar"):
        infer_type(Function((x, n), Loop(const(3.0), const(True), (x,), (), body)))


def test_control_flow_nodes_compare_and_hash_by_structure_and_print() -> None:
    first, second = _accumulating_loop(), _accumulating_loop()
    assert first == second and hash(first) == hash(second)
    text = str(first)
    assert "loop(trips=%n, while=True, states=(%x), invariants=(%x, %limit), body=@b)" in text
    assert "def @b(%i: Tensor[(), int64], %running: Tensor[(), bool]" in text
    x, c = Var("x", MATRIX), Var("c", TensorType((1,), "bool"))
    then_branch, else_branch = _branches()
    branch = infer_type(Function((x, c), If(c, then_branch, else_branch, (x,))))
    assert "if(%c, then=@fn, else=@fn_1, args=(%x))" in str(branch)
    swapped = infer_type(Function((x, c), If(c, else_branch, then_branch, (x,))))
    assert swapped != branch


def test_the_verifier_checks_inside_bodies_and_refuses_control_flow_in_a_primitive() -> None:
    fn = _accumulating_loop()
    verify(fn)
    loop = fn.body.tuple_value  # type: ignore[attr-defined]
    _, running, s = loop.body.params[:3]
    stray = Var("stray", MATRIX)
    broken_body = Function(loop.body.params, Tuple((running, call("add", s, stray))))
    broken = Function(
        fn.params,
        TupleGetItem(dataclasses.replace(loop, body=broken_body), 0),
    )
    with pytest.raises(IRError, match=r"loop body: variable %stray is not a parameter"):
        verify(broken, require_types=False)
    primitive = Function(fn.params, fn.body, Attrs({"primitive": 1, "name": "p"}))
    caller = Function(fn.params, Call(primitive, fn.params))
    with pytest.raises(IRError, match="control flow inside a primitive function"):
        verify(caller, require_types=False)


def test_the_pipeline_fuses_inside_bodies_and_never_across_a_branch() -> None:
    x, c = Var("x", MATRIX), Var("c", TensorType((1,), "bool"))
    then_branch, else_branch = _branches()
    picked = If(c, then_branch, else_branch, (x,))
    fn = optimize(Function((x, c), call("sigmoid", picked)))
    main_ops = [n for n in post_order(fn.body) if isinstance(n, Call)]
    assert [n.op_name for n in main_ops] == ["fused_sigmoid"]  # not fused into a branch
    branch = next(n for n in post_order(fn.body) if isinstance(n, If))
    assert [n.op_name for n in post_order(branch.then_branch.body) if isinstance(n, Call)] == [
        "fused_nn_matmul_nn_relu"
    ]
    assert [n.op_name for n in post_order(branch.else_branch.body) if isinstance(n, Call)] == [
        "fused_exp_negative"
    ]
    names = {n.op_name for n in nodes_everywhere(fn) if isinstance(n, Call)}
    assert names == {"fused_sigmoid", "fused_nn_matmul_nn_relu", "fused_exp_negative"}


def test_an_if_on_a_constant_condition_folds_to_its_branch() -> None:
    x = Var("x", MATRIX)
    then_branch, else_branch = _branches()
    fn = optimize(Function((x,), If(const([False]), then_branch, else_branch, (x,))))
    assert not has_control_flow(fn)
    data = RNG.standard_normal((4, 8)).astype(np.float32)
    np.testing.assert_allclose(evaluate(fn, {"x": data}), -np.exp(data), rtol=1e-6)


@settings(max_examples=25, deadline=None)
@given(trips=st.integers(0, 6), limit=st.floats(-40.0, 40.0, width=32))
def test_the_reference_runs_a_loop_as_python_would(trips: int, limit: float) -> None:
    fn = _accumulating_loop()
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    inputs: dict[str, np.ndarray] = {
        "x": x,
        "n": np.array(trips, np.int64),
        "limit": np.array(limit, np.float32),
    }
    np.testing.assert_allclose(
        evaluate(fn, inputs), _python_loop(x, trips, limit), rtol=1e-5, atol=1e-6
    )


def test_a_loops_scan_outputs_stack_a_row_per_iteration_and_print() -> None:
    fn = tracing_loop(5, ends_early=True)
    assert fn.ret_type.fields[1:] == (TensorType((5, 8), "float32"),) * 2  # type: ignore[attr-defined]
    assert "body=@t, scan_outputs=2)" in str(fn)
    assert fn == tracing_loop(5, ends_early=True) != tracing_loop(5, ends_early=False)
    verify(fn)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**16), limit=st.sampled_from([-1e9, 0.0, 2.0, 1e9]))
def test_the_reference_fills_the_rows_of_iterations_run_and_zeroes_the_rest(
    seed: int, limit: float
) -> None:
    generator = np.random.default_rng(seed)
    x = generator.standard_normal(8).astype(np.float32)
    xs = generator.standard_normal((5, 8)).astype(np.float32)
    inputs = {"x": x, "xs": xs, "limit": np.array(limit, np.float32)}
    got = evaluate(tracing_loop(5, ends_early=True), inputs)
    for value, want in zip(got, python_trace(x, xs, limit), strict=True):
        np.testing.assert_allclose(value, want, rtol=1e-6, atol=1e-6)


def test_scan_outputs_need_a_constant_trip_count_and_a_tensor_per_output() -> None:
    fn = tracing_loop(3, ends_early=False)
    loop = fn.body.fields[0].tuple_value  # type: ignore[attr-defined]
    n = Var("n", TensorType((), "int64"))
    counted = dataclasses.replace(loop, trip_count=n, ty=None)
    with pytest.raises(TypeInferenceError, match="scan outputs needs a constant trip count"):
        infer_type(Function((*fn.params, n), TupleGetItem(counted, 0)))
    three = dataclasses.replace(loop, scan_outputs=3, ty=None, span="trace")
    with pytest.raises(TypeInferenceError, match=r"loop \(node 'trace'\).*3 scan output tensors"):
        infer_type(Function(fn.params, TupleGetItem(three, 0)))
