"""Math intrinsics of the loop IR (`Call` nodes) as LLVM intrinsics or libm calls.

exp, erf and tanh of float32, scalars and vectors, are computed here (`_INLINE`: within
1 ulp, 2e-7 and 1 ulp), since LLVM would call libm lane by lane. For other float types
exp, and log, sqrt, fabs, floor, ceil, round, trunc, pow, sin and cos of any, map to LLVM
intrinsics (vector forms included; LLVM expands or scalarises them), and tanh and erf
call libm (`tanh`, `erf`, ...) lane by lane. `round` rounds half to even
(llvm.roundeven), as numpy.round does. sigmoid is 1 / (1 + exp(-x)) and rsqrt is
1 / sqrt(x).
"""

from __future__ import annotations

import math
import struct
from typing import Any

import llvmlite.ir as ir

from codegen.errors import CodegenError
from codegen.llvm.context import FunctionContext
from codegen.llvm.dtypes import (
    I32,
    constant,
    intrinsic_suffix,
    is_float,
    is_unsigned,
    lanes_of,
    like,
    scalar_type,
    unify,
)
from ir.tir.intrinsic_names import INTEGER_INTRINSICS

_LLVM_INTRINSICS = {
    "exp": "llvm.exp",
    "log": "llvm.log",
    "sqrt": "llvm.sqrt",
    "fabs": "llvm.fabs",
    "floor": "llvm.floor",
    "ceil": "llvm.ceil",
    "round": "llvm.roundeven",
    "trunc": "llvm.trunc",
    "pow": "llvm.pow",
    "sin": "llvm.sin",
    "cos": "llvm.cos",
}
_LIBM = {
    "tanh": ("tanhf", "tanh"),
    "erf": ("erff", "erf"),
    "tan": ("tanf", "tan"),
    "asin": ("asinf", "asin"),
    "acos": ("acosf", "acos"),
    "atan": ("atanf", "atan"),
    "sinh": ("sinhf", "sinh"),
    "cosh": ("coshf", "cosh"),
    "asinh": ("asinhf", "asinh"),
    "acosh": ("acoshf", "acosh"),
    "atanh": ("atanhf", "atanh"),
}


def emit_intrinsic(ctx: FunctionContext, name: str, args: list[Any], dtype: str) -> Any:
    """Apply math intrinsic `name` to already emitted `args` of float `dtype` (of an
    integer dtype for the bitwise ones)."""
    if name == "reinterpret":
        return ctx.builder.bitcast(args[0], like(args[0], scalar_type(dtype)))
    if name in INTEGER_INTRINSICS:
        return _emit_bitwise(ctx.builder, name, unify(ctx.builder, *args), dtype)
    if not is_float(dtype):
        raise CodegenError(f"math intrinsic {name}() needs a float argument; got {dtype}")
    args = unify(ctx.builder, *args)
    if name in _INLINE and _is_float32(args[0]):
        return _INLINE[name](ctx, args[0])
    if name in _LLVM_INTRINSICS:
        return call_llvm_intrinsic(ctx, _LLVM_INTRINSICS[name], args)
    if name in _LIBM:
        return _call_libm(ctx, name, args[0], dtype)
    builder = ctx.builder
    one = constant(args[0].type, 1.0)
    if name == "sigmoid":
        exp_neg = _exp(ctx, builder.fneg(args[0]))
        return builder.fdiv(one, builder.fadd(one, exp_neg))
    if name == "rsqrt":
        return builder.fdiv(one, call_llvm_intrinsic(ctx, "llvm.sqrt", args))
    raise CodegenError(f"unknown math intrinsic {name!r}")


def _emit_bitwise(builder: ir.IRBuilder, name: str, args: list[Any], dtype: str) -> Any:
    if is_float(dtype):
        raise CodegenError(f"bitwise intrinsic {name}() needs an integer argument; got {dtype}")
    if name == "bitwise_not":
        return builder.not_(args[0])
    lhs, rhs = args
    if name == "bitwise_and":
        return builder.and_(lhs, rhs)
    if name == "bitwise_or":
        return builder.or_(lhs, rhs)
    if name == "bitwise_xor":
        return builder.xor(lhs, rhs)
    if name == "shift_left":
        return builder.shl(lhs, rhs)
    return builder.lshr(lhs, rhs) if is_unsigned(dtype) else builder.ashr(lhs, rhs)


def call_llvm_intrinsic(ctx: FunctionContext, base: str, args: list[Any]) -> Any:
    """Call the LLVM intrinsic `base` overloaded on the type of `args` (all alike)."""
    type_ = args[0].type
    function_type = ir.FunctionType(type_, [type_] * len(args))
    intrinsic = ctx.module_ctx.declare(f"{base}.{intrinsic_suffix(type_)}", function_type)
    return ctx.builder.call(intrinsic, args)


