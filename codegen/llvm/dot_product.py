"""8-bit dot products: a reduction over 4 adjacent bytes around a vectorized int32
accumulation becomes one dot-product instruction sequence per vector.

    for q in range(4):                      # serial or unrolled
        for c in range(L) vectorized:       # L = 16, 8 or 4 int32 lanes
            acc[i + c] = acc[i + c] + int32(a[j + q]) * int32(w[k + 4 * c + q])

or, summing each pair of bytes in int16 first (qnn.conv2d_nchwc's PAIR form, for
weights whose pair sums cannot leave int16),

    for p in range(2):
        for c in range(L) vectorized:
            acc[i + c] = acc[i + c] + int32(int16(a[j + 2p]) * int16(w[k + 4c + 2p])
                                          + int16(a[j + 2p + 1]) * int16(w[k + 4c + 2p + 1]))

or, with an int16 weight whose pairs lie 2 apart per lane (the WORD form, any weight),

    for p in range(2):
        for c in range(L) vectorized:
            acc[i + c] = acc[i + c] + (int32(a[j + 2p]) * int32(w[k + s * p + 2c])
                                       + int32(a[j + 2p + 1]) * int32(w[k + s * p + 2c + 1]))

with one of `a`, `w` uint8 and the other int8 (WORD: `a` uint8 or int16, `w` int16), `a`'s loads
possibly guarded by a condition that holds for all 4 bytes, a fill value elsewhere
(padding). `a`'s 4 bytes are one int32 broadcast to every lane, `w`'s 4 * L bytes one
vector (each lane's 4 bytes adjacent, as qnn.conv2d_nchwc lays its weight out; WORD:
two vectors of 2 * L int16s, one per pair), and

- with AVX-512 VNNI or AVX-VNNI, `vpdpbusd` adds each lane's 4 byte products to it (the
  quad and pair forms: integer sums are exact in any order);
- with AVX2 or AVX-512BW, the pair form is `vpmaddubsw` (each pair's products summed into
  int16, which the form says cannot overflow, so its saturation never acts) then
  `vpmaddwd` by ones (the two pairs summed into int32), then an add;
- with AVX2 or AVX-512BW, the word form is, per pair, `a`'s two values as int16s in every
  lane (one 4-byte broadcast of int16 data; of uint8 data, a shuffle of its 4 broadcast
  bytes) and `vpmaddwd` with the int16 weight vector (exact: no int16 sum is formed),
  then adds.

Where the pattern or the instructions are missing, the loops are emitted as they are
(LLVM widens the bytes and multiplies).
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
from ir.graph.ops.quantized import DOT_WIDTH, PAIR, QUAD, WORD
from ir.tir.expr import Binary, Cast, IntImm, Load, PrimExpr, Select, Var
from ir.tir.simplify import simplify
from ir.tir.stmt import For, Store
from ir.tir.visit import substitute

_BYTE_TYPES = frozenset({"uint8", "int8"})
_OPERAND_TYPES = _BYTE_TYPES | {"int16"}  # (int16: the WORD form's weight, maybe data)
I8 = ir.IntType(8)
I16 = ir.IntType(16)


@dataclass(frozen=True)
class _DotProduct:
    """The matched nest: `store` accumulates the products of `broadcast`'s bytes (the
    same for every lane) and `vector`'s over `step` for each lane of `lane` (`lanes`
    values); `unsigned_first` says whether `broadcast` holds the uint8 operand; `pairs`
    whether each pair of products is summed in int16 first (the step then has 2 values,
    else 4); `guard` is the broadcast's `select(condition, load, fill)`, if padded."""

    step: Var
    lane: Var
    lanes: int
    store: Store
    broadcast: Load
    vector: Load
    unsigned_first: bool
    form: str
    guard: Select | None


