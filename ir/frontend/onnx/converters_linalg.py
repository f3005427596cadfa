"""ONNX Det on static shapes: Gaussian elimination with partial pivoting, one step per
column, written as graph ops on the batch of [..., M, M] matrices.

Step k picks the row with the largest magnitude in column k at or below row k (`argmax`),
swaps it with row k (a row gather by a per-matrix permutation), counts the swap in the
sign, multiplies the determinant by the pivot and subtracts multiples of row k from the
rows below. It computes in float64, as numpy's det does for float32, and rounds once; a
zero pivot (a singular matrix) leaves its column as it is and the determinant 0.
"""

from __future__ import annotations

import numpy as np

from ir.frontend.onnx.context import ConverterResult, NodeContext
from ir.graph.nodes import Constant, Expr

MAX_ORDER = 64  # one elimination step per column, each a handful of kernels


def _column(ctx: NodeContext, matrix: Expr, index: int, rank: int) -> Expr:
    """matrix[..., :, index] ([..., M])."""
    return ctx.call("take", matrix, Constant(np.array(index, np.int64)), axis=rank - 1)


def _row(ctx: NodeContext, matrix: Expr, index: int, rank: int) -> Expr:
    """matrix[..., index, :] ([..., M])."""
    return ctx.call("take", matrix, Constant(np.array(index, np.int64)), axis=rank - 2)


def convert_det(ctx: NodeContext) -> ConverterResult:
    """Det(X [..., M, M]) -> [...] (see the module docstring)."""
    shape = ctx.shape(0)
    dtype = ctx.dtype(0)
    rank = len(shape)
    if rank < 2 or shape[-1] != shape[-2]:
        raise ctx.error(f"Det needs square matrices [..., M, M], got shape {shape}")
    if not dtype.startswith("float"):
        raise ctx.error(f"Det needs float matrices, got {dtype}")
    order, batch = shape[-1], shape[:-2]
    if order > MAX_ORDER:
        raise ctx.unsupported(f"Det of {order}x{order} matrices (at most {MAX_ORDER})")
    matrix = ctx.call("cast", ctx.input(0), dtype="float64")
    determinant: Expr = Constant(np.ones(batch, np.float64))
    rows = np.arange(order, dtype=np.int64)
    for step in range(order):
        below = Constant(np.where(rows >= step, 0.0, -np.inf))  # rows above step never pivot
        candidates = ctx.call("add", ctx.call("abs", _column(ctx, matrix, step, rank)), below)
        pivot_row = ctx.call("argmax", candidates, axis=rank - 2, keepdims=True)  # [..., 1]
        at = Constant(rows)
        permutation = ctx.call(
            "where",
            ctx.call("equal", at, Constant(np.array(step, np.int64))),
            pivot_row,
            ctx.call("where", ctx.call("equal", at, pivot_row), Constant(np.array(step)), at),
        )  # [..., M]: step <-> pivot row
        gather = ctx.call(
            "broadcast_to",
            ctx.call("expand_dims", permutation, axes=(rank - 1,)),
            shape=tuple(shape),
        )
        matrix = ctx.call("gather_elements", matrix, gather, axis=rank - 2)
        swapped = ctx.call("equal", pivot_row, Constant(np.array(step, np.int64)))
        sign = ctx.call("where", swapped, Constant(np.array(1.0)), Constant(np.array(-1.0)))
        pivot = _column(ctx, _column(ctx, matrix, step, rank), step, rank - 1)  # [...]
        determinant = ctx.call(
            "multiply",
            determinant,
            ctx.call("multiply", pivot, ctx.call("reshape", sign, newshape=batch)),
        )
        if step + 1 == order:
            break
        zero = ctx.call("equal", pivot, Constant(np.array(0.0)))
        safe = ctx.call("where", zero, Constant(np.array(1.0)), pivot)
        factors = ctx.call(
            "divide",
            _column(ctx, matrix, step, rank),
            ctx.call("expand_dims", safe, axes=(rank - 2,)),
        )
        factors = ctx.call("multiply", factors, Constant((rows > step).astype(np.float64)))
        update = ctx.call(
            "multiply",
            ctx.call("expand_dims", factors, axes=(rank - 1,)),
            ctx.call("expand_dims", _row(ctx, matrix, step, rank), axes=(rank - 2,)),
        )
        matrix = ctx.call("subtract", matrix, update)
    return ctx.call("cast", determinant, dtype=dtype)


CONVERTERS = {"Det": convert_det}
