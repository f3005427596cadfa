"""Buffer accesses: scalar loads and stores, and in vectorized loops contiguous vector
accesses, broadcasts, gathers and scatters, chosen by the index's step per lane."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import llvmlite.ir as ir

from codegen.llvm.affine import linear_coefficient
from codegen.llvm.context import FunctionContext
from codegen.llvm.dtypes import (
    I1,
    I8,
    I32,
    I64,
    PTR,
    constant,
    intrinsic_suffix,
    is_unsigned,
    item_bytes,
    lanes_of,
    like,
    memory_type,
    splat,
)
from ir.tir.expr import Buffer, IntImm, PrimExpr
from ir.tir.visit import substitute


@dataclass(frozen=True, slots=True)
class Access:
    """How a vectorized loop touches memory at an index.

    kind: "uniform" (the same element for every lane: one scalar access),
    "contiguous" (lanes touch consecutive elements from `index`: one vector access),
    or "scattered" (anything else: a gather or per-lane stores). `index` is the
    expression to evaluate: the element of lane 0 for contiguous accesses.
    """

    kind: str
    index: PrimExpr


def classify_access(ctx: FunctionContext, index: PrimExpr) -> Access:
    """Decide how the current (possibly vectorized) code accesses element `index`."""
    var = ctx.vector_var
    if var is None:
        return Access("uniform", index)
    expanded = substitute(index, ctx.vector_lets)
    step = linear_coefficient(expanded, var, ctx.opaque_vars)
    if step == 0:
        return Access("uniform", expanded)
    if step == 1:
        return Access("contiguous", substitute(expanded, {var: IntImm(0, var.dtype)}))
    return Access("scattered", index)


def to_index(ctx: FunctionContext, value: Any, dtype: str) -> Any:
    """An integer index value (scalar or vector) widened to i64."""
    element = value.type.element if isinstance(value.type, ir.VectorType) else value.type
    if element.width == 64:
        return value
    wide = like(value, I64)
    if is_unsigned(dtype):
        return ctx.builder.zext(value, wide)
    return ctx.builder.sext(value, wide)


def element_pointer(ctx: FunctionContext, buffer: Buffer, index: Any) -> Any:
    """Address of element `index` (i64, or a vector of i64 giving a vector of pointers)."""
    address = ctx.builder.gep(
        ctx.pointer(buffer), [index], inbounds=True, source_etype=memory_type(buffer.dtype)
    )
    lanes = lanes_of(index)
    if lanes > 1:
        address.type = ir.VectorType(PTR, lanes)  # llvmlite types vector GEPs as scalar
    return address


def _to_register(ctx: FunctionContext, value: Any, dtype: str) -> Any:
    if dtype == "bool":
        return ctx.builder.icmp_unsigned("!=", value, constant(value.type, 0))
    return value


def _to_memory(ctx: FunctionContext, value: Any, dtype: str) -> Any:
    if dtype == "bool":
        return ctx.builder.zext(value, like(value, I8))
    return value


def load_scalar(ctx: FunctionContext, buffer: Buffer, index: Any) -> Any:
    """Load one element."""
    raw = ctx.builder.load(
        element_pointer(ctx, buffer, index),
        typ=memory_type(buffer.dtype),
        align=item_bytes(buffer.dtype),
    )
    return _to_register(ctx, raw, buffer.dtype)


def load_contiguous(
    ctx: FunctionContext, buffer: Buffer, first: Any, lanes: int, mask: Any = None
) -> Any:
    """Load `lanes` consecutive elements starting at scalar index `first`; with a lane
    `mask`, only the lanes it selects are read (llvm.masked.load; others read as 0)."""
    vector_type = ir.VectorType(memory_type(buffer.dtype), lanes)
    address = element_pointer(ctx, buffer, first)
    if mask is None:
        raw = ctx.builder.load(address, typ=vector_type, align=item_bytes(buffer.dtype))
    else:
        name = f"llvm.masked.load.{intrinsic_suffix(vector_type)}.p0"
        raw = _masked_read(ctx, name, address, buffer, mask, vector_type)
    return _to_register(ctx, raw, buffer.dtype)


def gather(ctx: FunctionContext, buffer: Buffer, indices: Any, mask: Any = None) -> Any:
    """Load one element per lane from a vector of indices (llvm.masked.gather), only for
    the lanes `mask` selects when it is given."""
    lanes = max(lanes_of(indices), lanes_of(mask) if mask is not None else 1)
    indices = splat(ctx.builder, indices, lanes)
    vector_type = ir.VectorType(memory_type(buffer.dtype), lanes)
    pointers = element_pointer(ctx, buffer, indices)
    name = f"llvm.masked.gather.{intrinsic_suffix(vector_type)}.{intrinsic_suffix(pointers.type)}"
    raw = _masked_read(ctx, name, pointers, buffer, mask, vector_type)
    return _to_register(ctx, raw, buffer.dtype)


def _masked_read(
    ctx: FunctionContext, name: str, address: Any, buffer: Buffer, mask: Any, vector_type: Any
) -> Any:
    # The (address, i32 align, mask, passthru) form of masked.load / masked.gather; LLVM 22
    # upgrades it to an align attribute on its own, and older LLVMs only know this form.
    mask_type = ir.VectorType(I1, vector_type.count)
    function_type = ir.FunctionType(vector_type, [address.type, I32, mask_type, vector_type])
    intrinsic = ctx.module_ctx.declare(name, function_type)
    if mask is None:
        mask = constant(mask_type, 1)
    arguments = [address, I32(item_bytes(buffer.dtype)), mask, constant(vector_type, 0)]
    return ctx.builder.call(intrinsic, arguments)


def store_scalar(ctx: FunctionContext, buffer: Buffer, index: Any, value: Any) -> None:
    """Store one element."""
    ctx.builder.store(
        _to_memory(ctx, value, buffer.dtype),
        element_pointer(ctx, buffer, index),
        align=item_bytes(buffer.dtype),
    )


def store_contiguous(ctx: FunctionContext, buffer: Buffer, first: Any, value: Any) -> None:
    """Store a vector to consecutive elements starting at scalar index `first`."""
    ctx.builder.store(
        _to_memory(ctx, value, buffer.dtype),
        element_pointer(ctx, buffer, first),
        align=item_bytes(buffer.dtype),
    )


def scatter(ctx: FunctionContext, buffer: Buffer, indices: Any, value: Any) -> None:
    """Store lane k of `value` to element `indices[k]`, lane by lane in order, so that
    when lanes collide the highest lane wins, as the last iteration of a loop would."""
    lanes = max(lanes_of(indices), lanes_of(value))
    indices = splat(ctx.builder, indices, lanes)
    value = splat(ctx.builder, value, lanes)
    for lane in range(lanes):
        store_scalar(
            ctx,
            buffer,
            ctx.builder.extract_element(indices, I32(lane)),
            ctx.builder.extract_element(value, I32(lane)),
        )
