"""Scalar expressions of the loop IR as LLVM values, scalar or vector.

Every expression is emitted by one function whatever the lane count: the result is
a vector exactly when it depends on the vectorized loop variable, and scalars are
broadcast where they meet vectors. Float arithmetic carries the `contract` flag so
LLVM may fuse multiplies and adds into FMAs; nothing else is relaxed.

A select (and the right side of `&&` / `||`) evaluates a side only where it is taken
when evaluating it elsewhere could fault - padding reads `A[i - 1]` out of bounds in
the lanes the condition rejects, divisions may divide by zero there: with a branch
when the condition is one scalar, with masked loads (and divisors forced to 1 in the
off lanes) when it is a vector of lanes. Cheap sides stay a branch-free `select`.
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
import numpy as np

from codegen.errors import CodegenError
from codegen.llvm.affine import is_non_negative
from codegen.llvm.context import FunctionContext
from codegen.llvm.dtypes import (
    I1,
    check_dtype,
    constant,
    float_bits,
    int_bits,
    intrinsic_suffix,
    is_float,
    is_storage,
    is_unsigned,
    lanes_of,
    like,
    narrow_bits,
    scalar_type,
    splat,
    unify,
    wrap_narrow,
)
from codegen.llvm.intrinsics import call_llvm_intrinsic, emit_intrinsic
from codegen.llvm.memory import (
    Access,
    classify_access,
    gather,
    load_contiguous,
    load_scalar,
    load_strided,
    to_index,
)
from codegen.llvm.value_ranges import within_float32_exact
from ir.graph.types import integer_limits
from ir.tir.expr import (
    Binary,
    Call,
    Cast,
    Compare,
    FloatImm,
    IntImm,
    Load,
    Logical,
    PrimExpr,
    Select,
    Var,
)
from ir.tir.visit import walk_expr

CONTRACT = ("contract",)
_FLOAT_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def emit_expr(ctx: FunctionContext, expr: PrimExpr) -> Any:
    """Emit `expr` at the builder's position and return its value."""
    if isinstance(expr, IntImm | FloatImm):
        check_dtype(expr.dtype)
        if is_storage(expr.dtype):  # the constant's bits in the type's encoding
            bits = np.asarray(expr.value, dtype=expr.dtype).view(f"uint{int_bits(expr.dtype)}")
            return ir.Constant(scalar_type(expr.dtype), int(bits))
        return ir.Constant(scalar_type(expr.dtype), expr.value)
    if isinstance(expr, Var):
        return ctx.lookup(expr)
    if isinstance(expr, Binary):
        return _emit_binary(ctx, expr)
    if isinstance(expr, Compare):
        return _emit_compare(ctx, expr)
    if isinstance(expr, Logical):
        return _emit_logical(ctx, expr)
    if isinstance(expr, Select):
        return _emit_select(ctx, expr)
    if isinstance(expr, Cast):
        return emit_cast(ctx, emit_expr(ctx, expr.value), expr.value.dtype, expr.dtype)
    if isinstance(expr, Call):
        args = [emit_expr(ctx, arg) for arg in expr.args]
        return emit_intrinsic(ctx, expr.name, args, expr.dtype)
    if isinstance(expr, Load):
        return _emit_load(ctx, expr)
    raise CodegenError(
        f"{type(expr).__name__} cannot be compiled: lower the program to loop IR first (got {expr})"
    )


def emit_index(ctx: FunctionContext, expr: PrimExpr) -> Any:
    """Emit an integer index expression as i64 (scalar, or a vector of i64)."""
    if is_float(expr.dtype) or expr.dtype == "bool":
        raise CodegenError(f"a buffer index must be an integer; got {expr.dtype} index {expr}")
    return to_index(ctx, emit_expr(ctx, expr), expr.dtype)


def _emit_load(ctx: FunctionContext, load: Load) -> Any:
    access = classify_access(ctx, load.index)
    if access.kind == "contiguous":
        first = emit_index(ctx, access.index)
        if lanes_of(first) == 1:
            return load_contiguous(ctx, load.buffer, first, ctx.lanes, ctx.mask)
        access = Access("scattered", load.index)  # lane 0's index came out per lane
    if access.kind == "strided":
        first = emit_index(ctx, access.index)
        if lanes_of(first) == 1:
            return load_strided(ctx, load.buffer, first, ctx.lanes, access.step, ctx.mask)
        access = Access("scattered", load.index)
    index = emit_index(ctx, access.index)
    if lanes_of(index) == 1 and ctx.mask is not None:
        # One element for every lane: read where a lane is on, else element 0 (which
        # every buffer has), so the read needs no branch and no gather.
        index = ctx.builder.select(_any_lane(ctx), index, constant(index.type, 0))
    if lanes_of(index) == 1:
        return load_scalar(ctx, load.buffer, index)
    return gather(ctx, load.buffer, index, ctx.mask)