def emit_dot_product(ctx: FunctionContext, loop: For) -> bool:
    """Emit `loop` as dot-product instructions (module docstring) and return True, or
    return False, emitting nothing, when it is not that pattern or the target lacks them."""
    if ctx.vector_var is not None or ctx.mask is not None:
        return False
    found = _match(ctx, loop)
    if found is None:
        return False
    target = ctx.target
    narrow_vnni = target.has_feature("avx512vl") or target.has_feature("avxvnni")
    vnni = 0
    if found.form != WORD:
        vnni = _instruction_lanes(target.dot_product_lanes, found.lanes, narrow_vnni)
    pairs = _instruction_lanes(_pair_lanes(ctx), found.lanes, True) if found.form != QUAD else 0
    width = vnni or pairs
    if not width:
        return False
    builder = ctx.builder
    first_lane: dict[Var, PrimExpr] = {
        found.step: IntImm(0, found.step.dtype),
        found.lane: IntImm(0, found.lane.dtype),
    }
    if found.form == WORD:
        _emit_words(ctx, found, first_lane, width)
        return True
    broadcast = _broadcast_bytes(ctx, found, first_lane, width)
    vector_index = emit_index(ctx, substitute(found.vector.index, first_lane))
    store = found.store
    first = emit_index(ctx, substitute(store.index, first_lane))
    for chunk in range(0, found.lanes, width):
        address = element_pointer(
            ctx, found.vector.buffer, builder.add(vector_index, I64(chunk * DOT_WIDTH))
        )
        vector = builder.load(address, typ=ir.VectorType(I32, width), align=1)
        unsigned, signed = (broadcast, vector) if found.unsigned_first else (vector, broadcast)
        start = builder.add(first, I64(chunk))
        accumulator = load_contiguous(ctx, store.buffer, start, width)
        if vnni:
            total = _vpdpbusd(ctx, accumulator, unsigned, signed, width)
        else:
            total = builder.add(accumulator, _pair_sums(ctx, unsigned, signed, width))
        store_contiguous(ctx, store.buffer, start, total)
    return True


def _emit_words(
    ctx: FunctionContext, found: _DotProduct, first_lane: dict[Var, PrimExpr], width: int
) -> None:
    """The WORD form's nest: per chunk of `width` lanes, the accumulator plus, for each of
    the 2 pairs, vpmaddwd of the pair's data as int16s in every lane (int16 data: one
    broadcast each; uint8 data: a shuffle each of its 4 broadcast bytes) and the pair's
    int16 weight vector."""
    builder = ctx.builder
    steps = [{**first_lane, found.step: IntImm(step, found.step.dtype)} for step in (0, 1)]
    starts = [emit_index(ctx, substitute(found.vector.index, at)) for at in steps]
    if found.broadcast.buffer.dtype == "int16":
        words = [
            builder.bitcast(_broadcast_bytes(ctx, found, at, width), ir.VectorType(I16, 2 * width))
            for at in steps
        ]
    else:
        broadcast = _broadcast_bytes(ctx, found, first_lane, width)
        words = [_pair_words(ctx, broadcast, width, pair) for pair in (0, 1)]
    word_vector = ir.VectorType(I16, 2 * width)
    store = found.store
    first = emit_index(ctx, substitute(store.index, first_lane))
    for chunk in range(0, found.lanes, width):
        total = load_contiguous(ctx, store.buffer, builder.add(first, I64(chunk)), width)
        for start, data in zip(starts, words, strict=True):
            address = element_pointer(ctx, found.vector.buffer, builder.add(start, I64(2 * chunk)))
            weights = builder.load(address, typ=word_vector, align=2)
            total = builder.add(total, _vpmaddwd(ctx, data, weights, width))
        store_contiguous(ctx, store.buffer, builder.add(first, I64(chunk)), total)


def _pair_words(ctx: FunctionContext, broadcast: Any, lanes: int, pair: int) -> Any:
    """Bytes 2 * `pair` and 2 * `pair` + 1 of each lane of `broadcast` (`lanes` int32s of
    4 bytes) zero-extended to two int16s."""
    byte_count = lanes * DOT_WIDTH
    bytes_type = ir.VectorType(I8, byte_count)
    zero_index = byte_count  # (the first of the zero vector's bytes)
    mask: list[int] = []
    for lane in range(lanes):
        low = lane * DOT_WIDTH + 2 * pair
        mask += [low, zero_index, low + 1, zero_index]
    builder = ctx.builder
    data = builder.bitcast(broadcast, bytes_type)
    picked = builder.shuffle_vector(
        data,
        ir.Constant(bytes_type, [0] * byte_count),
        ir.Constant(ir.VectorType(I32, byte_count), mask),
    )
    return builder.bitcast(picked, ir.VectorType(I16, 2 * lanes))


def _vpmaddwd(ctx: FunctionContext, first: Any, second: Any, lanes: int) -> Any:
    """Each int32 lane's two int16 products of `first` and `second` summed."""
    words_type = ir.VectorType(I16, lanes * 2)
    function = ctx.module_ctx.declare(
        "llvm.x86.avx512.pmaddw.d.512" if lanes == 16 else "llvm.x86.avx2.pmadd.wd",
        ir.FunctionType(ir.VectorType(I32, lanes), [words_type, words_type]),
    )
    return ctx.builder.call(function, [first, second])


