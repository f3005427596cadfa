"""SimplifyInference: batch norm becomes scale-and-shift arithmetic; dropout and copy vanish."""

from __future__ import annotations

import numpy as np
import pytest

from ir.errors import IRError
from ir.graph.nodes import Call, Constant, Expr, Function, Var, call, const
from ir.graph.passes.fold_constant import fold_constant
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.simplify_inference import simplify_inference
from ir.graph.passes.verify import verify
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate


def _bn_params(channels: int, seed: int = 0) -> list[Constant]:
    rng = np.random.default_rng(seed)
    gamma = rng.uniform(0.5, 1.5, channels)
    beta = rng.normal(size=channels)
    mean = rng.normal(size=channels)
    var = rng.uniform(0.1, 2.0, channels)
    return [const(value, "float32") for value in (gamma, beta, mean, var)]


def _batch_norm_fn(shape: tuple[int, ...], axis: int, epsilon: float = 1e-3) -> Function:
    x = Var("x", TensorType(shape, "float32"))
    params = _bn_params(shape[axis])
    return infer_type(Function((x,), call("nn.batch_norm", x, *params, axis=axis, epsilon=epsilon)))


def test_batch_norm_becomes_scale_and_shift_broadcast_on_the_channel_axis() -> None:
    fn = _batch_norm_fn((1, 4, 5, 5), axis=1)
    x = fn.params[0]
    gamma, beta, mean, var = _bn_params(4)
    scale = call("divide", gamma, call("sqrt", call("add", var, const(1e-3, "float32"))))
    shift = call("subtract", beta, call("multiply", mean, scale))
    expected_body = call(
        "add",
        call("multiply", x, call("expand_dims", scale, axes=(1, 2))),
        call("expand_dims", shift, axes=(1, 2)),
    )
    result = simplify_inference(fn)
    assert result == Function((x,), expected_body)
    verify(result)


@pytest.mark.parametrize(
    ("shape", "axis"),
    [((2, 3, 4, 5), 1), ((2, 6), 1), ((2, 3, 4), -1), ((2, 3, 4, 5), 2), ((3, 2, 2), 0)],
)
def test_batch_norm_numerics_match_the_reference(shape: tuple[int, ...], axis: int) -> None:
    fn = _batch_norm_fn(shape, axis)
    data = np.random.default_rng(1).normal(size=shape).astype("float32")
    result = simplify_inference(fn)
    assert not any(isinstance(n, Call) and n.op == "nn.batch_norm" for n in post_order(result))
    verify(result)
    check_close(evaluate(result, {"x": data}), evaluate(fn, {"x": data}), rtol=1e-5, atol=1e-6)


def test_constant_parameters_fold_into_one_scale_and_one_shift() -> None:
    fn = _batch_norm_fn((1, 4, 5, 5), axis=1)
    folded = fold_constant(simplify_inference(fn))
    body = folded.body
    assert isinstance(body, Call) and body.op == "add"
    product, shift = body.args
    assert isinstance(product, Call) and product.op == "multiply"
    scale = product.args[1]
    assert isinstance(scale, Constant) and scale.data.shape == (4, 1, 1)
    assert isinstance(shift, Constant) and shift.data.shape == (4, 1, 1)


def test_batch_norm_with_variable_parameters_keeps_graph_expressions() -> None:
    x = Var("x", TensorType((2, 3, 4), "float32"))
    gamma, beta, mean, var = (Var(name, TensorType((3,))) for name in "gbmv")
    fn = infer_type(
        Function((x, gamma, beta, mean, var), call("nn.batch_norm", x, gamma, beta, mean, var))
    )
    result = simplify_inference(fn)
    verify(result)
    rng = np.random.default_rng(2)
    inputs = {
        "x": rng.normal(size=(2, 3, 4)).astype("float32"),
        "g": rng.normal(size=3).astype("float32"),
        "b": rng.normal(size=3).astype("float32"),
        "m": rng.normal(size=3).astype("float32"),
        "v": rng.uniform(0.5, 1.0, size=3).astype("float32"),
    }
    check_close(evaluate(result, inputs), evaluate(fn, inputs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["nn.dropout", "copy"])
def test_identities_at_inference_are_removed(op: str) -> None:
    x = Var("x", TensorType((2, 3)))
    fn = infer_type(Function((x,), call("exp", call(op, call("nn.relu", x)))))
    expected = Function((x,), call("exp", call("nn.relu", x)))
    result = simplify_inference(fn)
    assert result == expected
    assert result.body.has_type


def test_output_is_typed_and_other_ops_are_kept() -> None:
    x = Var("x", TensorType((2, 3)))
    body: Expr = call("sigmoid", call("nn.dropout", x))
    result = simplify_inference(infer_type(Function((x,), body)))
    assert result == Function((x,), call("sigmoid", x))
    verify(result)


def test_untyped_batch_norm_is_an_error() -> None:
    x = Var("x", TensorType((2, 3)))
    fn = Function((x,), call("nn.batch_norm", x, *_bn_params(3)))
    with pytest.raises(IRError, match="run infer_type"):
        simplify_inference(fn)
