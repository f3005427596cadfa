"""Graph IR nodes: immutability, structural equality and hashing, types."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ir.errors import IRError
from ir.graph.attrs import Attrs
from ir.graph.nodes import Call, Constant, Function, Tuple, TupleGetItem, Var, call, const
from ir.graph.passes.infer_type import infer_type
from ir.graph.types import FuncType, TensorType, TupleType


def _block(name: str = "x") -> Function:
    x = Var(name, TensorType((1, 4)))
    hidden = call("nn.relu", call("add", x, const(np.ones((1, 4), np.float32))))
    return Function((x,), Tuple((hidden, call("exp", hidden))))


def test_nodes_are_immutable() -> None:
    x = Var("x", TensorType((2,)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.name = "y"  # type: ignore[misc]
    data = np.zeros(3, np.float32)
    constant = Constant(data)
    data[0] = 1.0  # the node holds its own copy
    assert constant.data[0] == 0.0
    with pytest.raises(ValueError):
        constant.data[0] = 2.0


def test_structural_equality_and_hash_of_independently_built_graphs() -> None:
    first, second = _block(), _block()
    assert first is not second
    assert first == second
    assert hash(first) == hash(second)
    assert first != _block("y")
    assert {first: 1}[second] == 1


def test_equality_distinguishes_attrs_constants_and_indices() -> None:
    x = Var("x", TensorType((1, 4)))
    assert call("nn.leaky_relu", x, alpha=0.1) != call("nn.leaky_relu", x, alpha=0.2)
    assert const([1.0, 2.0]) != const([1.0, 3.0])
    assert const([1.0, 2.0], dtype="float32") != const([1.0, 2.0], dtype="float64")
    pair = Tuple((x, x))
    assert TupleGetItem(pair, 0) != TupleGetItem(pair, 1)


def test_deep_and_wide_dags_hash_and_compare_in_linear_time() -> None:
    # A densely connected chain: the unfolded tree would be exponential in size.
    x = Var("x", TensorType((4,)))
    values = [x]
    for _ in range(2000):
        values.append(call("add", values[-1], values[max(0, len(values) - 2)]))
    first = Function((x,), values[-1])
    values2 = [Var("x", TensorType((4,)))]
    for _ in range(2000):
        values2.append(call("add", values2[-1], values2[max(0, len(values2) - 2)]))
    second = Function((values2[0],), values2[-1])
    assert first == second
    typed = infer_type(first)
    assert typed.body.checked_type == TensorType((4,))


def test_call_builder_validates_and_defaults_attributes() -> None:
    x = Var("x", TensorType((1, 4)))
    assert call("nn.leaky_relu", x).attrs == Attrs({"alpha": 0.01})
    with pytest.raises(IRError, match="no attribute"):
        call("nn.relu", x, alpha=1.0)
    with pytest.raises(IRError, match=r"unknown op 'nn\.nope'"):
        call("nn.nope", x)


def test_infer_type_annotates_every_node() -> None:
    fn = infer_type(_block())
    assert fn.checked_type == FuncType(
        (TensorType((1, 4)),), TupleType((TensorType((1, 4)), TensorType((1, 4))))
    )
    assert isinstance(fn.body, Tuple)
    for field in fn.body.fields:
        assert isinstance(field, Call) and field.ty == TensorType((1, 4))


def test_types_normalise_and_reject_bad_values() -> None:
    assert TensorType((np.int64(2), 3), np.float32).shape == (2, 3)  # type: ignore[arg-type]
    assert TensorType((2,), "float32").nbytes == 8
    with pytest.raises(TypeError):
        TensorType((2,), "complex64")
    with pytest.raises(TypeError):
        TensorType((-1,))
