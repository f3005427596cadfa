"""Buffer accesses: scalar loads and stores, and in vectorized loops contiguous vector
accesses, broadcasts, gathers and scatters, chosen by the index's step per lane.

Loads whose index steps by a small constant other than 0 and 1 (stride-2 convolutions
and pooling, reversed reads) are not gathered: contiguous vector loads cover exactly the
elements from the lowest lane's to the highest's, and a shuffle picks every lane's.
"""

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
    VOID,
    constant,
    intrinsic_suffix,
    is_unsigned,
    item_bytes,
    lanes_of,
    like,
    memory_type,
    narrow_bits,
    splat,
    wrap_narrow,
)
from ir.tir.expr import Buffer, IntImm, PrimExpr
from ir.tir.visit import substitute

# Steps per lane that loads read with contiguous vector loads and a shuffle instead of a
# gather. The loads span (lanes - 1) * |step| + 1 elements, so larger steps would load
# (and shuffle) mostly elements no lane wants.
STRIDED_LOAD_STEPS = frozenset({-4, -3, -2, -1, 2, 3, 4})


@dataclass(frozen=True, slots=True)
class Access:
    """How a vectorized loop touches memory at an index.

    kind: "uniform" (the same element for every lane: one scalar access),
    "contiguous" (lanes touch consecutive elements from `index`: one vector access),
    "strided" (lane k touches element `index + k * step`, step in STRIDED_LOAD_STEPS:
    vector loads and a shuffle when reading, per-lane stores when writing),
    or "scattered" (anything else: a gather or per-lane stores). `index` is the
    expression to evaluate: the element of lane 0 for contiguous and strided accesses.
    """

    kind: str
    index: PrimExpr
    step: int = 1


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
    if step in STRIDED_LOAD_STEPS:
        return Access("strided", substitute(expanded, {var: IntImm(0, var.dtype)}), step)
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
    if narrow_bits(dtype):
        return wrap_narrow(ctx.builder, value, dtype)
    return value


def _to_memory(ctx: FunctionContext, value: Any, dtype: str) -> Any:
    if dtype == "bool":
        return ctx.builder.zext(value, like(value, I8))
    bits = narrow_bits(dtype)
    if bits:  # only the value's bits, as ml_dtypes stores it (and compares bytes)
        return ctx.builder.and_(value, constant(value.type, (1 << bits) - 1))
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
    return _to_register(ctx, _read_contiguous(ctx, buffer, first, lanes, mask), buffer.dtype)


def _read_contiguous(
    ctx: FunctionContext, buffer: Buffer, first: Any, lanes: int, mask: Any
) -> Any:
    vector_type = ir.VectorType(memory_type(buffer.dtype), lanes)
    address = element_pointer(ctx, buffer, first)
    if mask is None:
        return ctx.builder.load(address, typ=vector_type, align=item_bytes(buffer.dtype))
    name = f"llvm.masked.load.{intrinsic_suffix(vector_type)}.p0"
    return _masked_read(ctx, name, address, buffer, mask, vector_type)


