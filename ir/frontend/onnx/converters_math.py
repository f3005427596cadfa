"""Converters for elementwise ONNX ops: activations, math, arithmetic, comparisons, casts."""

from __future__ import annotations

import math

import numpy as np

from ir.errors import UnsupportedOpError
from ir.frontend.onnx import bit_floats
from ir.frontend.onnx.context import (
    Converter,
    ConverterResult,
    NodeContext,
    onnx_dtype_name,
    onnx_type_name,
)
from ir.graph.nodes import Constant, Expr
from ir.graph.types import DTYPES, STORAGE_DTYPES


def unary(op: str, **attrs: object) -> Converter:
    """A converter for a one-input ONNX op that maps to `op` with fixed attributes."""

    def convert(ctx: NodeContext) -> ConverterResult:
        return ctx.call(op, ctx.input(0), **attrs)

    convert.__doc__ = f"ONNX -> {op}"
    return convert


def binary(op: str) -> Converter:
    """A converter for a two-input broadcasting ONNX op that maps to `op`."""

    def convert(ctx: NodeContext) -> ConverterResult:
        return ctx.call(op, ctx.input(0), ctx.input(1))

    convert.__doc__ = f"ONNX -> {op}"
    return convert


def convert_identity(ctx: NodeContext) -> ConverterResult:
    """Identity forwards its input: no node in the graph."""
    return ctx.input(0)


def convert_prelu(ctx: NodeContext) -> ConverterResult:
    """PRelu(x, slope) -> where(x < 0, x * slope, x)."""
    data, slope = ctx.input(0), ctx.input(1)
    negative = ctx.call("less", data, ctx.scalar(0, ctx.dtype(0)))
    return ctx.call("where", negative, ctx.call("multiply", data, slope), data)


def hard_sigmoid(ctx: NodeContext, data: Expr, alpha: float, beta: float) -> Expr:
    """clip(alpha * data + beta, 0, 1)."""
    dtype = data.checked_type.dtype  # type: ignore[union-attr]
    scaled = ctx.call("multiply", data, ctx.scalar(alpha, dtype))
    shifted = ctx.call("add", scaled, ctx.scalar(beta, dtype))
    return ctx.call("clip", shifted, a_min=0.0, a_max=1.0)


def convert_hard_sigmoid(ctx: NodeContext) -> ConverterResult:
    """HardSigmoid(alpha=0.2, beta=0.5) -> clip(alpha * x + beta, 0, 1)."""
    alpha = ctx.float_attr("alpha", 0.2)
    beta = ctx.float_attr("beta", 0.5)
    return hard_sigmoid(ctx, ctx.input(0), alpha, beta)


def convert_hard_swish(ctx: NodeContext) -> ConverterResult:
    """HardSwish -> x * clip(x / 6 + 0.5, 0, 1)."""
    data = ctx.input(0)
    return ctx.call("multiply", data, hard_sigmoid(ctx, data, 1.0 / 6.0, 0.5))


def convert_gelu(ctx: NodeContext) -> ConverterResult:
    """Gelu (opset 20) -> nn.gelu with the same `approximate`."""
    approximate = ctx.choice_attr("approximate", "none", ("none", "tanh"))
    return ctx.call("nn.gelu", ctx.input(0), approximate=approximate)


def convert_not(ctx: NodeContext) -> ConverterResult:
    """Not(x) -> x == False."""
    return ctx.call("equal", ctx.input(0), ctx.scalar(False, "bool"))


def convert_bit_shift(ctx: NodeContext) -> ConverterResult:
    """BitShift(direction) -> left_shift or right_shift."""
    direction = ctx.attr("direction")
    if direction not in ("LEFT", "RIGHT"):
        raise ctx.unsupported_attr("direction", direction, ("LEFT", "RIGHT"))
    op = "left_shift" if direction == "LEFT" else "right_shift"
    return ctx.call(op, ctx.input(0), ctx.input(1))


def convert_pow(ctx: NodeContext) -> ConverterResult:
    """Pow -> power; an exponent of another dtype (allowed since opset 12) is cast first.
    An integer base is raised in float64 and cast back (exact while the power fits in
    float64's 53-bit mantissa)."""
    base, exponent = ctx.input(0), ctx.input(1)
    dtype = ctx.dtype(0)
    if not dtype.startswith("float"):
        wide_base = ctx.call("cast", base, dtype="float64")
        wide_exponent = ctx.call("cast", exponent, dtype="float64")
        return ctx.call("cast", ctx.call("power", wide_base, wide_exponent), dtype=dtype)
    if ctx.dtype(1) != ctx.dtype(0):
        exponent = ctx.call("cast", exponent, dtype=ctx.dtype(0))
    return ctx.call("power", base, exponent)