def _needs_guard(expr: PrimExpr, evaluated: PrimExpr) -> bool:
    """Whether evaluating `expr` where it is not wanted could fault: it reads memory
    (the index may be out of bounds there) or divides integers by a variable. Loads
    that `evaluated` (a condition, run anyway) already performs are safe."""
    safe = {node for node in walk_expr(evaluated) if isinstance(node, Load)}
    for node in walk_expr(expr):
        if isinstance(node, Load) and node not in safe:
            return True
        if (
            isinstance(node, Binary)
            and node.op in ("div", "floordiv", "floormod")
            and not is_float(node.dtype)
            and not (isinstance(node.rhs, IntImm) and node.rhs.value != 0)
        ):
            return True
    return False


def _emit_select(ctx: FunctionContext, expr: Select) -> Any:
    """`condition ? true_value : false_value`, evaluating a side only where it is taken
    when evaluating it elsewhere could fault (padding reads out of bounds, say)."""
    if expr.true_value.dtype != expr.false_value.dtype or expr.condition.dtype != "bool":
        raise CodegenError(
            f"select needs a bool condition and sides of one dtype; got {expr.condition.dtype}"
            f" ? {expr.true_value.dtype} : {expr.false_value.dtype} in {expr}"
        )
    condition = emit_expr(ctx, expr.condition)
    guarded = _needs_guard(expr.true_value, expr.condition) or _needs_guard(
        expr.false_value, expr.condition
    )
    if not guarded:
        values = unify(
            ctx.builder,
            condition,
            emit_expr(ctx, expr.true_value),
            emit_expr(ctx, expr.false_value),
        )
        return ctx.builder.select(*values)
    if lanes_of(condition) == 1:
        return _branch(ctx, condition, expr.true_value, expr.false_value)
    true_value = _emit_masked(ctx, condition, expr.true_value)
    false_value = _emit_masked(ctx, _invert(ctx, condition), expr.false_value)
    return ctx.builder.select(*unify(ctx.builder, condition, true_value, false_value))


def _invert(ctx: FunctionContext, value: Any) -> Any:
    return ctx.builder.xor(value, constant(value.type, 1))


def _emit_masked(ctx: FunctionContext, mask: Any, expr: PrimExpr) -> Any:
    """Emit `expr` for the lanes of `mask` only (within the lanes already masked)."""
    saved = ctx.mask
    ctx.mask = mask if saved is None else ctx.builder.and_(*unify(ctx.builder, saved, mask))
    try:
        return emit_expr(ctx, expr)
    finally:
        ctx.mask = saved


def _branch(ctx: FunctionContext, condition: Any, if_true: PrimExpr, if_false: PrimExpr) -> Any:
    """`condition ? if_true : if_false` with control flow: only one side runs."""
    builder = ctx.builder
    true_block = builder.append_basic_block("select.true")
    false_block = builder.append_basic_block("select.false")
    merge_block = builder.append_basic_block("select.end")
    builder.cbranch(condition, true_block, false_block)
    ends = []
    for block, side in ((true_block, if_true), (false_block, if_false)):
        builder.position_at_end(block)
        ends.append((emit_expr(ctx, side), builder.block))
    # Step 2. Widen a scalar side to the other's lanes at the end of its own block.
    lanes = max(lanes_of(value) for value, _ in ends)
    incoming = []
    for value, end in ends:
        builder.position_at_end(end)
        widened = splat(builder, value, lanes)
        builder.branch(merge_block)
        incoming.append((widened, end))
    builder.position_at_end(merge_block)
    phi = builder.phi(incoming[0][0].type)
    for value, end in incoming:
        phi.add_incoming(value, end)
    return phi


def _emit_binary(ctx: FunctionContext, expr: Binary) -> Any:
    if expr.lhs.dtype != expr.rhs.dtype:
        raise CodegenError(
            f"{expr.op}: operand dtypes differ ({expr.lhs.dtype} vs {expr.rhs.dtype}) in {expr}"
        )
    lhs, rhs = unify(ctx.builder, emit_expr(ctx, expr.lhs), emit_expr(ctx, expr.rhs))
    if is_float(expr.dtype):
        return _float_binary(ctx, expr.op, lhs, rhs)
    if expr.op in ("div", "floordiv", "floormod") and _divides_in_float32(ctx, expr, lhs):
        return _float32_div_mod(ctx, expr.op, lhs, rhs)
    both_non_negative = is_non_negative(expr.lhs, ctx.non_negative) and is_non_negative(
        expr.rhs, ctx.non_negative
    )
    return _int_binary(ctx, expr.op, lhs, rhs, is_unsigned(expr.dtype) or both_non_negative)