def _vpdpbusd(
    ctx: FunctionContext, accumulator: Any, unsigned: Any, signed: Any, lanes: int
) -> Any:
    """accumulator + each lane's 4 unsigned x signed byte products."""
    vector_type = ir.VectorType(I32, lanes)
    function = ctx.module_ctx.declare(
        f"llvm.x86.avx512.vpdpbusd.{lanes * 32}",
        ir.FunctionType(vector_type, [vector_type] * 3),
    )
    return ctx.builder.call(function, [accumulator, unsigned, signed])


def _pair_sums(ctx: FunctionContext, unsigned: Any, signed: Any, lanes: int) -> Any:
    """Each lane's 4 unsigned x signed byte products summed: vpmaddubsw (pairs in int16),
    then vpmaddwd by ones (the two pairs in int32)."""
    builder = ctx.builder
    bytes_type = ir.VectorType(I8, lanes * 4)
    words_type = ir.VectorType(I16, lanes * 2)
    wide = lanes == 16
    pairs = ctx.module_ctx.declare(
        "llvm.x86.avx512.pmaddubs.w.512" if wide else "llvm.x86.avx2.pmadd.ub.sw",
        ir.FunctionType(words_type, [bytes_type, bytes_type]),
    )
    words = builder.call(
        pairs, [builder.bitcast(unsigned, bytes_type), builder.bitcast(signed, bytes_type)]
    )
    ones = ir.Constant(words_type, [1] * (lanes * 2))
    return _vpmaddwd(ctx, words, ones, lanes)


def _pair_lanes(ctx: FunctionContext) -> int:
    """The int32 lanes of one vpmaddubsw + vpmaddwd: 16 with AVX-512BW, 8 with AVX2."""
    target = ctx.target
    if target.vector_bits == 512 and target.has_feature("avx512bw"):
        return 16
    return 8 if target.vector_bits >= 256 else 0


def _instruction_lanes(widest: int, lanes: int, narrow: bool) -> int:
    """The lanes of each instruction that `lanes` int32 lanes are computed in, given the
    target's `widest` (several instructions when those are narrower, or one 8-lane one
    where `narrow` says the target has it); 0 when none fit."""
    if widest == 0:
        return 0
    if lanes >= widest:
        return widest if lanes % widest == 0 else 0
    return 8 if lanes == 8 and (widest == 8 or narrow) else 0


def _broadcast_bytes(
    ctx: FunctionContext, found: _DotProduct, at: dict[Var, PrimExpr], width: int
) -> Any:
    """The 4 bytes of the broadcast operand from its element at `at` (4 uint8s or int8s,
    or 2 int16s) as one int32 in every lane (the padding value's where its guard is
    false)."""
    builder = ctx.builder
    load = found.broadcast
    index = emit_index(ctx, substitute(load.index, at))
    address = element_pointer(ctx, load.buffer, index)
    if found.guard is not None:  # outside, read the fill's 4 bytes instead
        condition = emit_expr(ctx, found.guard.condition)
        fill = _fill_bytes(ctx, found.guard.false_value, load.buffer.dtype)
        address = builder.select(condition, address, fill)
    return splat(builder, builder.load(address, typ=I32, align=1), width)


