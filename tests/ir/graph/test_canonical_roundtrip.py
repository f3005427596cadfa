"""`function_from_json` reads back what `canonical_json` writes.

Every fused function of two light models round-trips to a structurally equal function
(with positional parameter names, as workers receive workloads); hand-built graphs cover
what the models lack: tuples, non-finite attributes, inline constants, nested functions.
"""

from __future__ import annotations

import json
import math
from functools import cache

import numpy as np
import pytest

from ir.errors import IRError
from ir.frontend.onnx import from_onnx
from ir.graph.canonical import canonical_json, function_from_json, function_to_json
from ir.graph.nodes import Call, Constant, Expr, Function, Tuple, TupleGetItem, Var, call, const
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.pipeline import optimize
from ir.graph.traversal import post_order, rewrite
from ir.graph.types import TensorType
from ir.tir.expr import IntImm
from ir.tir.expr import Var as SizeVar
from tests.support.onnx_models import load_light_model


@cache
def _fused_functions(name: str) -> list[Function]:
    fn = optimize(from_onnx(load_light_model(name)))
    prims: dict[Function, None] = {}
    for node in post_order(fn.body):
        if isinstance(node, Call) and isinstance(node.op, Function):
            prims.setdefault(node.op, None)
    return list(prims)


def _positional(fn: Function) -> Function:
    """`fn` with its parameters renamed p0, p1, ..."""
    renamed = {
        id(param): Var(f"p{index}", param.type_annotation) for index, param in enumerate(fn.params)
    }

    def visit(node: Expr) -> Expr:
        return renamed.get(id(node), node)

    params = tuple(renamed[id(param)] for param in fn.params)
    return Function(params, rewrite(fn.body, visit), fn.attrs)


@pytest.mark.parametrize("name", ["light_squeezenet", "light_resnet50"])
def test_every_fused_function_round_trips(name: str) -> None:
    prims = _fused_functions(name)
    assert len(prims) > 5
    for prim in prims:
        text = canonical_json(prim, positional_params=True)
        rebuilt = function_from_json(text)
        assert rebuilt == _positional(prim), prim.attrs.get("name")
        assert canonical_json(rebuilt) == text
        assert rebuilt.checked_type == prim.checked_type
        # The plain-data form reads back the same as its text.
        assert function_from_json(function_to_json(prim, positional_params=True)) == rebuilt


def _small_graph() -> Function:
    """A typed, fused main function with tuples, an -inf attribute and inline constants."""
    x = Var("x", TensorType((2, 3)))
    y = Var("y", TensorType((2, 3)))
    bias = const(np.arange(3, dtype=np.float32))
    scale = const(np.float32(math.inf))
    clipped = call("clip", call("add", x, bias), a_min=-math.inf, a_max=6.0)
    pair = Tuple((clipped, call("multiply", y, scale)))
    body = call("subtract", TupleGetItem(pair, 0), TupleGetItem(pair, 1))
    fn = Function((x, y), Tuple((body, call("exp", body), call("cast", y, dtype="int32"))))
    return infer_type(fuse_ops(infer_type(fn)))


def test_hand_built_graph_with_nested_functions_round_trips() -> None:
    fn = _small_graph()
    assert any(isinstance(n, Call) and isinstance(n.op, Function) for n in post_order(fn.body))
    text = canonical_json(fn)
    rebuilt = function_from_json(text)
    assert rebuilt == fn
    assert canonical_json(rebuilt) == text
    clips = [n for n in _all_calls(rebuilt) if n.op == "clip"]
    assert clips and clips[0].attrs["a_min"] == -math.inf


def test_symbolic_dims_and_symbolic_attributes_round_trip() -> None:
    batch, seq = SizeVar("batch"), SizeVar("seq")
    x = Var("x", TensorType((4, 64, 32), "float32", (batch, seq, IntImm(32))))
    heads = call("reshape", x, newshape=(("batch", 4), ("seq", 64), 4, 8))
    fn = fuse_ops(infer_type(Function((x,), call("nn.relu", heads))))
    text = canonical_json(fn)
    rebuilt = function_from_json(text)
    assert rebuilt == fn and canonical_json(rebuilt) == text
    assert str(rebuilt.params[0].type_annotation) == "Tensor[(batch, seq, 32), float32]"


def _all_calls(fn: Function) -> list[Call]:
    calls: list[Call] = []
    for node in post_order(fn.body):
        if isinstance(node, Call):
            calls.append(node)
            if isinstance(node.op, Function):
                calls.extend(_all_calls(node.op))
    return calls


def test_nested_functions_stay_shared() -> None:
    x = Var("x", TensorType((4,)))
    fn = infer_type(fuse_ops(infer_type(Function((x,), call("exp", call("exp", x))))))
    rebuilt = function_from_json(canonical_json(fn))
    prims = [n.op for n in post_order(rebuilt.body) if isinstance(n, Call)]
    assert all(isinstance(p, Function) for p in prims)


def test_inline_constant_values_and_dtypes_come_back() -> None:
    values = np.array([[1.5, -0.0], [np.nan, -np.inf]], dtype=np.float16)
    x = Var("x", TensorType((2, 2), "float16"))
    fn = infer_type(Function((x,), call("add", x, Constant(values))))
    rebuilt = function_from_json(canonical_json(fn))
    constant = next(n for n in post_order(rebuilt.body) if isinstance(n, Constant))
    assert constant.data.dtype == np.float16
    np.testing.assert_array_equal(constant.data, values)
    assert rebuilt == fn


def test_large_constant_known_by_digest_only_is_refused() -> None:
    x = Var("x", TensorType((64,)))
    fn = infer_type(Function((x,), call("add", x, const(np.ones(64, np.float32)))))
    with pytest.raises(IRError, match="digest"):
        function_from_json(canonical_json(fn))


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda data: data.update(format="other/9"), "unknown function format"),
        (lambda data: data["nodes"][0].update(kind="lambda"), "unknown node kind"),
        (lambda data: data["nodes"][0].update(op="no.such_op"), "no.such_op"),
        (lambda data: data.update(output={"node": 7}), "not an earlier node"),
        (lambda data: data["params"][0].pop("type"), "malformed function JSON"),
    ],
)
def test_malformed_json_raises_ir_error(mutate: object, message: str) -> None:
    x = Var("x", TensorType((4,)))
    data = function_to_json(infer_type(Function((x,), call("exp", x))))
    assert callable(mutate)
    mutate(data)
    with pytest.raises(IRError, match=message):
        function_from_json(json.dumps(data))


def test_not_json_raises_ir_error() -> None:
    with pytest.raises(IRError, match="not valid JSON"):
        function_from_json("{nope")
