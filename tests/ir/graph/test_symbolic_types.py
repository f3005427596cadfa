"""Symbolic dims in the graph IR: tensor types with size variables, relations that carry
them through elementwise and broadcast ops, FuseOps and TE, and one kernel compiled from
the fused function that runs every size; ops without a symbolic relation refuse them."""

from __future__ import annotations

import numpy as np
import pytest

from codegen.llvm import compile_kernel
from ir.errors import TypeInferenceError
from ir.graph.nodes import Call, Function, Var, call
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order
from ir.graph.types import TensorType, type_to_json
from ir.lower import lower
from ir.schedule.default import default_schedule
from ir.te.program import function_to_te
from ir.tir.expr import IntImm
from ir.tir.expr import Var as SizeVar

N, M = SizeVar("n"), SizeVar("m")


def _rows(width: int, upper: int = 128, size: SizeVar = N) -> TensorType:
    return TensorType((upper, width), "float32", (size, IntImm(width)))


def _bias_relu() -> Function:
    x = Var("x", _rows(64))
    b = Var("b", TensorType((64,), "float32"))
    body = call("multiply", call("nn.relu", call("add", x, b)), call("sigmoid", x))
    return infer_type(Function((x, b), body))


def test_elementwise_and_broadcast_ops_carry_symbolic_dims() -> None:
    fn = _bias_relu()
    out = fn.body.checked_type
    assert isinstance(out, TensorType)
    assert str(out) == "Tensor[(n, 64), float32]"
    assert out.shape == (128, 64)  # the upper bounds
    assert type_to_json(out) == {"shape": [128, 64], "dims": ["n", "64"], "dtype": "float32"}


def test_a_fused_function_compiles_to_one_kernel_for_every_size() -> None:
    fused = fuse_ops(_bias_relu())
    (prim,) = [
        node.op
        for node in post_order(fused.body)
        if isinstance(node, Call) and isinstance(node.op, Function)
    ]
    program = function_to_te(prim)
    kernel = compile_kernel(lower(default_schedule(program)))
    assert [var.name for var in kernel.func.size_params] == ["n"]
    rng = np.random.default_rng(3)
    bias = rng.standard_normal(64, dtype=np.float32)
    for rows in (1, 5, 64, 128):
        x = rng.standard_normal((rows, 64), dtype=np.float32)
        out = np.full((rows, 64), np.nan, np.float32)
        kernel(x, bias, out)
        expected = np.maximum(x + bias, 0) * (1 / (1 + np.exp(-x)))
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_an_op_without_a_symbolic_relation_refuses_symbolic_dims_by_name() -> None:
    x = Var("x", _rows(64))
    with pytest.raises(TypeInferenceError, match=r"nn.softmax does not take symbolic dims yet"):
        infer_type(Function((x,), call("nn.softmax", x, axis=-1)))


def test_operands_whose_dims_differ_are_refused() -> None:
    x, y = Var("x", _rows(64)), Var("y", _rows(64, size=M))
    with pytest.raises(TypeInferenceError, match="dim 0 is n in one operand but m in another"):
        infer_type(Function((x, y), call("add", x, y)))
    z = Var("z", TensorType((128, 64), "float32"))
    with pytest.raises(TypeInferenceError, match="dim 0 is n in one operand but 128 in another"):
        infer_type(Function((x, z), call("add", x, z)))


def test_a_symbolic_type_must_fit_its_shape() -> None:
    with pytest.raises(TypeError, match="do not fit shape"):
        TensorType((128, 64), "float32", (N,))


def test_a_dense_layer_over_symbolic_rows_compiles_to_one_kernel() -> None:
    """[batch x sequence, 96] x [80, 96]^T with a bias and GELU-like epilogue, the rows
    symbolic: a transformer's projection, fused and compiled once."""
    x = Var("x", TensorType((4, 64, 96), "float32", (N, M, IntImm(96))))
    w = Var("w", TensorType((80, 96), "float32"))
    b = Var("b", TensorType((80,), "float32"))
    body = call("tanh", call("add", call("nn.dense", x, w), b))
    fn = infer_type(Function((x, w, b), body))
    assert str(fn.body.checked_type) == "Tensor[(n, m, 80), float32]"
    (prim,) = [
        node.op
        for node in post_order(fuse_ops(fn).body)
        if isinstance(node, Call) and isinstance(node.op, Function)
    ]
    kernel = compile_kernel(lower(default_schedule(function_to_te(prim), constant_inputs=())))
    rng = np.random.default_rng(5)
    weight = rng.standard_normal((80, 96), dtype=np.float32)
    bias = rng.standard_normal(80, dtype=np.float32)
    for batch, length in ((1, 1), (2, 17), (4, 64), (3, 5)):
        data = rng.standard_normal((batch, length, 96), dtype=np.float32)
        out = np.full((batch, length, 80), np.nan, np.float32)
        kernel(data, weight, bias, out)
        np.testing.assert_allclose(out, np.tanh(data @ weight.T + bias), rtol=1e-4, atol=1e-5)


def test_dense_refuses_a_symbolic_weight_or_reduction() -> None:
    x = Var("x", TensorType((128, 96), "float32", (N, IntImm(96))))
    w = Var("w", TensorType((80, 96), "float32", (M, IntImm(96))))
    with pytest.raises(TypeInferenceError, match="operand 1 is Tensor\\[\\(m, 96\\), float32\\]"):
        infer_type(Function((x, w), call("nn.dense", x, w)))
