"""NarrowSizes retypes a symbolic function for smaller size-variable ranges: parameter
and attribute bounds recomputed, dims kept, the body's types inferred again."""

from __future__ import annotations

from ir.graph.nodes import Call, Function, Var, call
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.narrow_sizes import narrow_sizes
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.tir.expr import IntImm
from ir.tir.expr import Var as SizeVar
from ir.tir.printer import format_expr

BATCH, SEQ = SizeVar("batch"), SizeVar("seq")


def _heads() -> Function:
    """[batch, seq, 16] split into 4 heads of 4 (a reshape to a symbolic target), then a
    softmax over each head, flattened to [(batch * seq), 16]."""
    x = Var("x", TensorType((4, 384, 16), "float32", (BATCH, SEQ, IntImm(16))))
    heads = call("reshape", x, newshape=(("batch", 4), ("seq", 384), 4, 4))
    flat = call("reshape", call("nn.softmax", heads, axis=-1), newshape=(-1, 16))
    return infer_type(Function((x,), flat))


def test_narrowed_parameters_and_attribute_entries_take_the_smaller_bounds() -> None:
    narrowed = narrow_sizes(_heads(), {"batch": 4, "seq": 32})
    (x,) = narrowed.params
    assert x.type_annotation == TensorType((4, 32, 16), "float32", (BATCH, SEQ, IntImm(16)))
    reshapes = [
        node
        for node in post_order(narrowed.body)
        if isinstance(node, Call) and node.op == "reshape"
    ]
    assert reshapes[0].attrs["newshape"] == (("batch", 4), ("seq", 32), 4, 4)
    result = narrowed.body.checked_type
    assert isinstance(result, TensorType) and result.shape == (128, 16)
    assert [format_expr(dim) for dim in result.dims] == ["(batch * seq)", "16"]


def test_a_size_variable_left_out_keeps_the_bounds_it_gives() -> None:
    narrowed = narrow_sizes(_heads(), {"seq": 8})
    (x,) = narrowed.params
    assert x.type_annotation.shape == (4, 8, 16)  # type: ignore[union-attr]
    result = narrowed.body.checked_type
    assert isinstance(result, TensorType) and result.shape == (32, 16)  # batch still 4 at most
