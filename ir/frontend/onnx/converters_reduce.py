"""Converters for ONNX reductions (Reduce*), ArgMax / ArgMin and CumSum."""

from __future__ import annotations

from collections.abc import Callable

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext
from ir.graph.nodes import Expr

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


def reduction(build: Reducer, axes_input_since: int = AXES_INPUT_SINCE_OTHERS) -> Converter:
    """A Reduce* converter: reads axes, keepdims and noop_with_empty_axes, then `build`s.

    No axes reduce over every axis, unless noop_with_empty_axes makes the node an identity.
    """

    def convert(ctx: NodeContext) -> ConverterResult:
        data = ctx.input(0)
        axes = _reduction_axes(ctx, axes_input_since)
        if not axes:
            if ctx.int_attr("noop_with_empty_axes", 0):
                return data
            axes = None
        return build(ctx, data, axes, bool(ctx.int_attr("keepdims", 1)))

    return convert


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


def convert_cumsum(ctx: NodeContext) -> ConverterResult:
    """CumSum(x, axis) -> cumsum with the exclusive and reverse flags."""
    rank = len(ctx.shape(0))
    axis = int(ctx.static_scalar(1, "axis"))
    if not -rank <= axis < rank:
        raise ctx.error(f"axis {axis} is out of range for input shape {ctx.shape(0)}")
    return ctx.call(
        "cumsum",
        ctx.input(0),
        axis=axis % rank,
        exclusive=bool(ctx.int_attr("exclusive", 0)),
        reverse=bool(ctx.int_attr("reverse", 0)),
    )


CONVERTERS: dict[str, Converter] = {
    "ArgMax": arg_reduction("argmax"),
    "ArgMin": arg_reduction("argmin"),
    "CumSum": convert_cumsum,
    "ReduceL1": reduction(_l1),
    "ReduceL2": reduction(_l2),
    "ReduceLogSum": reduction(_log_sum),
    "ReduceLogSumExp": reduction(_log_sum_exp),
    "ReduceMax": reduction(simple("max")),
    "ReduceMean": reduction(simple("mean")),
    "ReduceMin": reduction(simple("min")),
    "ReduceProd": reduction(simple("prod")),
    "ReduceSum": reduction(simple("sum"), axes_input_since=AXES_INPUT_SINCE_SUM),
    "ReduceSumSquare": reduction(_sum_square),
}