def _float_binary(ctx: FunctionContext, op: str, lhs: Any, rhs: Any) -> Any:
    builder = ctx.builder
    if op == "add":
        return builder.fadd(lhs, rhs, flags=CONTRACT)
    if op == "sub":
        return builder.fsub(lhs, rhs, flags=CONTRACT)
    if op == "mul":
        return builder.fmul(lhs, rhs, flags=CONTRACT)
    if op == "div":
        return builder.fdiv(lhs, rhs)
    if op == "floordiv":
        return call_llvm_intrinsic(ctx, "llvm.floor", [builder.fdiv(lhs, rhs)])
    if op == "floormod":
        # numpy.remainder: C fmod, moved into the divisor's sign when the signs differ.
        remainder = builder.frem(lhs, rhs)
        zero = constant(lhs.type, 0.0)
        nonzero = builder.fcmp_ordered("!=", remainder, zero)
        signs_differ = builder.xor(
            builder.fcmp_ordered("<", remainder, zero), builder.fcmp_ordered("<", rhs, zero)
        )
        adjust = builder.and_(nonzero, signs_differ)
        return builder.select(adjust, builder.fadd(remainder, rhs), remainder)
    if op in ("min", "max"):
        # NaN in, NaN out (numpy's minimum and maximum): a max reduction over a NaN is
        # NaN, not the max of what follows it. The ordered compare picks lhs when lhs is
        # NaN (one vmaxps / vminps); the unordered one rhs when rhs is, which LLVM drops
        # when rhs is a constant (relu's 0).
        compare = builder.fcmp_ordered(">" if op == "max" else "<", rhs, lhs)
        ordered = builder.select(compare, rhs, lhs)
        return builder.select(builder.fcmp_unordered("uno", rhs, rhs), rhs, ordered)
    raise CodegenError(f"unknown binary op {op!r}")


def _int_binary(ctx: FunctionContext, op: str, lhs: Any, rhs: Any, unsigned: bool) -> Any:
    """Integer arithmetic; `unsigned` when both operands are known non-negative, which
    makes floor division the same as truncating division (and cheaper)."""
    builder = ctx.builder
    if op == "add":
        return builder.add(lhs, rhs)
    if op == "sub":
        return builder.sub(lhs, rhs)
    if op == "mul":
        return builder.mul(lhs, rhs)
    if op == "min":
        below = (
            builder.icmp_unsigned("<", lhs, rhs) if unsigned else builder.icmp_signed("<", lhs, rhs)
        )
        return builder.select(below, lhs, rhs)
    if op == "max":
        above = (
            builder.icmp_unsigned(">", lhs, rhs) if unsigned else builder.icmp_signed(">", lhs, rhs)
        )
        return builder.select(above, lhs, rhs)
    if op in ("div", "floordiv", "floormod") and ctx.mask is not None:
        lhs, rhs = _guard_divisor(ctx, lhs, rhs)
    if op in ("div", "floordiv", "floormod") and unsigned:
        return builder.urem(lhs, rhs) if op == "floormod" else builder.udiv(lhs, rhs)
    if op == "div":  # truncating division, as C (and TVM's truncdiv) does
        return builder.sdiv(lhs, rhs)
    if op in ("floordiv", "floormod"):
        return _signed_floor_div_mod(ctx, op, lhs, rhs)
    raise CodegenError(f"unknown binary op {op!r}")


def _divides_in_float32(ctx: FunctionContext, expr: Binary, lhs: Any) -> bool:
    """Whether integer division `expr`, emitted over lanes (`lhs`), is one float32
    divides exactly: x86 has no vector integer division, so LLVM would divide lane by
    lane. A constant divisor becomes a multiplication instead."""
    if lanes_of(lhs) == 1 or isinstance(expr.rhs, IntImm) or lhs.type.element.width < 32:
        return False
    module = ctx.module_ctx
    return within_float32_exact(expr.lhs, expr.rhs, module.var_ranges, module.interval_cache)