def _call_libm(ctx: FunctionContext, name: str, value: Any, dtype: str) -> Any:
    builder = ctx.builder
    lanes = lanes_of(value)
    if lanes > 1:
        result = ir.Constant(value.type, ir.Undefined)
        for lane in range(lanes):
            element = builder.extract_element(value, I32(lane))
            mapped = _call_libm(ctx, name, element, dtype)
            result = builder.insert_element(result, mapped, I32(lane))
        return result
    single, double = _LIBM[name]
    if dtype == "float64":
        function_type = ir.FunctionType(ir.DoubleType(), [ir.DoubleType()])
        return builder.call(ctx.module_ctx.declare(double, function_type), [value])
    # float32, and float16 computed in float32.
    function_type = ir.FunctionType(ir.FloatType(), [ir.FloatType()])
    function = ctx.module_ctx.declare(single, function_type)
    if dtype == "float16":
        wide = builder.call(function, [builder.fpext(value, ir.FloatType())])
        return builder.fptrunc(wide, ir.HalfType())
    return builder.call(function, [value])


# exp of float32, inline: LLVM has no vector expf and calls libm's lane by lane
# (softmax over 12 x 197 x 197 spent most of its 1 ms there). Cody-Waite reduction
# x = n ln2 + r, |r| <= ln2 / 2, then Cephes' degree-6 polynomial for e^r (within 2 ulp
# of expf), scaled by 2^n built in the exponent bits as two halves (n reaches 128 and,
# for results below the normal range, -150). The input is clamped to [_EXP_LOW,
# _EXP_CLAMP_HIGH], where the scaling itself overflows to +inf above ln(FLT_MAX) and
# rounds to 0 at the low end, and NaN passes through every step: no fix-ups at the end.
_EXP_LOW = -103.97208404541016  # at and below: 0 (e^x under half the smallest denormal)
_EXP_CLAMP_HIGH = 89.0  # above ln(FLT_MAX) = 88.7228...: the result overflows to +inf
_ROUNDING_BIAS = 12582912.0  # 1.5 * 2^23: adding it rounds to an integer, kept in the bits
_LOG2E = 1.4426950408889634
_LN2_HIGH, _LN2_LOW = 0.693359375, -2.12194440e-4
_EXP_POLYNOMIAL = (
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
)


def _exp(ctx: FunctionContext, value: Any) -> Any:
    """e ** value: inline for float32 (scalars and vectors), else the LLVM intrinsic."""
    vector = value.type
    if not _is_float32(value):
        return call_llvm_intrinsic(ctx, "llvm.exp", [value])
    builder = ctx.builder
    ints = (
        ir.VectorType(ir.IntType(32), vector.count)
        if isinstance(vector, ir.VectorType)
        else ir.IntType(32)
    )

    def real(number: float) -> Any:
        return constant(vector, number)

    def integer(number: int) -> Any:
        return constant(ints, number)

    def mul(lhs: Any, rhs: Any) -> Any:
        return builder.fmul(lhs, rhs, flags=("contract",))

    def add(lhs: Any, rhs: Any) -> Any:
        return builder.fadd(lhs, rhs, flags=("contract",))

    # Step 1. Clamp (ordered compares: a NaN lane keeps its NaN).
    low, high = real(_EXP_LOW), real(_EXP_CLAMP_HIGH)
    x = builder.select(builder.fcmp_ordered("<", value, low), low, value)
    x = builder.select(builder.fcmp_ordered(">", x, high), high, x)
    # Step 2. n = x log2(e) rounded to the nearest integer: adding 1.5 * 2^23 leaves n in
    # the low bits of the sum (read in step 4), and subtracting it again gives n as a float.
    biased = add(mul(x, real(_LOG2E)), real(_ROUNDING_BIAS))
    n = builder.fsub(biased, real(_ROUNDING_BIAS))
    # Step 3. r = x - n ln2 in two steps (ln2's high part is exact in few bits), then
    # e^r = 1 + r + r^2 P(r).
    r = builder.fsub(builder.fsub(x, mul(n, real(_LN2_HIGH))), mul(n, real(_LN2_LOW)))
    polynomial = _polynomial(builder, r, _EXP_POLYNOMIAL)
    e_r = add(add(mul(mul(polynomial, r), r), r), real(1.0))
    # Step 4. Times 2^n: AVX-512's vscalefps where a register holds the vector (it rounds
    # results in the denormal range and overflows as the product would), else as
    # 2^(n >> 1) * 2^(n - (n >> 1)), each factor a normal float.
    if isinstance(vector, ir.VectorType) and vector.count == 16 and ctx.target.vector_bits == 512:
        scalef = ctx.module_ctx.declare(
            "llvm.x86.avx512.mask.scalef.ps.512",
            ir.FunctionType(vector, [vector, vector, vector, ir.IntType(16), ir.IntType(32)]),
        )
        all_lanes, current_rounding = ir.Constant(ir.IntType(16), -1), I32(4)
        return builder.call(scalef, [e_r, n, e_r, all_lanes, current_rounding])
    exponent = builder.sub(builder.bitcast(biased, ints), integer(_float_bits(_ROUNDING_BIAS)))
    half = builder.ashr(exponent, integer(1))
    factors = [
        builder.bitcast(builder.shl(builder.add(part, integer(127)), integer(23)), vector)
        for part in (half, builder.sub(exponent, half))
    ]
    return mul(mul(e_r, factors[0]), factors[1])