def convert_cast(ctx: NodeContext) -> ConverterResult:
    """Cast(to) -> cast(dtype) with the ONNX element type mapped to its numpy name."""
    to = ctx.attr("to")
    if to is None:
        raise ctx.error("attribute 'to' is required")
    try:
        dtype = onnx_dtype_name(int(to), ctx.where)
    except UnsupportedOpError:
        raise ctx.unsupported_attr("to", onnx_type_name(int(to)), sorted(DTYPES)) from None
    saturate = bool(ctx.int_attr("saturate", 1))
    round_mode = str(ctx.attr("round_mode", "up"))
    return bit_floats.convert(ctx, ctx.input(0), dtype, saturate, round_mode)


def _clip_bound(ctx: NodeContext, index: int) -> float | Expr | None:
    """A Clip bound given as an input: a Python float when static, else the tensor."""
    bound = ctx.optional_input(index)
    if bound is None:
        return None
    folded = ctx.fold(bound)
    if isinstance(folded, Constant):
        return float(folded.data.reshape(-1)[0])
    return bound


def convert_clip(ctx: NodeContext) -> ConverterResult:
    """Clip: min/max attributes before opset 11, optional inputs after.

    Static bounds become clip(a_min, a_max); a bound computed at run time becomes a
    maximum/minimum with that tensor.
    """
    data = ctx.input(0)
    if ctx.opset < 11:
        low: float | Expr | None = ctx.float_attr("min", -math.inf)
        high: float | Expr | None = ctx.float_attr("max", math.inf)
    else:
        low = _clip_bound(ctx, 1)
        high = _clip_bound(ctx, 2)
    a_min = low if isinstance(low, float) else -math.inf
    a_max = high if isinstance(high, float) else math.inf
    result = data
    if a_min != -math.inf or a_max != math.inf:
        result = ctx.call("clip", result, a_min=a_min, a_max=a_max)
    if isinstance(low, Expr):
        result = ctx.call("maximum", result, low)
    if isinstance(high, Expr):
        result = ctx.call("minimum", result, high)
    return result


def convert_where(ctx: NodeContext) -> ConverterResult:
    """Where(cond, x, y) -> where."""
    return ctx.call("where", ctx.input(0), ctx.input(1), ctx.input(2))


def _present_inputs(ctx: NodeContext) -> list[Expr]:
    values = [value for value in ctx.inputs if value is not None]
    if not values:
        raise ctx.error("needs at least one input")
    return values


def chained(op: str) -> Converter:
    """A converter for a variadic ONNX op (Max, Min) as a chain of binary `op` calls."""

    def convert(ctx: NodeContext) -> ConverterResult:
        values = _present_inputs(ctx)
        result = values[0]
        for value in values[1:]:
            result = ctx.call(op, result, value)
        return result

    convert.__doc__ = f"variadic ONNX op -> chained {op}"
    return convert


def convert_sum(ctx: NodeContext) -> ConverterResult:
    """Sum -> add_n (a single input is forwarded)."""
    values = _present_inputs(ctx)
    return values[0] if len(values) == 1 else ctx.call("add_n", *values)


def convert_mean(ctx: NodeContext) -> ConverterResult:
    """Mean -> add_n(...) / n (a single input is forwarded)."""
    values = _present_inputs(ctx)
    if len(values) == 1:
        return values[0]
    total = ctx.call("add_n", *values)
    return ctx.call("divide", total, ctx.scalar(len(values), ctx.dtype(0)))


def with_float_attrs(op: str, **defaults: float) -> Converter:
    """A converter for a one-input ONNX op whose float attributes pass on to `op`."""

    def convert(ctx: NodeContext) -> ConverterResult:
        attrs = {name: ctx.float_attr(name, default) for name, default in defaults.items()}
        return ctx.call(op, ctx.input(0), **attrs)

    convert.__doc__ = f"ONNX -> {op}({', '.join(defaults)})"
    return convert