def _float32_div_mod(ctx: FunctionContext, op: str, lhs: Any, rhs: Any) -> Any:
    """Quotient (or remainder) of non-negative lanes below 2**24 through float32
    (`within_float32_exact`), by way of int32, which converts to and from float32 in one
    instruction on AVX2 as on AVX-512."""
    builder = ctx.builder
    lanes = lanes_of(lhs)
    int32 = ir.VectorType(ir.IntType(32), lanes)
    float32 = ir.VectorType(ir.FloatType(), lanes)
    wide = lhs.type.element.width > 32

    def to_float(value: Any) -> Any:
        return builder.sitofp(builder.trunc(value, int32) if wide else value, float32)

    quotient = builder.fptosi(builder.fdiv(to_float(lhs), to_float(rhs)), int32)
    if wide:
        quotient = builder.zext(quotient, lhs.type)
    if op == "floormod":
        return builder.sub(lhs, builder.mul(quotient, rhs))
    return quotient


def _any_lane(ctx: FunctionContext) -> Any:
    """Whether any lane of the current mask is on (an i1)."""
    mask_type = ctx.mask.type
    reduce_or = ctx.module_ctx.declare(
        f"llvm.vector.reduce.or.{intrinsic_suffix(mask_type)}", ir.FunctionType(I1, [mask_type])
    )
    return ctx.builder.call(reduce_or, [ctx.mask])


def _guard_divisor(ctx: FunctionContext, lhs: Any, rhs: Any) -> tuple[Any, Any]:
    """Under a lane mask, make the divisor 1 where the mask is off: those lanes may hold
    any divisor, zero included, and x86 traps on integer division by zero."""
    if isinstance(rhs, ir.Constant):
        values = rhs.constant if isinstance(rhs.constant, list) else [rhs.constant]
        if all(isinstance(value, int) and value != 0 for value in values):
            return lhs, rhs
    builder = ctx.builder
    one = constant(rhs.type, 1)
    if lanes_of(rhs) == 1:
        # A divisor shared by all lanes stays scalar: it is used if any lane is on.
        return lhs, builder.select(_any_lane(ctx), rhs, one)
    mask, rhs, one = unify(builder, ctx.mask, rhs, one)
    return splat(builder, lhs, lanes_of(rhs)), builder.select(mask, rhs, one)


def _signed_floor_div_mod(ctx: FunctionContext, op: str, lhs: Any, rhs: Any) -> Any:
    # Step 1. Truncating quotient and remainder (what the CPU computes).
    builder = ctx.builder
    quotient = builder.sdiv(lhs, rhs)
    remainder = builder.srem(lhs, rhs)
    # Step 2. They differ from floor semantics when the remainder is non-zero and its
    # sign differs from the divisor's: then the quotient is one too big and the
    # remainder must move into the divisor's sign.
    zero = constant(lhs.type, 0)
    nonzero = builder.icmp_signed("!=", remainder, zero)
    signs_differ = builder.icmp_signed("<", builder.xor(remainder, rhs), zero)
    adjust = builder.and_(nonzero, signs_differ)
    if op == "floordiv":
        return builder.sub(quotient, builder.zext(adjust, lhs.type))
    return builder.add(remainder, builder.select(adjust, rhs, zero))


def _emit_compare(ctx: FunctionContext, expr: Compare) -> Any:
    if expr.lhs.dtype != expr.rhs.dtype:
        raise CodegenError(
            f"comparison operand dtypes differ ({expr.lhs.dtype} vs {expr.rhs.dtype}) in {expr}"
        )
    lhs, rhs = unify(ctx.builder, emit_expr(ctx, expr.lhs), emit_expr(ctx, expr.rhs))
    symbol = _FLOAT_COMPARE[expr.op]
    if is_float(expr.lhs.dtype):
        if expr.op == "ne":  # numpy: NaN != x is True
            return ctx.builder.fcmp_unordered(symbol, lhs, rhs)
        return ctx.builder.fcmp_ordered(symbol, lhs, rhs)
    if is_unsigned(expr.lhs.dtype):
        return ctx.builder.icmp_unsigned(symbol, lhs, rhs)
    return ctx.builder.icmp_signed(symbol, lhs, rhs)


def _emit_logical(ctx: FunctionContext, expr: Logical) -> Any:
    lhs = emit_expr(ctx, expr.lhs)
    if expr.op == "not" or expr.rhs is None:
        return _invert(ctx, lhs)
    if expr.op not in ("and", "or"):
        raise CodegenError(f"unknown logical op {expr.op!r}")
    if _needs_guard(expr.rhs, expr.lhs):
        # Short-circuit, as `i < n && A[i] > 0` needs: rhs only where it decides.
        decided = IntImm(int(expr.op == "or"), "bool")
        if lanes_of(lhs) == 1:
            if expr.op == "and":
                return _branch(ctx, lhs, expr.rhs, decided)
            return _branch(ctx, lhs, decided, expr.rhs)
        wanted = lhs if expr.op == "and" else _invert(ctx, lhs)
        rhs = _emit_masked(ctx, wanted, expr.rhs)
    else:
        rhs = emit_expr(ctx, expr.rhs)
    lhs, rhs = unify(ctx.builder, lhs, rhs)
    if expr.op == "and":
        return ctx.builder.and_(lhs, rhs)
    return ctx.builder.or_(lhs, rhs)


