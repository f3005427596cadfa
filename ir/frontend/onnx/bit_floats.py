"""Conversions to and from the element types the IR keeps as bits only (bfloat16, the
float8 types, float4_e2m1fn: ir.graph.types.STORAGE_DTYPES), written as graph IR ops on
their bits, so that every backend compiles them like any other elementwise kernel.

Decoding reads the bits (`reinterpret`) and looks the value up in a table of every code
(float8, float4) or shifts them into a float32 (bfloat16). Encoding finds each value's
binary exponent by comparing it with the format's powers of two, scales it by an exact
power of two so that rounding half to even (`round`) leaves the format's mantissa, and
assembles the code; values beyond the largest finite one saturate to it or, with
`saturate` off, become infinity or NaN as the format has them (ONNX's Cast tables).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import ml_dtypes
import numpy as np

from ir.frontend.onnx.context import NodeContext
from ir.graph.nodes import Constant, Expr
from ir.graph.types import STORAGE_DTYPES, TensorType

F32 = "float32"


@dataclass(frozen=True)
class SmallFloat:
    """A float format of at most 8 bits, as its codes are laid out."""

    dtype: str
    bits: int
    mantissa_bits: int
    min_exponent: int  # of the smallest normal value
    max_exponent: int  # of the largest finite value
    max_code: int  # the largest finite value's code
    nan_code: int  # what a NaN becomes (in a format without NaN, ml_dtypes' choice)
    has_nan: bool
    inf_code: int | None
    signed_zero: bool  # whether -0 has a code of its own (the fnuz formats: no)

    @property
    def sign_bit(self) -> int:
        """The code bit that makes a value negative."""
        return 1 << (self.bits - 1)


@cache
def small_float(dtype: str) -> SmallFloat:
    """The layout of ml_dtypes' float8 or float4 type `dtype`, read off ml_dtypes."""
    numpy_type = np.dtype(dtype)
    info = ml_dtypes.finfo(numpy_type)  # type: ignore[no-untyped-call]

    def code(value: float) -> int:
        return int(np.asarray(value).astype(numpy_type).view(np.uint8))

    def kept(value: float) -> bool:  # a value the format represents as itself
        back = float(np.asarray(value).astype(numpy_type).astype(np.float32))
        return back == value or (np.isnan(value) and np.isnan(back))

    return SmallFloat(
        dtype=dtype,
        bits=int(info.bits),
        mantissa_bits=int(info.nmant),
        min_exponent=int(info.minexp),
        max_exponent=int(info.maxexp) - 1,
        max_code=code(float(info.max)),
        nan_code=code(float("nan")),
        has_nan=kept(float("nan")),
        inf_code=code(float("inf")) if kept(float("inf")) else None,
        signed_zero=code(-0.0) != 0,
    )


E8M0_ROUND_MODES = ("up", "down", "nearest")


def convert(
    ctx: NodeContext, value: Expr, dtype: str, saturate: bool = True, round_mode: str = "up"
) -> Expr:
    """`value` converted to `dtype` as ONNX's Cast does, either side possibly a
    bits-only type (`saturate`: what values beyond a float8 type's range become;
    `round_mode`: how a value rounds to a power of two of float8_e8m0fnu)."""
    source = _dtype(value)
    if source == dtype:
        return value
    if source in STORAGE_DTYPES:
        value, source = decode(ctx, value), F32
        if dtype == F32:
            return value
    if dtype not in STORAGE_DTYPES:
        return ctx.call("cast", value, dtype=dtype)
    if source != F32:
        value = ctx.call("cast", value, dtype=F32)
    if dtype == "bfloat16":
        return _encode_bfloat16(ctx, value)
    if dtype == "float8_e8m0fnu":
        return _encode_e8m0(ctx, value, saturate, round_mode)
    return _encode_small(ctx, value, small_float(dtype), saturate)


def _encode_e8m0(ctx: NodeContext, value: Expr, saturate: bool, round_mode: str) -> Expr:
    """float32 to float8_e8m0fnu (a power of two 2^(e - 127), code 255 NaN), as ONNX
    defines Cast to it: the float32's exponent field (its sign dropped; NaN and infinity
    give 255), raised by one where `round_mode` rounds up ("up": any fraction; "nearest":
    the fraction's top bit, and on an exact half only above the smallest exponent;
    "down": never), but not from 254 to NaN when `saturate`."""
    if round_mode not in E8M0_ROUND_MODES:
        raise ctx.unsupported_attr("round_mode", round_mode, E8M0_ROUND_MODES)
    u32 = "uint32"

    def masked(bits: Expr, mask: int) -> Expr:
        field = ctx.call("bitwise_and", bits, ctx.scalar(mask, u32))
        return ctx.call("greater", field, ctx.scalar(0, u32))

    bits = ctx.call("reinterpret", value, dtype=u32)
    shifted = ctx.call("right_shift", bits, ctx.scalar(23, u32))
    exponent = ctx.call("bitwise_and", shifted, ctx.scalar(0xFF, u32))
    special = ctx.call("equal", exponent, ctx.scalar(0xFF, u32))
    raised = exponent
    if round_mode != "down":
        if round_mode == "up":
            up = masked(bits, 0x7FFFFF)
        else:
            above_smallest = ctx.call("greater", exponent, ctx.scalar(0, u32))
            rest = ctx.call("logical_or", masked(bits, 0x200000), masked(bits, 0x1FFFFF))
            tie_or_more = ctx.call("logical_or", rest, above_smallest)
            up = ctx.call("logical_and", masked(bits, 0x400000), tie_or_more)
        if saturate:
            largest = ctx.call("equal", exponent, ctx.scalar(0xFE, u32))
            below_largest = ctx.call("equal", largest, ctx.scalar(False, "bool"))
            up = ctx.call("logical_and", up, below_largest)
        raised = ctx.call("add", exponent, ctx.call("cast", up, dtype=u32))
    code = ctx.call("where", special, ctx.scalar(0xFF, u32), raised)
    return ctx.call("reinterpret", ctx.call("cast", code, dtype="uint8"), dtype="float8_e8m0fnu")