def convert_mod(ctx: NodeContext) -> ConverterResult:
    """Mod -> floor_mod (fmod=0, Python's sign rule) or trunc_mod (fmod=1, C's fmod)."""
    fmod = ctx.int_attr("fmod", 0)
    if fmod not in (0, 1):
        raise ctx.error(f"attribute fmod must be 0 or 1, got {fmod}")
    return ctx.call("trunc_mod" if fmod else "floor_mod", ctx.input(0), ctx.input(1))


def convert_bit_cast(ctx: NodeContext) -> ConverterResult:
    """BitCast(to) -> reinterpret: the same bits read as a type of the same width (a bool
    is the byte 0 or 1)."""
    to = ctx.attr("to")
    if to is None:
        raise ctx.error("attribute 'to' is required")
    dtype = onnx_dtype_name(int(to), ctx.where)
    source = ctx.dtype(0)
    if np.dtype(source).itemsize != np.dtype(dtype).itemsize:
        raise ctx.error(f"{source} and {dtype} differ in width")
    value = ctx.input(0)
    if source == "bool":
        value, source = ctx.call("cast", value, dtype="uint8"), "uint8"
    if dtype == "bool":
        if source != "uint8":
            value = ctx.call("reinterpret", value, dtype="uint8")
        return ctx.call("cast", value, dtype="bool")
    if source == dtype:
        return value
    return ctx.call("reinterpret", value, dtype=dtype)


def convert_cast_like(ctx: NodeContext) -> ConverterResult:
    """CastLike(x, target) -> cast to the target's dtype."""
    saturate = bool(ctx.int_attr("saturate", 1))
    round_mode = str(ctx.attr("round_mode", "up"))
    return bit_floats.convert(ctx, ctx.input(0), ctx.dtype(1), saturate, round_mode)


def convert_is_nan(ctx: NodeContext) -> ConverterResult:
    """IsNaN(x) -> not (x == x)."""
    same = ctx.call("equal", ctx.input(0), ctx.input(0))
    return ctx.call("equal", same, ctx.scalar(False, "bool"))


def convert_is_inf(ctx: NodeContext) -> ConverterResult:
    """IsInf(x) -> x == +inf and / or x == -inf (detect_positive, detect_negative)."""
    data, dtype = ctx.input(0), ctx.dtype(0)
    positive = ctx.int_attr("detect_positive", 1)
    negative = ctx.int_attr("detect_negative", 1)
    if positive and negative:
        return ctx.call("equal", ctx.call("abs", data), ctx.scalar(math.inf, dtype))
    if positive or negative:
        return ctx.call("equal", data, ctx.scalar(math.inf if positive else -math.inf, dtype))
    return Constant(np.zeros(ctx.shape(0), dtype=bool))


QUANTIZED_RANGES = {
    "uint8": (0, 255),
    "int8": (-128, 127),
    "uint16": (0, 65535),
    "int16": (-32768, 32767),
    "uint4": (0, 15),
    "int4": (-8, 7),
    "uint2": (0, 3),
    "int2": (-2, 1),
}


def _per_axis(ctx: NodeContext, value: Expr, index: int, rank: int) -> Expr:
    """A scale or zero point: a scalar as is, a 1-D one shaped to broadcast along the
    node's `axis` attribute, a blocked one (the input's rank, `block_size`) repeated to
    the input's shape."""
    shape = ctx.shape(index)
    block_size = ctx.int_attr("block_size", 0)
    if block_size:
        return _blocked(ctx, value, index, rank, block_size)
    if len(shape) == 0:
        return value
    if shape == (1,):  # one value: the same as per tensor, whatever the axis
        return ctx.call("reshape", value, newshape=())
    if len(shape) != 1:
        raise ctx.error(
            f"a scale or zero point of shape {shape} needs the block_size attribute "
            "(blocked quantization); without it, it must be a scalar or 1-D"
        )
    axis = ctx.axis(ctx.int_attr("axis", 1), rank)
    extent = ctx.shape(0)[axis]
    if shape[0] != extent:
        what = "scale" if index == 1 else "zero point"
        raise ctx.error(
            f"per-axis {what} (input {index}) has {shape[0]} values, but axis {axis} of "
            f"the input (shape {ctx.shape(0)}) has {extent}"
        )
    return ctx.call("reshape", value, newshape=(shape[0], *(1,) * (rank - axis - 1)))


