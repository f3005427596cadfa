"""DeadCodeElimination: tuple round-trips, identity ops and unread split parts disappear."""

from __future__ import annotations

import numpy as np
import pytest

from ir.graph.nodes import Call, Expr, Function, Tuple, TupleGetItem, Var, call, const
from ir.graph.passes.dead_code_elimination import dead_code_elimination
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.verify import verify
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate

X = Var("x", TensorType((2, 3, 4), "float32"))
HALVES = call("split", X, indices_or_sections=2, axis=2)
DATA = np.random.default_rng(0).normal(size=(2, 3, 4)).astype("float32")


def _optimize(body: Expr, *params: Var) -> tuple[Function, Function]:
    before = infer_type(Function(params or (X,), body))
    after = dead_code_elimination(before)
    verify(after)
    if not params:
        actual, expected = evaluate(after, {"x": DATA}), evaluate(before, {"x": DATA})
        for got, want in zip(_leaves(actual), _leaves(expected), strict=True):
            check_close(got, want)
    return before, after


def _leaves(value: object) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [np.asarray(value)]


def _ops(fn: Function) -> list[str]:
    return [node.op_name for node in post_order(fn.body) if isinstance(node, Call)]


def test_tuple_get_item_of_a_tuple_is_its_field() -> None:
    relu = call("nn.relu", X)
    _, after = _optimize(call("exp", TupleGetItem(Tuple((X, relu)), 1)))
    assert after == Function((X,), call("exp", call("nn.relu", X)))


@pytest.mark.parametrize(
    "identity",
    [
        call("reshape", X, newshape=(2, 3, 4)),
        call("reshape", X, newshape=(2, -1, 4)),
        call("flatten", call("reshape", X, newshape=(6, 4)), axis=1),
        call("squeeze", X),
        call("expand_dims", X, axes=()),
        call("transpose", X, axes=(0, 1, 2)),
        call("transpose", X, axes=(-3, -2, -1)),
        call("cast", X, dtype="float32"),
        call("broadcast_to", X, shape=(2, 3, 4)),
        call("broadcast_to", X, shape=(3, 1)),
        call("tile", X, repeats=(1, 1, 1)),
        call("strided_slice", X, begin=(0, 0), end=(2**31 - 1, 4), axes=(1, 2)),
        call("strided_slice", X, begin=(0,), end=(4,), strides=(1,), axes=(2,)),
        call("concatenate", X, axis=1),
        call("add_n", X),
    ],
    ids=lambda expr: f"{expr.op_name}{dict(expr.attrs)}",
)
def test_identity_ops_are_removed(identity: Call) -> None:
    _, after = _optimize(call("nn.relu", identity))
    assert "nn.relu" in _ops(after)
    if identity.op == "flatten":
        assert _ops(after) == ["reshape", "nn.relu"]  # only the flatten was the identity
    else:
        assert after == Function((X,), call("nn.relu", X))


@pytest.mark.parametrize(
    "not_identity",
    [
        call("reshape", X, newshape=(4, 3, 2)),
        call("transpose", X),
        call("transpose", X, axes=(0, 2, 1)),
        call("cast", X, dtype="float64"),
        call("strided_slice", X, begin=(-1,), end=(-(2**31),), strides=(-1,), axes=(2,)),
        call("strided_slice", X, begin=(1,), end=(3,), axes=(1,)),
        call("concatenate", X, X, axis=1),
        call("add_n", X, X),
    ],
    ids=lambda expr: f"{expr.op_name}{dict(expr.attrs)}",
)
def test_ops_that_change_values_are_kept(not_identity: Call) -> None:
    before, after = _optimize(call("exp", not_identity))
    assert after is before


def test_split_read_at_one_index_becomes_a_strided_slice() -> None:
    parts = call("split", X, indices_or_sections=(1, 3), axis=-2)
    body = call("add", TupleGetItem(parts, 1), call("nn.relu", TupleGetItem(parts, 1)))
    _, after = _optimize(body)
    part = call("strided_slice", X, begin=(1,), end=(3,), strides=(1,), axes=(1,))
    assert after == Function((X,), call("add", part, call("nn.relu", part)))
    assert isinstance(after.body, Call)
    assert after.body.args[0] is after.body.args[1].args[0]  # type: ignore[attr-defined]


def test_split_into_sections_read_at_its_last_part() -> None:
    parts = call("split", X, indices_or_sections=2, axis=2)
    _, after = _optimize(call("exp", TupleGetItem(parts, 1)))
    part = call("strided_slice", X, begin=(2,), end=(4,), strides=(1,), axes=(2,))
    assert after == Function((X,), call("exp", part))


def test_split_into_one_section_is_its_input() -> None:
    parts = call("split", X, indices_or_sections=1, axis=0)
    _, after = _optimize(call("exp", TupleGetItem(parts, 0)))
    assert after == Function((X,), call("exp", X))


def test_nested_splits_are_both_pruned() -> None:
    outer = call("split", X, indices_or_sections=2, axis=2)
    inner = call("split", TupleGetItem(outer, 0), indices_or_sections=2, axis=2)
    _, after = _optimize(call("exp", TupleGetItem(inner, 1)))
    half = call("strided_slice", X, begin=(0,), end=(2,), strides=(1,), axes=(2,))
    quarter = call("strided_slice", half, begin=(1,), end=(2,), strides=(1,), axes=(2,))
    assert after == Function((X,), call("exp", quarter))


@pytest.mark.parametrize(
    "body",
    [
        # Two fields read.
        call("add", TupleGetItem(HALVES, 0), TupleGetItem(HALVES, 1)),
        # The whole tuple is the result.
        call("split", X, indices_or_sections=3, axis=1),
        # The tuple is used as a tuple.
        Tuple((call("split", X, indices_or_sections=3, axis=1), X)),
    ],
)
def test_splits_with_more_than_one_used_field_are_kept(body: Expr) -> None:
    before, after = _optimize(body)
    assert after is before


def test_split_at_unusual_indices_is_left_to_the_op() -> None:
    parts = call("split", X, indices_or_sections=(3, 1), axis=1)
    before, after = _optimize(call("exp", TupleGetItem(parts, 2)))
    assert after is before


def test_parameters_are_kept_even_when_unused() -> None:
    unused = Var("unused", TensorType((5,), "float32"))
    before = infer_type(Function((X, unused), call("reshape", X, newshape=(2, 3, 4))))
    after = dead_code_elimination(before)
    assert after.params == (X, unused)
    assert after.body is X


def test_constant_operands_survive() -> None:
    body = call("add", call("cast", X, dtype="float32"), const(np.ones(4), "float32"))
    _, after = _optimize(body)
    assert after == Function((X,), call("add", X, const(np.ones(4), "float32")))
