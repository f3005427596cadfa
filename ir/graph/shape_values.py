"""The values of shape computations on symbolic tensors, as dim expressions.

An exported model computes a Reshape target or an Expand shape from `Shape` of its
inputs (Shape -> Gather -> Unsqueeze -> Concat, with some arithmetic). Where those inputs
have symbolic dims the computation does not fold to a constant, but its value is still
known at compile time as expressions of the size variables: `shape_value` gives them, so
that the op reading the value can take a symbolic target (Relax's shape expressions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ir.graph.nodes import Call, Constant, Expr
from ir.graph.types import TensorType
from ir.tir.arith import prove
from ir.tir.expr import IntImm, PrimExpr, eq, ne
from ir.tir.simplify import simplify
from ir.tir.visit import free_index_vars

ShapeValue = tuple[PrimExpr, ...]  # the elements of a 0-D or 1-D integer tensor

_ARITHMETIC: dict[str, Callable[[PrimExpr, PrimExpr], PrimExpr]] = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    # (an integer divide truncates; on sizes, which are positive, that is the floor)
    "divide": lambda a, b: a // b,
}
_COMPARISONS: dict[str, Callable[[PrimExpr, PrimExpr], PrimExpr]] = {
    "equal": eq,
    "not_equal": ne,
    "less": lambda a, b: a < b,
    "less_equal": lambda a, b: a <= b,
    "greater": lambda a, b: a > b,
    "greater_equal": lambda a, b: a >= b,
}
_SAME_ELEMENTS = frozenset({"expand_dims", "squeeze", "reshape", "cast"})


def shape_value(expr: Expr) -> ShapeValue | None:
    """The elements of `expr`, a 0-D or 1-D integer tensor computed from constants and the
    shapes of tensors (static or symbolic), as simplified int64 expressions; None where it
    depends on other run-time values or on an op this does not follow."""
    ty = expr.checked_type if expr.has_type else None
    if not isinstance(ty, TensorType) or ty.dims or len(ty.shape) > 1:
        return None
    if ty.dtype != "bool" and not np.issubdtype(np.dtype(ty.dtype), np.integer):
        # A float tensor only as a size cast to it (Range's limit in a float model).
        if isinstance(expr, Call) and expr.op == "cast":
            return shape_value(expr.args[0])
        return None
    if isinstance(expr, Constant):
        return tuple(IntImm(int(item), "int64") for item in expr.data.reshape(-1))
    if not isinstance(expr, Call) or not isinstance(expr.op, str):
        return None
    return _call_value(expr.op, expr)


def _call_value(op: str, call: Call) -> ShapeValue | None:
    args = call.args
    if op == "shape_of":
        data = args[0].checked_type
        if not isinstance(data, TensorType):
            return None
        return data.dims or tuple(IntImm(extent, "int64") for extent in data.shape)
    if op in _SAME_ELEMENTS:
        return shape_value(args[0])
    if op == "concatenate":
        parts = [shape_value(arg) for arg in args]
        if any(part is None for part in parts):
            return None
        return tuple(item for part in parts if part is not None for item in part)
    if op == "take":
        return _take(call)
    if op == "strided_slice":
        return _slice(call)
    if op in _ARITHMETIC or op in _COMPARISONS or op == "where":
        operands = [shape_value(arg) for arg in args]
        known = [operand for operand in operands if operand is not None]
        widths = {len(operand) for operand in known} - {1}
        if len(known) != len(operands) or len(widths) > 1:
            return None
        width = max(widths, default=1)
        rows = list(zip(*(_broadcast(operand, width) for operand in known), strict=True))
        if op in _ARITHMETIC:
            return tuple(simplify(_ARITHMETIC[op](*row)) for row in rows)
        if op in _COMPARISONS:
            truths = [_decide(_COMPARISONS[op](*row)) for row in rows]
            if any(truth is None for truth in truths):
                return None
            return tuple(IntImm(int(bool(truth)), "int64") for truth in truths)
        picked = [_decide(row[0]) for row in rows]
        if any(truth is None for truth in picked):
            return None
        return tuple(row[1] if truth else row[2] for truth, row in zip(picked, rows, strict=True))
    return None


def _broadcast(values: ShapeValue, width: int) -> ShapeValue:
    return values * width if len(values) == 1 else values


def _decide(condition: PrimExpr) -> bool | None:
    """The truth of a comparison of dim expressions, every size variable being >= 1."""
    if isinstance(condition, IntImm):
        return bool(condition.value)
    ranges = {var: (1, 2**62) for var in free_index_vars(condition)}
    return prove(condition, ranges)


def _take(call: Call) -> ShapeValue | None:
    data, indices = call.args
    values = shape_value(data)
    if values is None or not isinstance(indices, Constant) or int(call.attrs["axis"]) != 0:
        return None
    picked = []
    for index in indices.data.reshape(-1).tolist():
        if not -len(values) <= int(index) < len(values):
            return None
        picked.append(values[int(index)])
    return tuple(picked)


def _slice(call: Call) -> ShapeValue | None:
    values = shape_value(call.args[0])
    if values is None:
        return None
    axes = _ints(call.attrs.get("axes")) or (0,)
    begin, end = _ints(call.attrs["begin"]), _ints(call.attrs["end"])
    strides = _ints(call.attrs.get("strides")) or (1,)
    if axes != (0,) or len(begin) != 1 or len(end) != 1 or len(strides) != 1:
        return None
    return tuple(values[slice(begin[0], end[0], strides[0])])


def _ints(value: object) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, Sequence):
        return tuple(int(item) for item in value)
    return (int(str(value)),)