def _blocked(ctx: NodeContext, value: Expr, index: int, rank: int, block_size: int) -> Expr:
    """Blocked quantization's scale or zero point (input `index`): one value per
    `block_size` consecutive elements along `axis`, the input's extent elsewhere; each
    value repeated over its block, the last block cut to the input's extent."""
    what = "scale" if index == 1 else "zero point"
    if block_size < 0:
        raise ctx.error(f"block_size must be positive; got {block_size}")
    shape, data_shape = ctx.shape(index), ctx.shape(0)
    axis = ctx.axis(ctx.int_attr("axis", 1), rank)
    extent = data_shape[axis]
    wanted = tuple(
        -(-size // block_size) if dim == axis else size for dim, size in enumerate(data_shape)
    )
    if shape != wanted:
        raise ctx.error(
            f"blocked {what} (input {index}) has shape {shape}; with block_size "
            f"{block_size} along axis {axis} of the input (shape {data_shape}) it must "
            f"be {wanted}"
        )
    blocks = wanted[axis]
    spread = (*wanted[: axis + 1], block_size, *wanted[axis + 1 :])
    value = ctx.call("expand_dims", value, axes=(axis + 1,))
    value = ctx.call("broadcast_to", value, shape=spread)
    whole = (*wanted[:axis], blocks * block_size, *wanted[axis + 1 :])
    value = ctx.call("reshape", value, newshape=whole)
    if blocks * block_size != extent:
        value = ctx.call("strided_slice", value, begin=(0,), end=(extent,), axes=(axis,))
    return value


def check_scale(ctx: NodeContext, index: int = 1) -> None:
    """A clear error for a constant scale (input `index`) that is zero, negative or not
    finite: quantizing divides by it, and a scale of 0 or below has no quantization grid."""
    folded = ctx.fold(ctx.input(index))
    if not isinstance(folded, Constant) or folded.data.dtype.kind != "f":
        return
    values = np.asarray(folded.data, np.float64).reshape(-1)
    bad = np.flatnonzero(~(np.isfinite(values) & (values > 0)))
    if bad.size:
        where = f" at index {int(bad[0])}" if values.size > 1 else ""
        raise ctx.error(
            f"scale (input {index}) must be positive and finite; got {float(values[bad[0]])}{where}"
        )


def convert_dequantize_linear(ctx: NodeContext) -> ConverterResult:
    """DequantizeLinear -> (x - zero_point) * scale, per tensor or per axis."""
    check_scale(ctx)
    rank = ctx.rank(0)
    dtype = ctx.dtype(1)
    scale = _per_axis(ctx, ctx.input(1), 1, rank)
    value = bit_floats.convert(ctx, ctx.input(0), dtype)
    zero_point = ctx.optional_input(2)
    if zero_point is not None:
        shifted = bit_floats.convert(ctx, _per_axis(ctx, zero_point, 2, rank), dtype)
        value = ctx.call("subtract", value, shifted)
    return ctx.call("multiply", value, scale)


def convert_quantize_linear(ctx: NodeContext) -> ConverterResult:
    """QuantizeLinear -> clip(round(x / scale) + zero_point) in the zero point's integer
    type (else opset 21's output_dtype, else uint8), rounding halves to even."""
    check_scale(ctx)
    rank = ctx.rank(0)
    dtype = ctx.dtype(0)
    zero_point = ctx.optional_input(2)
    given = ctx.int_attr("output_dtype", 0)
    asked = onnx_dtype_name(given, ctx.where) if given else None
    out_dtype = ctx.dtype(2) if zero_point is not None else (asked or "uint8")
    if asked is not None and asked != out_dtype:
        raise ctx.error(f"output_dtype {asked} differs from the zero point's {out_dtype}")
    if out_dtype in STORAGE_DTYPES:  # a float8 type: x / scale + zero point, rounded to it
        scale = ctx.call("cast", _per_axis(ctx, ctx.input(1), 1, rank), dtype=dtype)
        value = ctx.call("divide", ctx.input(0), scale)
        if zero_point is not None:
            shift = bit_floats.convert(ctx, _per_axis(ctx, zero_point, 2, rank), dtype)
            value = ctx.call("add", value, shift)
        return bit_floats.convert(ctx, value, out_dtype, bool(ctx.int_attr("saturate", 1)))
    if out_dtype not in QUANTIZED_RANGES:
        raise ctx.unsupported(f"quantizing to {out_dtype}; supported: {sorted(QUANTIZED_RANGES)}")
    scale = ctx.call("cast", _per_axis(ctx, ctx.input(1), 1, rank), dtype=dtype)
    value = ctx.call("round", ctx.call("divide", ctx.input(0), scale))
    if zero_point is not None:
        shift = ctx.call("cast", _per_axis(ctx, zero_point, 2, rank), dtype=dtype)
        value = ctx.call("add", value, shift)
    low, high = QUANTIZED_RANGES[out_dtype]
    return ctx.call("cast", ctx.call("clip", value, a_min=low, a_max=high), dtype=out_dtype)


def convert_shrink(ctx: NodeContext) -> ConverterResult:
    """Shrink(lambd, bias) -> x + bias below -lambd, x - bias above lambd, else 0."""
    data, dtype = ctx.input(0), ctx.dtype(0)
    lambd, bias = ctx.float_attr("lambd", 0.5), ctx.float_attr("bias", 0.0)
    low = ctx.call("less", data, ctx.scalar(-lambd, dtype))
    high = ctx.call("greater", data, ctx.scalar(lambd, dtype))
    raised = ctx.call("add", data, ctx.scalar(bias, dtype))
    lowered = ctx.call("subtract", data, ctx.scalar(bias, dtype))
    inner = ctx.call("where", high, lowered, ctx.scalar(0, dtype))
    return ctx.call("where", low, raised, inner)


CONVERTERS: dict[str, Converter] = {
    "Abs": unary("abs"),
    "And": binary("logical_and"),
    "BitwiseAnd": binary("bitwise_and"),
    "BitwiseOr": binary("bitwise_or"),
    "BitwiseXor": binary("bitwise_xor"),
    "BitwiseNot": unary("bitwise_not"),
    "BitCast": convert_bit_cast,
    "BitShift": convert_bit_shift,
    "Add": binary("add"),
    "Cast": convert_cast,
    "CastLike": convert_cast_like,
    "Ceil": unary("ceil"),
    "Celu": with_float_attrs("nn.celu", alpha=1.0),
    "Clip": convert_clip,
    "Cos": unary("cos"),
    "Tan": unary("tan"),
    "Asin": unary("asin"),
    "Acos": unary("acos"),
    "Atan": unary("atan"),
    "Sinh": unary("sinh"),
    "Cosh": unary("cosh"),
    "Asinh": unary("asinh"),
    "Acosh": unary("acosh"),
    "Atanh": unary("atanh"),
    "DequantizeLinear": convert_dequantize_linear,
    "Div": binary("divide"),
    "Elu": with_float_attrs("nn.elu", alpha=1.0),
    "Equal": binary("equal"),
    "Erf": unary("erf"),
    "Exp": unary("exp"),
    "Floor": unary("floor"),
    "Gelu": convert_gelu,
    "Greater": binary("greater"),
    "GreaterOrEqual": binary("greater_equal"),
    "HardSigmoid": convert_hard_sigmoid,
    "HardSwish": convert_hard_swish,
    "IsInf": convert_is_inf,
    "IsNaN": convert_is_nan,
    "Identity": convert_identity,
    "LeakyRelu": with_float_attrs("nn.leaky_relu", alpha=0.01),
    "Less": binary("less"),
    "LessOrEqual": binary("less_equal"),
    "Log": unary("log"),
    "Max": chained("maximum"),
    "Mean": convert_mean,
    "Min": chained("minimum"),
    "Mish": unary("nn.mish"),
    "Mod": convert_mod,
    "Mul": binary("multiply"),
    "Neg": unary("negative"),
    "Not": convert_not,
    "Or": binary("logical_or"),
    "Pow": convert_pow,
    "PRelu": convert_prelu,
    "QuantizeLinear": convert_quantize_linear,
    "Reciprocal": unary("reciprocal"),
    "Relu": unary("nn.relu"),
    "Round": unary("round"),
    "Selu": with_float_attrs("nn.selu", alpha=1.6732632423543772, gamma=1.0507009873554805),
    "Sigmoid": unary("sigmoid"),
    "Shrink": convert_shrink,
    "Sign": unary("sign"),
    "Sin": unary("sin"),
    "Softplus": unary("nn.softplus"),
    "Softsign": unary("nn.softsign"),
    "Sqrt": unary("sqrt"),
    "Sub": binary("subtract"),
    "Sum": convert_sum,
    "Tanh": unary("tanh"),
    "ThresholdedRelu": with_float_attrs("nn.thresholded_relu", alpha=1.0),
    "Where": convert_where,
    "Xor": binary("logical_xor"),
}