def load_strided(
    ctx: FunctionContext, buffer: Buffer, first: Any, lanes: int, step: int, mask: Any = None
) -> Any:
    """Load element `first + k * step` into lane k (scalar i64 `first`, constant `step`)
    with vector loads of the span the lanes touch, and a shuffle picking their elements.
    With a lane `mask`, only the elements of the lanes it selects are read.

    The loads never reach outside the span: it is covered by chunks of a power-of-two
    size of at most one register, the last one overlapping its neighbour rather than
    running past the span's end. Measured on icelake-server (one core) this is 4-14x
    faster than a gather. One `<span x T>` load, which LLVM splits into a tail of ever
    smaller loads, was within 25% of it for float32 and float64 but 2-5x slower for
    int8 and int16; a masked load of the next power of two was on par with AVX-512
    but 3-4x slower for int8 and int16 with AVX2, which has no byte or word masked loads.
    """
    # Step 1. The span runs from the lowest lane's element to the highest's: lane 0's
    # for a positive step, the last lane's for a negative one.
    span = (lanes - 1) * abs(step) + 1
    low = first if step > 0 else ctx.builder.add(first, I64((lanes - 1) * step))
    offsets = [k * step if step > 0 else (lanes - 1 - k) * -step for k in range(lanes)]
    # Step 2. Chunks: the element at offset e is read by chunk min(e // chunk, last).
    register_lanes = ctx.target.vector_lanes(item_bytes(buffer.dtype))
    chunk = min(register_lanes, 1 << (span.bit_length() - 1))
    starts = [*range(0, span - chunk, chunk), span - chunk]
    sources = [min(offset // chunk, len(starts) - 1) for offset in offsets]
    positions = [offset - starts[source] for offset, source in zip(offsets, sources, strict=True)]
    # Step 3. Load each chunk; under a lane mask, only the elements its wanted lanes need.
    lane_mask = None if mask is None else splat(ctx.builder, mask, lanes)
    chunks = []
    for number, start in enumerate(starts):
        address = ctx.builder.add(low, I64(start)) if start else low
        chunk_mask = None
        if lane_mask is not None:
            lane_at = {
                position: lane
                for lane, (source, position) in enumerate(zip(sources, positions, strict=True))
                if source == number
            }
            chunk_mask = _spread_mask(ctx, lane_mask, lane_at, chunk)
        chunks.append(_read_contiguous(ctx, buffer, address, chunk, chunk_mask))
    # Step 4. Concatenate the chunks and pick each lane's element.
    wide = _concatenate(ctx, chunks)
    picks = [chunk * source + position for source, position in zip(sources, positions, strict=True)]
    vector = ctx.builder.shuffle_vector(
        wide, ir.Constant(wide.type, ir.Undefined), ir.Constant(ir.VectorType(I32, lanes), picks)
    )
    return _to_register(ctx, vector, buffer.dtype)


def _spread_mask(ctx: FunctionContext, mask: Any, lane_at: dict[int, int], width: int) -> Any:
    """A <width x i1> mask whose element p is lane lane_at[p] of the lane `mask`, and
    clear where no lane reads."""
    lanes = lanes_of(mask)
    # Shuffle indices: lane k of `mask`, or `lanes` (the first element of an all-false
    # vector) for elements no lane reads.
    indices = [lane_at.get(position, lanes) for position in range(width)]
    return ctx.builder.shuffle_vector(
        mask, constant(mask.type, 0), ir.Constant(ir.VectorType(I32, width), indices)
    )


def _concatenate(ctx: FunctionContext, vectors: list[Any]) -> Any:
    """One vector of the elements of `vectors` (all of one type) in order, padded with
    undefined elements up to a power-of-two count of them."""
    while len(vectors) > 1:
        if len(vectors) % 2:
            vectors = [*vectors, ir.Constant(vectors[0].type, ir.Undefined)]
        count = 2 * vectors[0].type.count
        both = ir.Constant(ir.VectorType(I32, count), list(range(count)))
        vectors = [
            ctx.builder.shuffle_vector(vectors[i], vectors[i + 1], both)
            for i in range(0, len(vectors), 2)
        ]
    return vectors[0]


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


def store_contiguous(
    ctx: FunctionContext, buffer: Buffer, first: Any, value: Any, mask: Any = None
) -> None:
    """Store a vector to consecutive elements starting at scalar index `first`; with a
    lane `mask`, only the lanes it selects (llvm.masked.store)."""
    stored = _to_memory(ctx, value, buffer.dtype)
    address = element_pointer(ctx, buffer, first)
    if mask is None:
        ctx.builder.store(stored, address, align=item_bytes(buffer.dtype))
        return
    vector_type = stored.type
    mask_type = ir.VectorType(I1, vector_type.count)
    function_type = ir.FunctionType(VOID, [vector_type, address.type, I32, mask_type])
    name = f"llvm.masked.store.{intrinsic_suffix(vector_type)}.p0"
    intrinsic = ctx.module_ctx.declare(name, function_type)
    ctx.builder.call(intrinsic, [stored, address, I32(item_bytes(buffer.dtype)), mask])


def scatter(
    ctx: FunctionContext, buffer: Buffer, indices: Any, value: Any, mask: Any = None
) -> None:
    """Store lane k of `value` to element `indices[k]`, lane by lane in order, so that
    when lanes collide the highest lane wins, as the last iteration of a loop would; with
    a lane `mask`, only the lanes it selects."""
    lanes = max(lanes_of(indices), lanes_of(value), lanes_of(mask) if mask is not None else 1)
    indices = splat(ctx.builder, indices, lanes)
    value = splat(ctx.builder, value, lanes)
    for lane in range(lanes):
        index = ctx.builder.extract_element(indices, I32(lane))
        element = ctx.builder.extract_element(value, I32(lane))
        if mask is None:
            store_scalar(ctx, buffer, index, element)
            continue
        with ctx.builder.if_then(ctx.builder.extract_element(mask, I32(lane))):
            store_scalar(ctx, buffer, index, element)