def _float_bits(number: float) -> int:
    """The bits of float32 `number` as a signed 32-bit integer."""
    return int(struct.unpack("<i", struct.pack("<f", number))[0])


def _is_float32(value: Any) -> bool:
    """Whether `value` is a float32 scalar or vector: the inline functions' domain (a
    scalar too, so that a vector loop's one-lane tail does not call libm, saving and
    restoring the vector registers around the call)."""
    type_ = value.type
    return isinstance(type_.element if isinstance(type_, ir.VectorType) else type_, ir.FloatType)


def _polynomial(builder: ir.IRBuilder, variable: Any, coefficients: tuple[float, ...]) -> Any:
    """The polynomial of `coefficients` (highest power first) at `variable`, by Horner's
    rule (multiply-adds where the target has them)."""
    result = constant(variable.type, coefficients[0])
    for coefficient in coefficients[1:]:
        product = builder.fmul(result, variable, flags=("contract",))
        result = builder.fadd(product, constant(variable.type, coefficient), flags=("contract",))
    return result


# erf of float32 vectors, inline (libm's erff lane by lane made an erf-GELU's 197 x 3072
# elements cost 28x ONNX Runtime's time). Below |x| = 1/2 its Taylor series to x^13
# (error under 2e-8 relative); above, 1 - erfc(|x|) with Numerical Recipes' erfc,
# t exp(-x^2 + P(t)) for t = 1 / (1 + |x| / 2), under 1.2e-7 relative. The sign is x's.
_ERF_SERIES_LIMIT = 0.5
_ERF_SERIES = tuple(
    2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(7)
)
_ERFC_POLYNOMIAL = (
    0.17087277,
    -0.82215223,
    1.48851587,
    -1.13520398,
    0.27886807,
    -0.18628806,
    0.09678418,
    0.37409196,
    1.00002368,
    -1.26551223,
)


def _erf(ctx: FunctionContext, value: Any) -> Any:
    """erf(value) for a float32 vector (see above)."""
    builder = ctx.builder
    vector = value.type

    def real(number: float) -> Any:
        return constant(vector, number)

    magnitude = call_llvm_intrinsic(ctx, "llvm.fabs", [value])
    # Near zero: x P(x^2), P the series' coefficients from the highest power down.
    square = builder.fmul(magnitude, magnitude)
    near = builder.fmul(magnitude, _polynomial(builder, square, _ERF_SERIES[::-1]))
    # Further out: 1 - t exp(-x^2 + P(t)).
    t = builder.fdiv(real(1.0), builder.fadd(real(1.0), builder.fmul(magnitude, real(0.5))))
    exponent = builder.fadd(builder.fneg(square), _polynomial(builder, t, _ERFC_POLYNOMIAL))
    far = builder.fsub(real(1.0), builder.fmul(t, _exp(ctx, exponent)))
    result = builder.select(
        builder.fcmp_ordered("<", magnitude, real(_ERF_SERIES_LIMIT)), near, far
    )
    # The sign of x (erf is odd), and NaN stays NaN.
    result = call_llvm_intrinsic(ctx, "llvm.copysign", [result, value])
    return builder.select(builder.fcmp_unordered("uno", value, value), value, result)


# tanh of float32 vectors, inline, as Cephes' tanhf: below |x| = 0.625 an odd polynomial,
# x + x^3 P(x^2); above, 1 - 2 / (e^(2|x|) + 1) through the inline exp (which gives +inf,
# so 1, far out). The sign is x's.
_TANH_SERIES_LIMIT = 0.625
_TANH_POLYNOMIAL = (
    -5.70498872745e-3,
    2.06390887954e-2,
    -5.37397155531e-2,
    1.33314422036e-1,
    -3.33332819422e-1,
)


def _tanh(ctx: FunctionContext, value: Any) -> Any:
    """tanh(value) for a float32 vector (see above)."""
    builder = ctx.builder
    vector = value.type
    one = constant(vector, 1.0)
    magnitude = call_llvm_intrinsic(ctx, "llvm.fabs", [value])
    square = builder.fmul(value, value)
    polynomial = _polynomial(builder, square, _TANH_POLYNOMIAL)
    near = builder.fadd(
        builder.fmul(builder.fmul(polynomial, square), magnitude, flags=("contract",)),
        magnitude,
        flags=("contract",),
    )
    grown = _exp(ctx, builder.fadd(magnitude, magnitude))
    far = builder.fsub(one, builder.fdiv(constant(vector, 2.0), builder.fadd(grown, one)))
    limit = constant(vector, _TANH_SERIES_LIMIT)
    result = builder.select(builder.fcmp_ordered("<", magnitude, limit), near, far)
    result = call_llvm_intrinsic(ctx, "llvm.copysign", [result, value])  # (-0 too)
    return builder.select(builder.fcmp_unordered("uno", value, value), value, result)


# Computed here for float32 vectors (LLVM would call libm lane by lane).
_INLINE = {"exp": _exp, "erf": _erf, "tanh": _tanh}
