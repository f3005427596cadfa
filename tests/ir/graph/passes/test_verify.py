"""The verifier accepts well-formed graphs and names each kind of broken invariant."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ir.errors import IRError
from ir.graph.attrs import Attrs
from ir.graph.nodes import Call, Function, Tuple, TupleGetItem, Var, call, const
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.verify import verify
from ir.graph.types import TensorType

F32_2X3 = TensorType((2, 3), "float32")


def _x() -> Var:
    return Var("x", F32_2X3)


def _primitive(body_op: str = "nn.relu") -> Function:
    param = Var("p0", F32_2X3)
    return Function(
        (param,), call(body_op, param), attrs=Attrs({"primitive": True, "name": "fused"})
    )


def test_accepts_a_typed_graph_with_tuples_and_primitive_calls() -> None:
    x = _x()
    fused = Call(_primitive(), (x,))
    pair = Tuple((fused, call("exp", x)))
    fn = infer_type(Function((x,), call("add", TupleGetItem(pair, 0), TupleGetItem(pair, 1))))
    verify(fn)


def test_untyped_graph_passes_only_without_require_types() -> None:
    x = _x()
    fn = Function((x,), call("nn.relu", call("exp", x)))
    verify(fn, require_types=False)
    with pytest.raises(IRError, match="no type"):
        verify(fn)


def test_unbound_variable() -> None:
    x, y = _x(), Var("y", F32_2X3)
    fn = Function((x,), call("add", x, y))
    with pytest.raises(IRError, match=r"%y is not a parameter"):
        verify(fn, require_types=False)


def test_variable_used_with_another_type_than_its_parameter() -> None:
    x = _x()
    other_x = Var("x", TensorType((3,), "float32"))
    fn = Function((x,), call("add", x, other_x))
    with pytest.raises(IRError, match=r"%x is used with type"):
        verify(fn, require_types=False)


def test_duplicate_parameter_names() -> None:
    x = _x()
    fn = Function((x, Var("x", TensorType((3,)))), call("nn.relu", x))
    with pytest.raises(IRError, match="duplicate parameter name %x"):
        verify(fn, require_types=False)


def test_wrong_arity() -> None:
    x = _x()
    fn = Function((x,), Call("nn.relu", (x, x)))
    with pytest.raises(IRError, match=r"takes 1 input\(s\), got 2"):
        verify(fn, require_types=False)


def test_unknown_attribute() -> None:
    x = _x()
    fn = Function((x,), Call("nn.relu", (x,), Attrs({"alpha": 0.1})))
    with pytest.raises(IRError, match=r"unknown attribute\(s\) \['alpha'\]"):
        verify(fn, require_types=False)


def test_missing_attribute() -> None:
    x = _x()
    fn = Function((x,), Call("clip", (x,), Attrs({"a_min": 0.0})))
    with pytest.raises(IRError, match=r"missing attribute\(s\) \['a_max'\]"):
        verify(fn, require_types=False)


def test_unknown_op() -> None:
    x = _x()
    fn = Function((x,), Call("nn.frobnicate", (x,)))
    with pytest.raises(IRError, match=r"unknown op 'nn\.frobnicate'"):
        verify(fn, require_types=False)


def test_stale_type() -> None:
    x = _x()
    fn = infer_type(Function((x,), call("exp", call("nn.relu", x))))
    assert isinstance(fn.body, Call)
    stale = replace(fn.body, ty=TensorType((2, 3), "float64"))
    with pytest.raises(IRError, match="stale type"):
        verify(replace(fn, body=stale))


def test_stale_tuple_item_type() -> None:
    x = _x()
    fn = infer_type(Function((x,), TupleGetItem(Tuple((x, call("exp", x))), 1)))
    assert isinstance(fn.body, TupleGetItem)
    stale = replace(fn.body, ty=TensorType((3,), "float32"))
    with pytest.raises(IRError, match="stale type of tuple item 1"):
        verify(replace(fn, body=stale))


def test_type_relation_rejecting_arguments() -> None:
    x = _x()
    bad = Call("add", (x, const([1.0, 2.0], "float32")), ty=F32_2X3)
    with pytest.raises(IRError, match="type relation rejects the arguments"):
        verify(Function((x,), bad))


def test_tuple_index_out_of_range() -> None:
    x = _x()
    fn = Function((x,), TupleGetItem(Tuple((x, x)), 2))
    with pytest.raises(IRError, match="tuple index 2 out of range"):
        verify(fn, require_types=False)


def test_primitive_call_with_wrong_arity() -> None:
    x = _x()
    fn = Function((x,), Call(_primitive(), (x, x)))
    with pytest.raises(IRError, match=r"takes 1 argument\(s\), got 2"):
        verify(fn, require_types=False)


def test_call_of_a_function_not_marked_primitive() -> None:
    x = _x()
    param = Var("p0", F32_2X3)
    fn = Function((x,), Call(Function((param,), call("exp", param)), (x,)))
    with pytest.raises(IRError, match="not marked primitive"):
        verify(fn, require_types=False)


def test_nested_primitive_function() -> None:
    x = _x()
    param = Var("p0", F32_2X3)
    outer = Function((param,), Call(_primitive(), (param,)), attrs=Attrs({"primitive": True}))
    fn = Function((x,), Call(outer, (x,)))
    with pytest.raises(IRError, match="primitive function calls another primitive function"):
        verify(fn, require_types=False)


def test_primitive_function_using_an_outer_variable() -> None:
    x = _x()
    param = Var("p0", F32_2X3)
    leaky = Function(
        (param,), call("add", param, x), attrs=Attrs({"primitive": True, "name": "leaky"})
    )
    fn = Function((x,), Call(leaky, (x,)))
    with pytest.raises(IRError, match=r"primitive function leaky: variable %x is not a parameter"):
        verify(fn, require_types=False)


def test_function_used_as_a_value() -> None:
    x = _x()
    fn = Function((x,), Tuple((x, _primitive())))
    with pytest.raises(IRError, match="functions may only be called"):
        verify(fn, require_types=False)
