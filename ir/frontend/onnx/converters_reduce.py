"""Converters for ONNX reductions (Reduce*), ArgMax / ArgMin, CumSum and TopK."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext
from ir.graph.nodes import Constant, Expr

# Opset from which each reduction takes `axes` as an input instead of an attribute.
AXES_INPUT_SINCE_SUM = 13
AXES_INPUT_SINCE_OTHERS = 18

Reducer = Callable[[NodeContext, Expr, tuple[int, ...] | None, bool], Expr]


def _reduction_axes(ctx: NodeContext, since: int) -> tuple[int, ...] | None:
    if ctx.opset < since:
        return ctx.ints_attr("axes")
    if ctx.optional_input(1) is None:
        return None
    return ctx.static_ints(1, "axes")


def reduction(
    build: Reducer, empty_set: str, axes_input_since: int = AXES_INPUT_SINCE_OTHERS
) -> Converter:
    """A Reduce* converter: reads axes, keepdims and noop_with_empty_axes, then `build`s.

    No axes reduce over every axis, unless noop_with_empty_axes makes the node an identity.
    An input with no elements gives a constant: the reduction of the empty set,
    `empty_set` (see `empty_set_value`), in the output's shape.
    """

    def convert(ctx: NodeContext) -> ConverterResult:
        data = ctx.input(0)
        axes = _reduction_axes(ctx, axes_input_since)
        if not axes:
            if ctx.int_attr("noop_with_empty_axes", 0):
                return data
            axes = None
        keepdims = bool(ctx.int_attr("keepdims", 1))
        shape = ctx.shape(0)
        if 0 in shape:
            reduced = range(len(shape)) if axes is None else [ctx.axis(a, len(shape)) for a in axes]
            out_shape = [
                1 if axis in reduced else size
                for axis, size in enumerate(shape)
                if keepdims or axis not in reduced
            ]
            dtype = np.dtype(ctx.dtype(0))
            return Constant(np.full(out_shape, empty_set_value(empty_set, dtype), dtype))
        return build(ctx, data, axes, keepdims)

    return convert


def empty_set_value(kind: str, dtype: np.dtype) -> float | int | bool:
    """What ONNX defines a reduction of no elements to be, in `dtype`: "zero", "one",
    "nan" (a mean), "lowest" (a max: -inf, or the type's minimum) or "highest" (a min)."""
    if kind in ("zero", "one", "nan"):
        return {"zero": 0, "one": 1, "nan": float("nan")}[kind]
    high = kind == "highest"
    if dtype.kind == "f":
        return float("inf") if high else float("-inf")
    if dtype.kind == "b":
        return high
    info = np.iinfo(dtype)
    return int(info.max if high else info.min)


def simple(op: str) -> Reducer:
    """A reduction that is one graph IR op."""

    def build(ctx: NodeContext, data: Expr, axes: tuple[int, ...] | None, keepdims: bool) -> Expr:
        return ctx.call(op, data, axis=axes, keepdims=keepdims)

    return build


def _sum_square(ctx: NodeContext, data: Expr, axes: tuple[int, ...] | None, keep: bool) -> Expr:
    return ctx.call("sum", ctx.call("multiply", data, data), axis=axes, keepdims=keep)


def _l1(ctx: NodeContext, data: Expr, axes: tuple[int, ...] | None, keep: bool) -> Expr:
    return ctx.call("sum", ctx.call("abs", data), axis=axes, keepdims=keep)


def _l2(ctx: NodeContext, data: Expr, axes: tuple[int, ...] | None, keep: bool) -> Expr:
    return ctx.call("sqrt", _sum_square(ctx, data, axes, keep))


def _log_sum(ctx: NodeContext, data: Expr, axes: tuple[int, ...] | None, keep: bool) -> Expr:
    return ctx.call("log", ctx.call("sum", data, axis=axes, keepdims=keep))


def _log_sum_exp(ctx: NodeContext, data: Expr, axes: tuple[int, ...] | None, keep: bool) -> Expr:
    # Subtract the max first so that exp cannot overflow.
    peak = ctx.call("max", data, axis=axes, keepdims=True)
    shifted = ctx.call("exp", ctx.call("subtract", data, peak))
    total = ctx.call("sum", shifted, axis=axes, keepdims=True)
    out = ctx.call("add", ctx.call("log", total), peak)
    return out if keep else ctx.call("squeeze", out, axis=axes)


def arg_reduction(op: str) -> Converter:
    """ArgMax / ArgMin(axis=0, keepdims=1, select_last_index=0)."""

    def convert(ctx: NodeContext) -> ConverterResult:
        return ctx.call(
            op,
            ctx.input(0),
            axis=ctx.int_attr("axis", 0),
            keepdims=bool(ctx.int_attr("keepdims", 1)),
            select_last_index=bool(ctx.int_attr("select_last_index", 0)),
        )

    return convert


def cumulative(op: str) -> Converter:
    """CumSum / CumProd (x, axis) -> cumsum / cumprod with the exclusive and reverse flags."""

    def convert(ctx: NodeContext) -> ConverterResult:
        axis = ctx.axis(int(ctx.static_scalar(1, "axis")), ctx.rank(0))
        return ctx.call(
            op,
            ctx.input(0),
            axis=axis,
            exclusive=bool(ctx.int_attr("exclusive", 0)),
            reverse=bool(ctx.int_attr("reverse", 0)),
        )

    convert.__doc__ = f"ONNX -> {op}"
    return convert


def convert_top_k(ctx: NodeContext) -> ConverterResult:
    """TopK(x, k) -> (values, indices) of the k largest (or smallest) along the axis, sorted.

    Each element's rank is the number of elements that beat it (ties go to the lower
    index, as ONNX Runtime orders them); output j gathers the element of rank j. Both
    steps compare every pair along the axis, so the work grows with its length squared.
    """
    shape = ctx.shape(0)
    rank = len(shape)
    axis = ctx.axis(ctx.int_attr("axis", -1), rank)
    k = int(ctx.static_scalar(1, "k")) if ctx.opset >= 10 else ctx.int_attr("k", 0)
    length = shape[axis]
    if not 0 <= k <= length:
        raise ctx.error(f"k={k} must be in [0, {length}] for axis {axis} of shape {shape}")
    if k == 0:
        raise ctx.unsupported("k=0 (empty outputs)")
    data = ctx.input(0)
    if axis != rank - 1:
        order = (*range(axis), *range(axis + 1, rank), axis)
        data = ctx.call("transpose", data, axes=order)
    mine = ctx.call("expand_dims", data, axes=(rank,))  # (..., n_i, 1)
    theirs = ctx.call("expand_dims", data, axes=(rank - 1,))  # (..., 1, n_m)
    beats = ctx.call("greater" if ctx.int_attr("largest", 1) else "less", theirs, mine)
    earlier = np.arange(length)[None, :] < np.arange(length)[:, None]  # [i, m]: m < i
    tie = ctx.call("logical_and", ctx.call("equal", theirs, mine), Constant(earlier))
    above = ctx.call("cast", ctx.call("logical_or", beats, tie), dtype="int64")
    ranks = ctx.call("sum", above, axis=(rank,), keepdims=False)  # (..., n)
    wanted = np.arange(k, dtype=np.int64).reshape(k, 1)
    chosen = ctx.call("equal", ctx.call("expand_dims", ranks, axes=(rank - 1,)), Constant(wanted))
    zero = ctx.scalar(0, ctx.dtype(0))
    values = ctx.call("sum", ctx.call("where", chosen, theirs, zero), axis=(rank,), keepdims=False)
    positions = Constant(np.arange(length, dtype=np.int64))
    indices = ctx.call(
        "sum",
        ctx.call("where", chosen, positions, ctx.scalar(0, "int64")),
        axis=(rank,),
        keepdims=False,
    )
    if axis != rank - 1:
        back = (*range(axis), rank - 1, *range(axis, rank - 1))
        values = ctx.call("transpose", values, axes=back)
        indices = ctx.call("transpose", indices, axes=back)
    return [values, indices]


CONVERTERS: dict[str, Converter] = {
    "ArgMax": arg_reduction("argmax"),
    "ArgMin": arg_reduction("argmin"),
    "CumSum": cumulative("cumsum"),
    "CumProd": cumulative("cumprod"),
    "ReduceL1": reduction(_l1, "zero"),
    "ReduceL2": reduction(_l2, "zero"),
    "ReduceLogSum": reduction(_log_sum, "lowest"),
    "ReduceLogSumExp": reduction(_log_sum_exp, "lowest"),
    "ReduceMax": reduction(simple("max"), "lowest"),
    "ReduceMean": reduction(simple("mean"), "nan"),
    "ReduceMin": reduction(simple("min"), "highest"),
    "ReduceProd": reduction(simple("prod"), "one"),
    "ReduceSum": reduction(simple("sum"), "zero", axes_input_since=AXES_INPUT_SINCE_SUM),
    "ReduceSumSquare": reduction(_sum_square, "zero"),
    "TopK": convert_top_k,
}
