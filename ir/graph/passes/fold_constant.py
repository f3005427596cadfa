"""FoldConstant: evaluate every subgraph whose inputs are all constants (shapes included).

A `shape_of` of a statically typed tensor folds too, so the Shape -> Gather -> Concat ->
Reshape chains that PyTorch exports collapse into constants (of a symbolic tensor it stays:
its value is known at run time). An If on a constant condition becomes the branch it takes.
"""

from __future__ import annotations

import numpy as np

from ir.graph.attrs import has_dim_entries
from ir.graph.nodes import Call, Constant, Expr, Function, If, Tuple, TupleGetItem
from ir.graph.traversal import rewrite, rewrite_function, substitute
from ir.graph.types import TensorType


def _as_constant_expr(value: object) -> Expr:
    if isinstance(value, tuple):
        return Tuple(tuple(_as_constant_expr(item) for item in value))
    return Constant(np.asarray(value))


def _fold_node(node: Expr) -> Expr:
    if isinstance(node, TupleGetItem) and isinstance(node.tuple_value, Tuple):
        return node.tuple_value.fields[node.index]
    if isinstance(node, If) and isinstance(node.condition, Constant):
        taken = node.then_branch if bool(node.condition.data.reshape(-1)[0]) else node.else_branch
        return fold_expr(substitute(taken, node.args))
    if not isinstance(node, Call):
        return node
    if node.op == "shape_of" and node.args[0].has_type:
        data_type = node.args[0].checked_type
        if isinstance(data_type, TensorType) and not data_type.dims:
            dtype = str(node.attrs.get("dtype", "int64"))
            return Constant(np.asarray(data_type.shape, dtype=dtype))
    symbolic = has_dim_entries(node.attrs) or (
        node.has_type and isinstance(node.checked_type, TensorType) and node.checked_type.dims
    )
    if all(isinstance(arg, Constant) for arg in node.args) and not symbolic:
        from ir.reference import _evaluate_call

        args = [arg.data for arg in node.args if isinstance(arg, Constant)]
        return _as_constant_expr(_evaluate_call(node, args))
    return node


def fold_expr(expr: Expr) -> Expr:
    """Fold every constant subexpression of `expr`."""
    return rewrite(expr, _fold_node)


def fold_constant(fn: Function) -> Function:
    """Replace every constant subgraph of `fn` with its value."""
    return rewrite_function(fn, _fold_node)