def decode(ctx: NodeContext, value: Expr) -> Expr:
    """The float32 values of a tensor of a bits-only type (exact)."""
    dtype = _dtype(value)
    if dtype == "bfloat16":
        bits = ctx.call("cast", ctx.call("reinterpret", value, dtype="uint16"), dtype="uint32")
        shifted = ctx.call("left_shift", bits, ctx.scalar(16, "uint32"))
        return ctx.call("reinterpret", shifted, dtype=F32)
    count = 1 << small_float(dtype).bits
    table = np.arange(count, dtype=np.uint8).view(np.dtype(dtype)).astype(np.float32)
    codes = ctx.call("cast", ctx.call("reinterpret", value, dtype="uint8"), dtype="int32")
    return ctx.call("take", Constant(table), codes, axis=0)


def _encode_bfloat16(ctx: NodeContext, value: Expr) -> Expr:
    """float32 to bfloat16, rounding half to even; a NaN stays a (quiet) NaN."""
    bits = ctx.call("reinterpret", value, dtype="uint32")
    high = ctx.call("right_shift", bits, ctx.scalar(16, "uint32"))
    odd = ctx.call("bitwise_and", high, ctx.scalar(1, "uint32"))
    bias = ctx.call("add", odd, ctx.scalar(0x7FFF, "uint32"))
    rounded = ctx.call("right_shift", ctx.call("add", bits, bias), ctx.scalar(16, "uint32"))
    quiet = ctx.call("bitwise_or", high, ctx.scalar(0x40, "uint32"))
    code = ctx.call("where", _is_nan(ctx, value), quiet, rounded)
    return ctx.call("reinterpret", ctx.call("cast", code, dtype="uint16"), dtype="bfloat16")


def _encode_small(ctx: NodeContext, value: Expr, form: SmallFloat, saturate: bool) -> Expr:
    """float32 to a float8 or float4 format, rounding half to even."""
    magnitude = ctx.call("abs", value)
    # The binary exponent, clamped to the format's: the largest minus the number of its
    # powers of two above the magnitude (subnormals and zero get the smallest).
    exponent: Expr = ctx.scalar(form.max_exponent, F32)
    for power in range(form.min_exponent + 1, form.max_exponent + 1):
        below = ctx.call("less", magnitude, ctx.scalar(2.0**power, F32))
        exponent = ctx.call("subtract", exponent, ctx.call("cast", below, dtype=F32))
    # Scaled by 2^(mantissa_bits - exponent), the magnitude's integer part is its
    # mantissa with the implicit bit; rounding it can carry into the next exponent,
    # which the code below absorbs (the codes are in order).
    steps = range(form.min_exponent, form.max_exponent + 1)
    scales = np.array([2.0 ** (form.mantissa_bits - step) for step in steps], np.float32)
    step_index = ctx.call(
        "cast",
        ctx.call("subtract", exponent, ctx.scalar(form.min_exponent, F32)),
        dtype="int32",
    )
    scale = ctx.call("take", Constant(scales), step_index, axis=0)
    mantissa = ctx.call("round", ctx.call("multiply", magnitude, scale))
    offset = ctx.call(
        "multiply",
        ctx.call("subtract", exponent, ctx.scalar(form.min_exponent, F32)),
        ctx.scalar(float(1 << form.mantissa_bits), F32),
    )
    code = ctx.call("add", offset, mantissa)
    over = ctx.call("greater", code, ctx.scalar(float(form.max_code), F32))
    code = ctx.call("minimum", code, ctx.scalar(float(form.max_code), F32))
    negative = ctx.call("less", value, ctx.scalar(0.0, F32))
    if not form.signed_zero:  # no negative zero: a value rounded to 0 is +0
        nonzero = ctx.call("greater", code, ctx.scalar(0.0, F32))
        negative = ctx.call("logical_and", negative, nonzero)
    sign = ctx.scalar(float(form.sign_bit), F32)
    signed = ctx.call("where", negative, ctx.call("add", code, sign), code)
    if not saturate:  # beyond the range: infinity, else NaN, where the format has them
        beyond = form.inf_code if form.inf_code is not None else form.nan_code
        if form.inf_code is not None or form.has_nan:
            beyond_code: Expr = ctx.scalar(float(beyond), F32)
            if form.signed_zero:
                negative_code = ctx.scalar(float(beyond | form.sign_bit), F32)
                beyond_code = ctx.call("where", negative, negative_code, beyond_code)
            signed = ctx.call("where", over, beyond_code, signed)
    nan_code = ctx.scalar(float(form.nan_code), F32)
    signed = ctx.call("where", _is_nan(ctx, value), nan_code, signed)
    codes = ctx.call("cast", signed, dtype="uint8")
    return ctx.call("reinterpret", codes, dtype=form.dtype)


def _is_nan(ctx: NodeContext, value: Expr) -> Expr:
    return ctx.call("equal", ctx.call("equal", value, value), ctx.scalar(False, "bool"))


def _dtype(value: Expr) -> str:
    ty = value.checked_type
    assert isinstance(ty, TensorType), ty
    return ty.dtype
