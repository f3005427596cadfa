"""Scalar expression nodes: structural equality and hashing of every kind, dtypes, and
immutability (compiled or not: see ir/native.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from ir.te.tensor import placeholder
from ir.tir.expr import (
    Binary,
    Buffer,
    Call,
    Cast,
    Compare,
    FloatImm,
    IntImm,
    IterVar,
    Load,
    Logical,
    PrimExpr,
    Reduce,
    Select,
    TensorRead,
    Var,
)

TENSOR = placeholder((4, 4), "float32", "A")
BUFFER = Buffer("B", (16,), "float16")


def _x(name: str = "x") -> Var:
    return Var(name)


# Each kind built twice from fresh parts, and a variant differing in one field.
NODES: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
    "IntImm": (lambda: IntImm(3), lambda: IntImm(3, "int32")),
    "FloatImm": (lambda: FloatImm(1.5), lambda: FloatImm(2.5)),
    "Var": (lambda: _x(), lambda: _x("y")),
    "Binary": (lambda: Binary("add", _x(), IntImm(1)), lambda: Binary("sub", _x(), IntImm(1))),
    "Compare": (lambda: Compare("lt", _x(), IntImm(1)), lambda: Compare("lt", IntImm(1), _x())),
    "Logical": (
        lambda: Logical("and", Compare("lt", _x(), IntImm(1)), Compare("gt", _x(), IntImm(0))),
        lambda: Logical("or", Compare("lt", _x(), IntImm(1)), Compare("gt", _x(), IntImm(0))),
    ),
    "Select": (
        lambda: Select(Compare("lt", _x(), IntImm(1)), FloatImm(1.0), FloatImm(2.0)),
        lambda: Select(Compare("lt", _x(), IntImm(1)), FloatImm(1.0), FloatImm(3.0)),
    ),
    "Cast": (lambda: Cast("float32", _x()), lambda: Cast("float64", _x())),
    "Call": (lambda: Call("exp", (FloatImm(1.0),)), lambda: Call("log", (FloatImm(1.0),))),
    "TensorRead": (
        lambda: TensorRead(TENSOR, (_x(), IntImm(0))),
        lambda: TensorRead(TENSOR, (_x(), IntImm(1))),
    ),
    "Reduce": (
        lambda: Reduce("sum", FloatImm(1.0), (IterVar(_x("k"), 4, "reduce"),)),
        lambda: Reduce("max", FloatImm(1.0), (IterVar(_x("k"), 4, "reduce"),)),
    ),
    "Load": (lambda: Load(BUFFER, _x()), lambda: Load(BUFFER, IntImm(0))),
    "IterVar": (lambda: IterVar(_x("k"), 4, "reduce"), lambda: IterVar(_x("k"), 5, "reduce")),
    "Buffer": (lambda: Buffer("B", (16,)), lambda: Buffer("B", (17,))),
}


@pytest.mark.parametrize("kind", NODES)
def test_nodes_are_equal_and_hash_alike_by_structure(kind: str) -> None:
    make, make_other = NODES[kind]
    node, same, other = make(), make(), make_other()
    assert node is not same
    assert node == same and not (node != same)  # noqa: SIM202 (both operators)
    assert hash(node) == hash(same) and hash(node) == hash(node)
    assert node != other and not (node == other)  # noqa: SIM201 (both operators)
    assert {node: 1}[same] == 1 and other not in {node: 1}
    assert node != 3 and node != "x"


def test_nodes_of_other_kinds_with_the_same_fields_differ() -> None:
    assert Compare("lt", _x(), IntImm(1)) != Binary("lt", _x(), IntImm(1))  # type: ignore[comparison-overlap]
    assert IntImm(1) != FloatImm(1.0)  # type: ignore[comparison-overlap]


def test_every_node_has_its_dtype() -> None:
    condition = Compare("lt", _x(), IntImm(1))
    assert condition.dtype == "bool"
    assert Select(condition, FloatImm(1.0, "float64"), FloatImm(2.0, "float64")).dtype == "float64"
    assert TensorRead(TENSOR, (_x(), IntImm(0))).dtype == "float32"
    assert Reduce("sum", Cast("float16", _x()), ()).dtype == "float16"
    assert Load(BUFFER, _x()).dtype == "float16"
    assert Binary("add", _x(), IntImm(1)).dtype == "int64"
    # a replaced field is seen in the dtype too
    select = Select(condition, FloatImm(1.0), FloatImm(2.0))
    narrowed = dataclasses.replace(
        select, true_value=Cast("float16", _x()), false_value=Cast("float16", _x())
    )
    assert narrowed.dtype == "float16"


@pytest.mark.parametrize("kind", NODES)
def test_nodes_are_immutable(kind: str) -> None:
    node = NODES[kind][0]()
    field = dataclasses.fields(node)[0].name  # type: ignore[arg-type]
    with pytest.raises((dataclasses.FrozenInstanceError, AttributeError, TypeError)):
        setattr(node, field, None)


def test_arithmetic_on_nodes_builds_nodes() -> None:
    x = _x()
    built: PrimExpr = (x + 1) * 2 - x
    assert isinstance(built, Binary) and built.op == "sub"
    assert str(built) == "(((x + 1) * 2) - x)"
