"""8-bit dot products: a 4-step reduction around a vectorized int32 accumulation becomes
one `vpdpbusd` per vector (AVX-512 VNNI, or AVX-VNNI for 256-bit vectors).

    for q in range(4):                      # serial or unrolled
        for c in range(L) vectorized:       # L = 16, 8 or 4 int32 lanes
            acc[i + c] = acc[i + c] + int32(a[j + q]) * int32(w[k + 4 * c + q])

with one of `a`, `w` uint8 and the other int8 (`a`'s load possibly guarded by a condition
that holds for all 4 bytes, a fill value elsewhere: padding): `a`'s 4 bytes are one int32
broadcast to
every lane, `w`'s 4 * L bytes one vector (each lane's 4 bytes adjacent, as
qnn.conv2d_nchwc lays its weight out), and vpdpbusd adds each lane's 4 byte products to
it. Integer sums are exact in any order, so this is the loop's own result. Where the
pattern or the instruction is missing, the loops are emitted as they are (LLVM widens
the bytes to int32 and multiplies).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import llvmlite.ir as ir

from codegen.llvm.affine import depends_on, linear_coefficient
from codegen.llvm.context import FunctionContext
from codegen.llvm.dtypes import I32, I64, splat
from codegen.llvm.exprs import emit_expr, emit_index
from codegen.llvm.memory import element_pointer, load_contiguous, store_contiguous
from ir.tir.expr import Binary, Cast, IntImm, Load, PrimExpr, Select, Var
from ir.tir.stmt import For, Store
from ir.tir.visit import substitute

DOT_WIDTH = 4
_BYTE_TYPES = frozenset({"uint8", "int8"})


@dataclass(frozen=True)
class _DotProduct:
    """The matched nest: `store` accumulates unsigned bytes `unsigned` times signed bytes
    `signed` over `step` (4 values) for each lane of `lane` (`lanes` values);
    `broadcast` says which operand is the same for every lane."""

    step: Var
    lane: Var
    lanes: int
    store: Store
    unsigned: Load
    signed: Load
    broadcast: Load
    vector: Load
    guard: Select | None  # select(condition, broadcast, fill): inlined padding


def emit_dot_product(ctx: FunctionContext, loop: For) -> bool:
    """Emit `loop` as vpdpbusd instructions (module docstring) and return True, or return
    False, emitting nothing, when it is not that pattern or the target lacks them."""
    if ctx.vector_var is not None or ctx.mask is not None:
        return False
    found = _match(ctx, loop)
    width = 0 if found is None else _instruction_lanes(ctx, found.lanes)
    if found is None or not width:
        return False
    builder = ctx.builder
    first_lane: dict[Var, PrimExpr] = {
        found.step: IntImm(0, found.step.dtype),
        found.lane: IntImm(0, found.lane.dtype),
    }
    vector_type = ir.VectorType(I32, width)
    function = ctx.module_ctx.declare(
        f"llvm.x86.avx512.vpdpbusd.{width * 32}",
        ir.FunctionType(vector_type, [vector_type, vector_type, vector_type]),
    )
    broadcast = _broadcast_bytes(ctx, found, first_lane, width)
    vector_index = emit_index(ctx, substitute(found.vector.index, first_lane))
    store = found.store
    first = emit_index(ctx, substitute(store.index, first_lane))
    for chunk in range(0, found.lanes, width):
        offset = I64(chunk)
        address = element_pointer(
            ctx, found.vector.buffer, builder.add(vector_index, I64(chunk * DOT_WIDTH))
        )
        vector = builder.load(address, typ=vector_type, align=1)
        start = builder.add(first, offset)
        accumulator = load_contiguous(ctx, store.buffer, start, width)
        operands = (broadcast, vector) if found.broadcast is found.unsigned else (vector, broadcast)
        total = builder.call(function, [accumulator, *operands])
        store_contiguous(ctx, store.buffer, start, total)
    return True


def _broadcast_bytes(
    ctx: FunctionContext, found: _DotProduct, first_lane: dict[Var, PrimExpr], width: int
) -> Any:
    """The broadcast operand's 4 bytes as one int32 in every lane (the padding value's
    bytes where its guard is false)."""
    builder = ctx.builder
    load = found.broadcast
    index = emit_index(ctx, substitute(load.index, first_lane))
    address = element_pointer(ctx, load.buffer, index)
    if found.guard is not None:  # outside, read the fill's 4 bytes instead
        condition = emit_expr(ctx, found.guard.condition)
        address = builder.select(condition, address, _fill_bytes(ctx, found.guard.false_value))
    return splat(builder, builder.load(address, typ=I32, align=1), width)


def _fill_bytes(ctx: FunctionContext, fill: PrimExpr) -> Any:
    """A pointer to 4 constant bytes of the padding value `fill`."""
    assert isinstance(fill, IntImm)
    byte = fill.value & 0xFF
    module = ctx.module_ctx.module
    name = f"dot_fill_{byte}"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    array = ir.ArrayType(ir.IntType(8), DOT_WIDTH)
    variable = ir.GlobalVariable(module, array, name)
    variable.global_constant = True
    variable.linkage = "private"
    variable.initializer = ir.Constant(array, [byte] * DOT_WIDTH)
    return variable


def _instruction_lanes(ctx: FunctionContext, lanes: int) -> int:
    """The lanes of each vpdpbusd that `lanes` int32 lanes are computed in (several
    instructions when the target's are narrower); 0 when the target has none that fit."""
    target = ctx.target
    widest = target.dot_product_lanes
    if widest == 16 and lanes < 16 and not target.has_feature("avx512vl"):
        return 0
    if widest == 0 or (lanes > widest and lanes % widest):
        return 0
    return min(lanes, widest)


def _match(ctx: FunctionContext, loop: For) -> _DotProduct | None:
    """`loop` as a dot-product nest, or None."""
    if loop.kind not in ("serial", "unrolled") or not (
        isinstance(loop.extent, IntImm) and loop.extent.value == DOT_WIDTH
    ):
        return None
    inner = loop.body
    if not (
        isinstance(inner, For)
        and inner.kind == "vectorized"
        and isinstance(inner.extent, IntImm)
        and inner.extent.value in (4, 8, 16)
        and isinstance(inner.body, Store)
    ):
        return None
    store, step, lane = inner.body, loop.var, inner.var
    opaque = ctx.opaque_vars
    if store.buffer.dtype != "int32" or linear_coefficient(store.index, lane, opaque) != 1:
        return None
    if depends_on(store.index, {step}):
        return None
    product = _accumulated(store)
    if product is None:
        return None
    operands = _byte_operands(product)
    if operands is None:
        return None
    loads, guard = operands
    if guard is not None and depends_on(guard.condition, {step, lane}):
        return None
    broadcast = [load for load in loads if not depends_on(load.index, {lane})]
    vector = [load for load in loads if linear_coefficient(load.index, lane, opaque) == DOT_WIDTH]
    if len(broadcast) != 1 or len(vector) != 1:
        return None
    if any(linear_coefficient(load.index, step, opaque) != 1 for load in loads):
        return None
    if any(load.buffer == store.buffer for load in loads):
        return None
    unsigned = [load for load in loads if load.buffer.dtype == "uint8"]
    signed = [load for load in loads if load.buffer.dtype == "int8"]
    if len(unsigned) != 1 or len(signed) != 1:
        return None
    if guard is not None and guard.true_value is not broadcast[0]:
        return None
    return _DotProduct(
        step,
        lane,
        inner.extent.value,
        store,
        unsigned[0],
        signed[0],
        broadcast[0],
        vector[0],
        guard,
    )


def _accumulated(store: Store) -> PrimExpr | None:
    """What `store` adds to the element it stores to, if it is `acc = acc + x`."""
    value = store.value
    if not isinstance(value, Binary) or value.op != "add":
        return None
    accumulator = Load(store.buffer, store.index)
    if value.lhs == accumulator:
        return value.rhs
    if value.rhs == accumulator:
        return value.lhs
    return None


def _byte_operands(product: PrimExpr) -> tuple[tuple[Load, Load], Select | None] | None:
    """The two byte loads of `int32(a) * int32(b)`, one of them possibly guarded as
    `select(condition, load, constant)` (padding inlined into the conv), and that
    guard; or None."""
    if not isinstance(product, Binary) or product.op != "mul" or product.dtype != "int32":
        return None
    loads: list[Load] = []
    guards: list[Select] = []
    for side in (product.lhs, product.rhs):
        if not isinstance(side, Cast) or side.dtype != "int32":
            return None
        value = side.value
        if (
            isinstance(value, Select)
            and isinstance(value.true_value, Load)
            and isinstance(value.false_value, IntImm)
        ):
            guards.append(value)
            value = value.true_value
        if not isinstance(value, Load) or value.buffer.dtype not in _BYTE_TYPES:
            return None
        loads.append(value)
    if len(guards) > 1:
        return None
    return (loads[0], loads[1]), (guards[0] if guards else None)
