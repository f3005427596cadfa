"""The optimisation pipeline: pass order, opt levels, verification between passes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ir.errors import IRError, TypeInferenceError
from ir.graph.nodes import Call, Constant, Function, Var, call, const
from ir.graph.passes import pipeline
from ir.graph.passes.pipeline import (
    optimize,
    optimize_without_fusion,
    passes,
    verification_enabled,
)
from ir.graph.passes.verify import verify
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate

X = Var("x", TensorType((1, 3, 8, 8), "float32"))
DATA = np.random.default_rng(0).normal(size=(1, 3, 8, 8)).astype("float32")


def _conv_bn_relu() -> Function:
    rng = np.random.default_rng(1)
    weight = const(rng.normal(size=(4, 3, 3, 3)), "float32")
    gamma, beta, mean = (const(rng.normal(size=4), "float32") for _ in range(3))
    var = const(rng.uniform(0.5, 1.5, size=4), "float32")
    conv = call("nn.conv2d", X, weight, padding=(1, 1, 1, 1))
    bn = call("nn.batch_norm", conv, gamma, beta, mean, var)
    relu = call("nn.relu", call("nn.dropout", bn))
    # A duplicated branch and an identity reshape for CSE and DCE to remove.
    twin = call("nn.relu", call("nn.dropout", call("nn.batch_norm", conv, gamma, beta, mean, var)))
    return Function((X,), call("add", relu, call("reshape", twin, newshape=(1, 4, 8, 8))))


def _primitive_calls(fn: Function) -> list[Call]:
    return [n for n in post_order(fn.body) if isinstance(n, Call) and isinstance(n.op, Function)]


def _reference_output(fn: Function) -> np.ndarray:
    return np.asarray(evaluate(fn, {"x": DATA}))


def test_pass_order_is_the_documented_one() -> None:
    names = [p.name for p in passes(3)]
    assert names == [
        "InferType",
        "SimplifyInference",
        "RealizeQuantized",
        "FoldConstant",
        "EliminateCommonSubexpr",
        "DeadCodeElimination",
        "BlockChannels",
        "FuseOps",
    ]
    assert [p.opt_level for p in passes(3)] == [0, 0, 2, 2, 3, 1, 3, 0]
    gpu = [p.name for p in passes(3, blocked_layout=False)]
    assert "BlockChannels" not in gpu and "RealizeQuantized" not in gpu


def test_opt_level_3_fuses_conv_with_the_folded_batch_norm_and_activation() -> None:
    fn = _conv_bn_relu()
    optimized = optimize(fn)
    verify(optimized)
    calls = _primitive_calls(optimized)
    assert len(calls) == 1  # conv, scale, shift, relu, add: one group after CSE and DCE
    ops = [n.op for n in post_order(calls[0].op.body) if isinstance(n, Call)]  # type: ignore[union-attr]
    assert ops[0] == "nn.conv2d" and "nn.batch_norm" not in ops and "reshape" not in ops
    check_close(_reference_output(optimized), _reference_output(fn), rtol=1e-4, atol=1e-5)


def test_opt_level_0_puts_every_op_in_its_own_function_and_folds_nothing() -> None:
    fn = _conv_bn_relu()
    optimized = optimize(fn, opt_level=0)
    verify(optimized)
    calls = _primitive_calls(optimized)
    for fused in calls:
        assert isinstance(fused.op, Function)
        assert sum(isinstance(n, Call) for n in post_order(fused.op.body)) == 1
    ops = {fused.op_name for fused in calls}
    assert any("sqrt" in name for name in ops)  # batch-norm parameters are not folded
    check_close(_reference_output(optimized), _reference_output(fn), rtol=1e-4, atol=1e-5)


def test_optimize_without_fusion_stops_before_fuse_ops() -> None:
    fn = _conv_bn_relu()
    simplified = optimize_without_fusion(fn)
    verify(simplified)
    assert not _primitive_calls(simplified)
    ops = [n.op for n in post_order(simplified.body) if isinstance(n, Call)]
    assert ops == ["nn.conv2d", "multiply", "add", "nn.relu", "add"]
    assert all(isinstance(n, Var | Constant | Call) for n in post_order(simplified.body))
    check_close(_reference_output(simplified), _reference_output(fn), rtol=1e-4, atol=1e-5)


def test_opt_level_1_removes_identities_but_does_not_merge_or_fold() -> None:
    simplified = optimize_without_fusion(_conv_bn_relu(), opt_level=1)
    ops = [n.op for n in post_order(simplified.body) if isinstance(n, Call)]
    assert "reshape" not in ops
    assert ops.count("sqrt") == 2  # one per batch norm: neither merged nor folded


def test_verification_defaults_on_under_pytest_or_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    assert verification_enabled()
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    monkeypatch.delenv("AUTOTUNE_DEBUG", raising=False)
    assert not verification_enabled()
    monkeypatch.setenv("AUTOTUNE_DEBUG", "1")
    assert verification_enabled()


def _break_params(fn: Function) -> Function:
    """A buggy pass: declares the first parameter twice."""
    return replace(fn, params=(*fn.params, fn.params[0]))


def test_a_pass_that_breaks_the_graph_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "dead_code_elimination", _break_params)
    with pytest.raises(IRError, match=r"pass DeadCodeElimination broke the graph: .*duplicate"):
        optimize(_conv_bn_relu(), verify_passes=True)


def test_without_verification_a_broken_graph_goes_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pipeline, "dead_code_elimination", _break_params)
    optimized = optimize_without_fusion(_conv_bn_relu(), verify_passes=False)
    assert len(optimized.params) == 2


def test_a_malformed_input_is_reported_before_any_pass() -> None:
    y = Var("y", TensorType((1, 3, 8, 8), "float32"))
    with pytest.raises(IRError, match=r"input graph is malformed: .*%y is not a parameter"):
        optimize(Function((X,), call("add", X, y)))


def test_a_type_error_in_the_model_propagates_with_the_pass_named() -> None:
    bad = Function((X,), call("add", X, const(np.ones(5), "float32")))
    with pytest.raises(TypeInferenceError) as info:
        optimize(bad)
    assert "while running graph pass InferType" in info.value.__notes__


def test_opt_level_out_of_range() -> None:
    with pytest.raises(ValueError, match="opt_level"):
        optimize(_conv_bn_relu(), opt_level=4)