def _fill_bytes(ctx: FunctionContext, fill: PrimExpr, dtype: str) -> Any:
    """A pointer to 4 constant bytes holding the padding value `fill` as `dtype` elements
    (4 bytes or 2 int16s)."""
    assert isinstance(fill, IntImm)
    element = (
        [fill.value & 0xFF, (fill.value >> 8) & 0xFF] if dtype == "int16" else [fill.value & 0xFF]
    )
    values = element * (DOT_WIDTH // len(element))
    module = ctx.module_ctx.module
    name = "dot_fill_" + "_".join(str(value) for value in values)
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    array = ir.ArrayType(I8, DOT_WIDTH)
    variable = ir.GlobalVariable(module, array, name)
    variable.global_constant = True
    variable.linkage = "private"
    variable.initializer = ir.Constant(array, values)
    return variable


def _match(ctx: FunctionContext, loop: For) -> _DotProduct | None:
    """`loop` as a dot-product nest, or None."""
    inner = loop.body
    if not (
        loop.kind in ("serial", "unrolled")
        and isinstance(loop.extent, IntImm)
        and loop.extent.value in (2, DOT_WIDTH)
        and isinstance(inner, For)
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
    product = _accumulated(store)
    if product is None or depends_on(store.index, {step}):
        return None
    form, operands = QUAD, None
    if loop.extent.value == DOT_WIDTH:
        operands = _byte_operands(product, "int32")
    else:
        form, operands = PAIR, _pair_operands(product)
        if operands is None:
            form, operands = WORD, _word_operands(product)
    if operands is None:
        return None
    (first, second), guard = operands
    if guard is not None and depends_on(guard.condition, {step, lane}):
        return None
    loads = (first, second)
    broadcast = [load for load in loads if not depends_on(load.index, {lane})]
    vector_stride = 2 if form == WORD else DOT_WIDTH
    vector = [
        load for load in loads if linear_coefficient(load.index, lane, opaque) == vector_stride
    ]
    step_size = 1 if form == QUAD else 2
    if len(broadcast) != 1 or len(vector) != 1:
        return None
    stepped = (broadcast[0],) if form == WORD else loads  # (WORD: the pairs lie further on)
    if (
        any(linear_coefficient(load.index, step, opaque) != step_size for load in stepped)
        or linear_coefficient(vector[0].index, step, opaque) is None
        or any(load.buffer == store.buffer for load in loads)
        or (broadcast[0].buffer.dtype, vector[0].buffer.dtype) not in _operand_types(form)
        or (guard is not None and guard.true_value is not broadcast[0])
    ):
        return None
    return _DotProduct(
        step=step,
        lane=lane,
        lanes=inner.extent.value,
        store=store,
        broadcast=broadcast[0],
        vector=vector[0],
        unsigned_first=broadcast[0].buffer.dtype == "uint8",
        form=form,
        guard=guard,
    )


def _operand_types(form: str) -> tuple[tuple[str, str], ...]:
    """The (broadcast, vector) buffer dtypes the codegen takes in dot form `form`."""
    if form == WORD:
        return (("uint8", "int16"), ("int16", "int16"))
    return (("uint8", "int8"), ("int8", "uint8"))


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


_Operands = tuple[tuple[Load, Load], Select | None]


def _pair_operands(value: PrimExpr) -> _Operands | None:
    """The first pair's byte loads of `int32(a0 * b0 + a1 * b1)` (int16 products of
    bytes, the second pair's loads one element after the first's), or None."""
    if not isinstance(value, Cast) or value.dtype != "int32":
        return None
    return _paired(value.value, "int16")


def _word_operands(value: PrimExpr) -> _Operands | None:
    """The first pair's loads of `int32(a0) * int32(b0) + int32(a1) * int32(b1)` (the
    second pair's loads one element after the first's), or None."""
    return _paired(value, "int32")


def _paired(total: PrimExpr, dtype: str) -> _Operands | None:
    """The first product's loads of the `dtype` sum `total` of two products of loads
    (the second product's loads one element after the first's), or None."""
    if not isinstance(total, Binary) or total.op != "add" or total.dtype != dtype:
        return None
    first = _byte_operands(total.lhs, dtype)
    second = _byte_operands(total.rhs, dtype)
    if first is None or second is None:
        return None
    if _offset(first[0][0], second[0]) == -1:  # (the simplifier may put the second first)
        first, second = second, first
    loads = first[0]
    if not all(_offset(load, second[0]) == 1 for load in loads):
        return None
    one_guard, other_guard = first[1], second[1]
    if one_guard is None or other_guard is None:
        return first if one_guard is other_guard else None
    same = (one_guard.condition, one_guard.false_value) == (
        other_guard.condition,
        other_guard.false_value,
    )
    return first if same else None


def _offset(load: Load, others: tuple[Load, Load]) -> int | None:
    """How many elements after `load` the load of `others` from the same buffer reads,
    if that is a constant."""
    same = [other for other in others if other.buffer == load.buffer]
    if len(same) != 1:
        return None
    difference = simplify(same[0].index - load.index)
    return difference.value if isinstance(difference, IntImm) else None


def _byte_operands(product: PrimExpr, dtype: str) -> _Operands | None:
    """The two loads of `dtype(a) * dtype(b)` from 8-bit buffers (or an int16 one, the
    WORD form's weight), one of them possibly guarded as `select(condition, load,
    constant)` (padding inlined into the conv), and that guard; or None."""
    if not isinstance(product, Binary) or product.op != "mul" or product.dtype != dtype:
        return None
    loads: list[Load] = []
    guards: list[Select] = []
    for side in (product.lhs, product.rhs):
        if not isinstance(side, Cast) or side.dtype != dtype:
            return None
        value = side.value
        if (
            isinstance(value, Select)
            and isinstance(value.true_value, Load)
            and isinstance(value.false_value, IntImm)
        ):
            guards.append(value)
            value = value.true_value
        if not isinstance(value, Load) or value.buffer.dtype not in _OPERAND_TYPES:
            return None
        loads.append(value)
    if len(guards) > 1:
        return None
    return (loads[0], loads[1]), (guards[0] if guards else None)
