"""Math intrinsics of the loop IR (`Call` nodes) as LLVM intrinsics or libm calls.

exp, log, sqrt, fabs, floor, ceil, round, trunc, pow, sin and cos map to LLVM intrinsics
(vector forms included; LLVM expands or scalarises them). tanh and erf have no LLVM
intrinsic and call libm (`tanhf`, `erff`, ...) lane by lane. `round` rounds half to
even (llvm.roundeven), as numpy.round does. sigmoid is 1 / (1 + exp(-x)) and rsqrt
is 1 / sqrt(x).
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from codegen.errors import CodegenError
from codegen.llvm.context import FunctionContext
from codegen.llvm.dtypes import I32, constant, intrinsic_suffix, is_float, lanes_of, unify

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
_LIBM = {"tanh": ("tanhf", "tanh"), "erf": ("erff", "erf")}


def emit_intrinsic(ctx: FunctionContext, name: str, args: list[Any], dtype: str) -> Any:
    """Apply math intrinsic `name` to already emitted `args` of float `dtype`."""
    if not is_float(dtype):
        raise CodegenError(f"math intrinsic {name}() needs a float argument; got {dtype}")
    args = unify(ctx.builder, *args)
    if name in _LLVM_INTRINSICS:
        return call_llvm_intrinsic(ctx, _LLVM_INTRINSICS[name], args)
    if name in _LIBM:
        return _call_libm(ctx, name, args[0], dtype)
    builder = ctx.builder
    one = constant(args[0].type, 1.0)
    if name == "sigmoid":
        exp_neg = call_llvm_intrinsic(ctx, "llvm.exp", [builder.fneg(args[0])])
        return builder.fdiv(one, builder.fadd(one, exp_neg))
    if name == "rsqrt":
        return builder.fdiv(one, call_llvm_intrinsic(ctx, "llvm.sqrt", args))
    raise CodegenError(f"unknown math intrinsic {name!r}")


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