def _double_to_half(builder: ir.IRBuilder, value: Any) -> Any:
    """float64 to float16 rounded once, to nearest even. LLVM lowers the direct fptrunc to a
    runtime-library call the JIT does not resolve (the process died on it), and going
    through float32 would round twice; rounding to float32 *to odd* (truncate, then set the
    last bit when inexact) keeps enough of the dropped bits for the second rounding to be
    exact, since float32 has more than two bits beyond float16's."""
    single = builder.fptrunc(value, like(value, ir.FloatType()))
    back = builder.fpext(single, value.type)
    zero = constant(value.type, 0.0)
    negative = builder.fcmp_ordered("<", value, zero)
    away = builder.select(
        negative,
        builder.fcmp_ordered("<", back, value),
        builder.fcmp_ordered(">", back, value),
    )
    inexact = builder.fcmp_ordered("!=", back, value)  # false for NaN: left as it is
    bits_type = like(value, ir.IntType(32))
    bits = builder.bitcast(single, bits_type)
    bits = builder.sub(bits, builder.zext(away, bits_type))  # toward zero: the magnitude's bits
    bits = builder.or_(bits, builder.zext(inexact, bits_type))
    odd = builder.bitcast(bits, like(value, ir.FloatType()))
    return builder.fptrunc(odd, like(value, ir.HalfType()))


def _zero_outside(builder: ir.IRBuilder, value: Any, byte: Any, dest: str) -> Any:
    """`byte` (float `value` truncated) where `value` truncates into sub-byte `dest`'s
    range, else 0: what numpy's astype (ml_dtypes >= 0.7) gives a float out of range."""
    low, high = integer_limits(dest)
    above = builder.fcmp_ordered(">", value, constant(value.type, low - 1.0))
    below = builder.fcmp_ordered("<", value, constant(value.type, high + 1.0))
    inside = builder.and_(above, below)
    return builder.select(inside, byte, constant(byte.type, 0))


def emit_cast(ctx: FunctionContext, value: Any, source: str, dest: str) -> Any:
    """Convert `value` from dtype `source` to `dest` with numpy's `astype` semantics
    (floats to integers truncate toward zero; anything non-zero is True; to a sub-byte
    integer, integers wrap and floats out of its range give 0, as ml_dtypes' casts)."""
    check_dtype(dest)
    builder = ctx.builder
    if source == dest:
        return value
    if is_storage(source) or is_storage(dest):
        raise CodegenError(
            f"cast from {source} to {dest}: {source if is_storage(source) else dest} is kept "
            "as bits only; convert it through reinterpret and arithmetic on its bits"
        )
    if narrow_bits(source):  # in registers, an in-range i8
        source = "uint8" if is_unsigned(source) else "int8"
    if narrow_bits(dest):  # through a wide integer (no float-to-int overflow), wrapped
        wide = emit_cast(ctx, value, source, "int32")
        byte = builder.trunc(wide, like(value, scalar_type(dest)))
        if is_float(source):  # out of range (or NaN): 0, not wrapped
            return _zero_outside(builder, value, byte, dest)
        return wrap_narrow(builder, byte, dest)
    target_type = like(value, scalar_type(dest))
    if dest == "bool":
        zero = constant(value.type, 0.0 if is_float(source) else 0)
        if is_float(source):
            return builder.fcmp_unordered("!=", value, zero)
        return builder.icmp_unsigned("!=", value, zero)
    if is_float(source) and is_float(dest):
        if float_bits(dest) > float_bits(source):
            return builder.fpext(value, target_type)
        if source == "float64" and dest == "float16":
            return _double_to_half(builder, value)
        return builder.fptrunc(value, target_type)
    if is_float(source):
        if is_unsigned(dest):
            return builder.fptoui(value, target_type)
        return builder.fptosi(value, target_type)
    if is_float(dest):
        if is_unsigned(source):
            return builder.uitofp(value, target_type)
        return builder.sitofp(value, target_type)
    if int_bits(dest) < int_bits(source):
        return builder.trunc(value, target_type)
    if int_bits(dest) == int_bits(source):
        return value  # int32 <-> uint32: same bits
    if is_unsigned(source):
        return builder.zext(value, target_type)
    return builder.sext(value, target_type)
