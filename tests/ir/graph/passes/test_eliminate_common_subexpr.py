"""EliminateCommonSubexpr merges equal values and nothing else."""

from __future__ import annotations

import time

import numpy as np

from ir.graph.nodes import Call, Expr, Function, Tuple, TupleGetItem, Var, call, const
from ir.graph.passes.eliminate_common_subexpr import eliminate_common_subexpr
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.verify import verify
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate

X = Var("x", TensorType((2, 3), "float32"))


def _node_count(fn: Function) -> int:
    return len(post_order(fn.body))


def test_duplicate_calls_merge_transitively() -> None:
    first = call("exp", call("nn.relu", X))
    second = call("exp", call("nn.relu", X))  # equal structure, distinct objects
    fn = infer_type(Function((X,), call("add", first, second)))
    result = eliminate_common_subexpr(fn)
    assert isinstance(result.body, Call)
    lhs, rhs = result.body.args
    assert lhs is rhs
    assert _node_count(result) == 4  # x, relu, exp, add
    verify(result)


def test_calls_with_different_attributes_stay_apart() -> None:
    low = call("nn.leaky_relu", X, alpha=0.1)
    high = call("nn.leaky_relu", X, alpha=0.2)
    fn = Function((X,), call("add", low, high))
    result = eliminate_common_subexpr(fn)
    assert isinstance(result.body, Call)
    lhs, rhs = result.body.args
    assert lhs is not rhs
    assert _node_count(result) == 4


def test_calls_of_different_ops_or_arguments_stay_apart() -> None:
    y = Var("y", TensorType((2, 3), "float32"))
    fn = Function((X, y), Tuple((call("exp", X), call("exp", y), call("tanh", X))))
    result = eliminate_common_subexpr(fn)
    assert result is fn


def test_constants_merge_by_content_not_by_dtype_alone() -> None:
    fn = Function(
        (X,),
        Tuple(
            (
                call("add", X, const(np.ones((2, 3)), "float32")),
                call("multiply", X, const(np.ones((2, 3)), "float32")),
                call("cast", call("add", call("cast", X, dtype="float64"), const(1.0, "float64"))),
                call("add", X, const(1.0, "float32")),
            )
        ),
    )
    result = eliminate_common_subexpr(fn)
    assert isinstance(result.body, Tuple)
    add, mul, via_f64, scalar = result.body.fields
    assert isinstance(add, Call) and isinstance(mul, Call) and isinstance(scalar, Call)
    assert add.args[1] is mul.args[1]
    assert scalar.args[1] is not add.args[1]  # same value 1.0 but different shape
    assert isinstance(via_f64, Call)
    inner = via_f64.args[0]
    assert isinstance(inner, Call)
    assert inner.args[1] is not scalar.args[1]  # float64 and float32 scalars differ


def test_tuples_and_tuple_items_merge() -> None:
    relu = call("nn.relu", X)
    pair_a = Tuple((X, relu))
    pair_b = Tuple((X, call("nn.relu", X)))
    item_a = TupleGetItem(pair_a, 1)
    item_b = TupleGetItem(pair_b, 1)
    other = TupleGetItem(pair_b, 0)
    fn = infer_type(Function((X,), Tuple((item_a, item_b, other))))
    result = eliminate_common_subexpr(fn)
    assert isinstance(result.body, Tuple)
    first, second, third = result.body.fields
    assert first is second
    assert isinstance(first, TupleGetItem) and isinstance(third, TupleGetItem)
    assert first.tuple_value is third.tuple_value
    verify(result)


def test_result_equals_the_hand_built_shared_graph_and_computes_the_same() -> None:
    def branch() -> Expr:
        return call("sigmoid", call("add", X, const([1.0, 2.0, 3.0], "float32")))

    fn = infer_type(Function((X,), call("multiply", branch(), call("tanh", branch()))))
    shared = branch()
    expected = Function((X,), call("multiply", shared, call("tanh", shared)))
    result = eliminate_common_subexpr(fn)
    assert result == expected
    assert _node_count(result) == _node_count(expected) == 6
    data = np.random.default_rng(0).normal(size=(2, 3)).astype("float32")
    check_close(evaluate(result, {"x": data}), evaluate(fn, {"x": data}))


def test_long_duplicated_chains_are_linear_time() -> None:
    def chain(length: int) -> Expr:
        node: Expr = X
        for _ in range(length):
            node = call("nn.relu", node)
        return node

    fn = Function((X,), call("add", chain(4000), chain(4000)))
    start = time.perf_counter()
    result = eliminate_common_subexpr(fn)
    elapsed = time.perf_counter() - start
    assert _node_count(result) == 4002
    assert elapsed < 5.0
