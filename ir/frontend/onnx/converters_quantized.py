"""Converters for ONNX's quantized operators (QOperator form): MatMulInteger and
ConvInteger (int32 results), QLinearMatMul and QLinearConv (requantized to 8 bits).

Each input has its zero point taken off in int32, the product accumulates in int32 (exact
for 8-bit inputs), and a QLinear op requantizes as ONNX Runtime does. A 2-D conv by a
constant int8 weight with zero points 0 runs on the dot-product kernel instead
(qnn.conv2d: the raw 8-bit data padded with its zero point, that point's share taken off
per channel; RealizeQuantized's form). Requantizing: the accumulator
times (input scale * weight scale / output scale) in float32, rounded half to even, plus
the output zero point, saturated to the output type.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext
from ir.frontend.onnx.converters_math import QUANTIZED_RANGES, check_scale
from ir.frontend.onnx.converters_nn import conv_window, convert_conv
from ir.graph.nodes import Constant, Expr
from ir.graph.passes.realize_quantized import dot_product_conv, dot_product_dense
from ir.graph.types import TensorType

I32 = "int32"
F32 = "float32"


def _as_axis(ctx: NodeContext, value: Expr, index: int, axis: int, rank: int) -> Expr:
    """A scalar (or one-value) quantization parameter as it is; a vector shaped to
    broadcast along `axis` of a rank-`rank` tensor."""
    shape = ctx.shape(index)
    if int(np.prod(shape)) == 1:
        return ctx.call("reshape", value, newshape=())
    if len(shape) != 1:
        raise ctx.unsupported(f"input {index}: a quantization parameter of shape {shape}")
    return ctx.call("reshape", value, newshape=(shape[0], *(1,) * (rank - axis - 1)))


def _centered(ctx: NodeContext, index: int, zero_index: int, axis: int) -> Expr:
    """Input `index` in int32 minus its zero point (input `zero_index`, if given)."""
    value = ctx.call("cast", ctx.input(index), dtype=I32)
    zero = ctx.optional_input(zero_index)
    if zero is None:
        return value
    rank = ctx.rank(index)
    zero = _as_axis(ctx, ctx.call("cast", zero, dtype=I32), zero_index, axis, rank)
    return ctx.call("subtract", value, zero)


def _requantize(
    ctx: NodeContext, total: Expr, scales: tuple[int, int, int], zero_index: int, axis: int
) -> Expr:
    """The int32 `total` requantized: times input scale * weight scale / output scale
    (inputs `scales`; the weight's may be per output channel, along `axis`), rounded,
    plus the output zero point, saturated to its type."""
    rank = len(_shape(total))
    factors = [
        _as_axis(ctx, ctx.call("cast", ctx.input(index), dtype=F32), index, axis, rank)
        for index in scales
    ]
    multiplier = ctx.call("divide", ctx.call("multiply", factors[0], factors[1]), factors[2])
    scaled = ctx.call("multiply", ctx.call("cast", total, dtype=F32), multiplier)
    value = ctx.call("round", scaled)
    out_dtype = ctx.dtype(zero_index) if ctx.optional_input(zero_index) is not None else "uint8"
    if out_dtype not in ("int8", "uint8"):
        raise ctx.unsupported(f"a {out_dtype} output zero point; supported: int8, uint8")
    zero = ctx.optional_input(zero_index)
    if zero is not None:
        value = ctx.call("add", value, ctx.call("cast", zero, dtype=F32))
    low, high = QUANTIZED_RANGES[out_dtype]
    return ctx.call("cast", ctx.call("clip", value, a_min=low, a_max=high), dtype=out_dtype)


def convert_matmul_integer(ctx: NodeContext) -> ConverterResult:
    """MatMulInteger(A, B, a_zero_point, b_zero_point) -> int32 matmul of the centered
    inputs (A's zero point per row, B's per column): the dot-product kernel where it
    applies."""
    total = _dot_product_matmul(ctx, 0, 2, 1, 3)
    if total is not None:
        return total
    rows_axis = ctx.rank(0) - 2
    a = _centered(ctx, 0, 2, max(rows_axis, 0))
    b = _centered(ctx, 1, 3, ctx.rank(1) - 1)
    return ctx.call("nn.matmul", a, b)


def convert_qlinear_matmul(ctx: NodeContext) -> ConverterResult:
    """QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): the int32 product
    (on the dot-product kernel where it applies), requantized."""
    for index in (1, 4, 6):
        check_scale(ctx, index)
    total = _dot_product_matmul(ctx, 0, 2, 3, 5)
    if total is None:
        rows_axis = max(ctx.rank(0) - 2, 0)
        a = _centered(ctx, 0, 2, rows_axis)
        b = _centered(ctx, 3, 5, ctx.rank(3) - 1)
        total = ctx.call("nn.matmul", a, b)
    return _requantize(ctx, total, (1, 4, 6), 7, len(_shape(total)) - 1)


def _dot_product_matmul(
    ctx: NodeContext, data: int, data_zero: int, weight: int, weight_zero: int
) -> Expr | None:
    """The node's int32 matmul on the dot-product kernel (`dot_product_dense`, the data's
    zero point's share taken off per output), where it applies: a constant 2-D int8
    weight with zero points 0, the data's zero point one value, constant or computed at
    run time (DynamicQuantizeLinear's); else None."""
    if ctx.rank(data) < 2:
        return None
    folded = ctx.fold(ctx.input(weight))
    if not isinstance(folded, Constant) or folded.data.dtype != np.int8 or folded.data.ndim != 2:
        return None
    runtime_zero = _runtime_zero_point(ctx, data_zero)
    zero_point = 0 if runtime_zero is not None else _scalar_zero_point(ctx, data_zero, weight_zero)
    if zero_point is None or (
        runtime_zero is not None and not _zero_weights_zero(ctx, weight_zero)
    ):
        return None
    matrix = folded.data.T
    out_shape = (*ctx.shape(data)[:-1], matrix.shape[0])
    found = dot_product_dense(
        ctx.input(data), ctx.dtype(data), zero_point, matrix, out_shape, make=ctx.call
    )
    if found is None:
        return None
    total, offsets = found
    if np.any(offsets):
        total = ctx.call("add", total, Constant((-offsets).astype(np.int32)))
    if runtime_zero is not None:  # its share: zero point x each output's weight sum
        sums = Constant(matrix.astype(np.int64).sum(axis=1).astype(np.int32))
        share = ctx.call("multiply", ctx.call("cast", runtime_zero, dtype=I32), sums)
        total = ctx.call("subtract", total, share)
    return total


def _runtime_zero_point(ctx: NodeContext, data_zero: int) -> Expr | None:
    """The data's zero point as a scalar expression when it is one value computed at run
    time; None when it is absent or constant (or not one value)."""
    given = ctx.optional_input(data_zero)
    if given is None or isinstance(ctx.fold(given), Constant):
        return None
    shape = ctx.shape(data_zero)
    if int(np.prod(shape)) != 1:
        return None
    return ctx.call("reshape", given, newshape=()) if shape else given


def _zero_weights_zero(ctx: NodeContext, weight_zero: int) -> bool:
    zero = ctx.optional_input(weight_zero)
    return zero is None or _constant_zero(ctx, zero)


def _scalar_zero_point(ctx: NodeContext, data_zero: int, weight_zero: int) -> int | None:
    """The data's zero point as one int (0 when absent) where the weight's zero points
    are all 0 (or absent); else None."""
    zero = ctx.optional_input(weight_zero)
    if zero is not None and not _constant_zero(ctx, zero):
        return None
    given = ctx.optional_input(data_zero)
    if given is None:
        return 0
    value = ctx.fold(given)
    if not isinstance(value, Constant) or value.data.size != 1:
        return None
    return int(value.data.reshape(()))


def _shape(value: Expr) -> tuple[int, ...]:
    ty = value.checked_type
    assert isinstance(ty, TensorType), ty
    return ty.shape


def _integer_conv(ctx: NodeContext, x: Expr, w: Expr, bias: Expr | None) -> Expr:
    """The node's convolution (its attributes) of int32 `x` and `w` (plus int32 `bias`)."""
    inputs = (x, w) if bias is None else (x, w, bias)
    return _conv(replace(ctx, inputs=inputs))


def _conv(ctx: NodeContext) -> Expr:
    out = convert_conv(ctx)
    assert isinstance(out, Expr)
    return out


def _dot_product_sum(
    ctx: NodeContext, data: int, data_zero: int, weight: int, weight_zero: int
) -> Expr | None:
    """The node's int32 conv sum on the dot-product kernel (qnn.conv2d, the data padded
    with its zero point, that point's share taken off per channel), where it applies: a
    2-D conv of one group by a constant int8 weight with zero points 0, the data's zero
    point one value; else None."""
    if ctx.rank(data) != 4 or ctx.int_attr("group", 1) != 1:
        return None
    folded = ctx.fold(ctx.input(weight))
    if not isinstance(folded, Constant) or folded.data.dtype != np.int8:
        return None
    zero_point = _scalar_zero_point(ctx, data_zero, weight_zero)
    if zero_point is None:
        return None
    window = conv_window(ctx, tuple(folded.data.shape[2:]))
    attrs = {"strides": window.strides, "padding": window.padding, "dilation": window.dilation}
    found = dot_product_conv(
        ctx.input(data), ctx.dtype(data), zero_point, folded.data, attrs, make=ctx.call
    )
    if found is None:
        return None
    total, offsets = found
    if np.any(offsets):
        shift = Constant((-offsets).astype(np.int32).reshape(-1, 1, 1))
        total = ctx.call("add", total, shift)
    return total


def _constant_zero(ctx: NodeContext, value: Expr) -> bool:
    folded = ctx.fold(value)
    return isinstance(folded, Constant) and not np.any(folded.data)


def convert_conv_integer(ctx: NodeContext) -> ConverterResult:
    """ConvInteger(x, w, x_zero_point, w_zero_point) -> int32 convolution of the centered
    inputs (w's zero point per output channel): the dot-product kernel where it applies."""
    total = _dot_product_sum(ctx, 0, 2, 1, 3)
    if total is not None:
        return total
    return _integer_conv(ctx, _centered(ctx, 0, 2, 1), _centered(ctx, 1, 3, 0), None)


def convert_qlinear_conv(ctx: NodeContext) -> ConverterResult:
    """QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B): the int32 sum
    (on the dot-product kernel where it applies) plus the bias, requantized."""
    for index in (1, 4, 6):
        check_scale(ctx, index)
    bias = ctx.optional_input(8)
    if bias is not None:
        bias = ctx.call("cast", bias, dtype=I32)
    total = _dot_product_sum(ctx, 0, 2, 3, 5)
    if total is None:
        total = _integer_conv(ctx, _centered(ctx, 0, 2, 1), _centered(ctx, 3, 5, 0), bias)
    elif bias is not None:
        total = ctx.call("add", total, ctx.call("expand_dims", bias, axes=(1, 2)))
    return _requantize(ctx, total, (1, 4, 6), 7, 1)


CONVERTERS: dict[str, Converter] = {
    "ConvInteger": convert_conv_integer,
    "MatMulInteger": convert_matmul_integer,
    "QLinearConv": convert_qlinear_conv,
    "QLinearMatMul": convert_qlinear_matmul,
}
