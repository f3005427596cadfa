"""FoldConstant: constant subgraphs, shape computations included, become constants."""

from __future__ import annotations

import numpy as np

from ir.graph.nodes import Call, Constant, Function, Tuple, TupleGetItem, Var, call, const
from ir.graph.passes.fold_constant import fold_constant
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.verify import verify
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate

X = Var("x", TensorType((2, 3, 4), "float32"))


def test_shape_computation_chain_folds_to_one_constant() -> None:
    # What a PyTorch export does for `x.view(x.size(0), -1)`: Shape -> Gather -> Unsqueeze
    # -> Concat, here ending in a reshape of the computed shape vector.
    dims = call("shape_of", X)
    batch = call("take", dims, const(0, "int64"))
    new_shape = call(
        "concatenate", call("expand_dims", batch, axes=(0,)), const([-1], "int64"), axis=0
    )
    as_column = call("reshape", new_shape, newshape=(2, 1))
    fn = infer_type(Function((X,), Tuple((call("nn.relu", X), as_column))))
    folded = fold_constant(fn)
    expected = Function((X,), Tuple((call("nn.relu", X), const([[2], [-1]], "int64"))))
    assert folded == expected
    verify(infer_type(folded))


def test_shape_of_a_computed_tensor_folds_without_computing_it() -> None:
    pooled = call("sum", call("exp", X), axis=(2,), keepdims=True)
    fn = infer_type(Function((X,), call("shape_of", pooled, dtype="int32")))
    folded = fold_constant(fn)
    assert folded.body == const([2, 3, 1], "int32")


def test_full_folds_and_its_arithmetic_with_it() -> None:
    ones = call("full", shape=(3, 4), fill_value=1.0, dtype="float32")
    twos = call("add", ones, ones)
    fn = infer_type(Function((X,), call("multiply", X, twos)))
    folded = fold_constant(fn)
    assert folded == Function((X,), call("multiply", X, const(np.full((3, 4), 2.0), "float32")))
    data = np.random.default_rng(0).normal(size=(2, 3, 4)).astype("float32")
    check_close(evaluate(folded, {"x": data}), evaluate(fn, {"x": data}))


def test_subgraphs_that_depend_on_inputs_are_kept() -> None:
    fn = infer_type(Function((X,), call("add", call("exp", X), call("exp", const(0.0, "float32")))))
    folded = fold_constant(fn)
    assert isinstance(folded.body, Call)
    lhs, rhs = folded.body.args
    assert isinstance(lhs, Call) and lhs.op == "exp"
    assert isinstance(rhs, Constant) and float(rhs.data) == 1.0


def test_constant_tuples_and_their_items_fold() -> None:
    parts = call("split", const(np.arange(12.0), "float32"), indices_or_sections=3)
    fn = infer_type(Function((X,), call("add", X, TupleGetItem(parts, 2))))
    folded = fold_constant(fn)
    assert folded == Function((X,), call("add", X, const([8.0, 9.0, 10.0, 11.0], "float32")))
