"""Transposed reads: a loop over columns around vectorized loops over rows, reading a
buffer down a column, becomes row loads and a shuffle network.

    for k in range(K):                      # serial or unrolled, K a constant
        for x in range(X) vectorized:       # one or several (legalized: 4 + 2 + 1 lanes)
            out[... x ...] = f(src[x * S + k + c])

reads, for each k, one element from each of X rows of `src` (S apart): a gather, or a
strided load spanning X * S elements. A conv vectorized over output channels writes its
NCHW output this way (its accumulator tile is channels-innermost, its output
columns-innermost), once per register tile. Here the X rows are loaded whole instead (K
contiguous elements each: exactly the elements the loop reads), transposed in registers
by a butterfly of two-source shuffles, and the loop is emitted unrolled with each
column's X lanes picked from the result. Against gathers of every column, the default
schedules of the standard convs ran up to 10% faster at two threads (Zen 5, in turn:
the 7x7 stem conv 1.10x, the 1x1 conv 1.07x, the 3x3 conv of 64 channels 1.03x).

A loop of more than 64 columns is transposed 16 columns at a time, in a loop over the
blocks, and its last columns % 16 run as before. The default schedule puts a reduction
over contiguous rows (softmax's and layer_norm's statistics, vectorized over rows) in
this form: softmax over 12 x 197 x 197 went from 1.43 to 1.06 ms (ONNX Runtime: 0.07 ms,
most of the rest being `exp`, which LLVM calls libm for lane by lane).

The butterfly: R rows (X padded to a power of two) of C lanes (K padded likewise,
R <= C) hold element (r, c) at register r, lane c. Stage s swaps register bit s with
lane bit log2(C / R) + s; after log2(R) stages register c // (C / R) holds column c at
lanes r * (C / R) + c % (C / R), and one single-source shuffle picks its X lanes.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import llvmlite.ir as ir

from codegen.llvm.affine import depends_on, linear_coefficient
from codegen.llvm.context import FunctionContext
from codegen.llvm.dtypes import I32, constant, scalar_type
from codegen.llvm.exprs import emit_index
from codegen.llvm.loops import emit_counted_loop
from codegen.llvm.memory import load_contiguous
from codegen.llvm.vectorize import MAX_VECTOR_LANES, vectorize_blocker
from ir.tir.expr import Buffer, IntImm, Load, PrimExpr, Select, Var
from ir.tir.stmt import For, Seq, Stmt, Store
from ir.tir.visit import map_expr, map_stmt_exprs, walk_expr, walk_stmt

EmitStmt = Callable[[FunctionContext, Stmt], None]

MAX_COLUMNS = 64  # the column loop is unrolled: at most this many copies
BLOCK_COLUMNS = 16  # more columns than that: blocks of this many, in a loop
MAX_ELEMENTS = 1024  # rows x columns (padded) held in registers at once


@dataclass(frozen=True)
class _Family:
    """One transposed load of one vectorized loop: `rows` rows of the column loop's
    extent, read through `var` once transposed."""

    load: Load
    row_var: Var
    rows: int
    var: Var


@dataclass(frozen=True)
class _Group:
    """A vectorized loop of the column loop's body, its transposed loads renamed."""

    loop: For
    families: tuple[_Family, ...]


def emit_transposed_nest(ctx: FunctionContext, loop: For, emit_stmt: EmitStmt) -> bool:
    """Emit `loop` with its transposed reads as row loads and shuffles (module docstring)
    and return True, or return False, emitting nothing, when it has none."""
    groups = _plan(ctx, loop)
    if groups is None:
        return False
    assert isinstance(loop.extent, IntImm)
    columns = loop.extent.value
    index_type = scalar_type(loop.var.dtype)
    if columns <= MAX_COLUMNS:
        _emit_block(ctx, loop.var, groups, constant(index_type, 0), columns, emit_stmt)
        return True
    # Many columns: blocks of BLOCK_COLUMNS in a loop, the last few as they were.
    blocks = columns // BLOCK_COLUMNS
    counter = Var(ctx.module_ctx.unique_name(f"{loop.var.name}_block"), loop.var.dtype)

    def emit_block() -> None:
        first = ctx.builder.mul(ctx.lookup(counter), constant(index_type, BLOCK_COLUMNS))
        _emit_block(ctx, loop.var, groups, first, BLOCK_COLUMNS, emit_stmt)

    zero = constant(index_type, 0)
    emit_counted_loop(ctx, counter, zero, constant(index_type, blocks), emit_block)
    if columns % BLOCK_COLUMNS:
        rest = constant(index_type, blocks * BLOCK_COLUMNS)
        end = constant(index_type, columns)
        emit_counted_loop(ctx, loop.var, rest, end, lambda: emit_stmt(ctx, loop.body))
    return True


def _emit_block(
    ctx: FunctionContext,
    column_var: Var,
    groups: list[_Group],
    first: Any,
    columns: int,
    emit_stmt: EmitStmt,
) -> None:
    """Columns `first` to `first + columns` of the loop: its rows' runs loaded and
    transposed, then the loop body once per column."""
    picked = {
        family.var: _transposed_columns(ctx, column_var, family, first, columns)
        for group in groups
        for family in group.families
    }
    for column in range(columns):
        if isinstance(first, ir.Constant):
            value = constant(first.type, first.constant + column)
        else:
            value = ctx.builder.add(first, constant(first.type, column)) if column else first
        with ctx.bind(column_var, value, non_negative=True):
            for group in groups:
                with ExitStack() as bindings:
                    for family in group.families:
                        bindings.enter_context(ctx.bind(family.var, picked[family.var][column]))
                    emit_stmt(ctx, group.loop)


def _plan(ctx: FunctionContext, loop: For) -> list[_Group] | None:
    """The column loop's vectorized loops with their transposed loads, or None when the
    loop is not of the transposing form or transposes nothing worth it."""
    if loop.kind not in ("serial", "unrolled") or ctx.lanes != 1 or ctx.mask is not None:
        return None
    if not isinstance(loop.extent, IntImm) or loop.extent.value < 2:
        return None
    columns = min(loop.extent.value, MAX_COLUMNS)
    if loop.extent.value > MAX_COLUMNS:
        columns = BLOCK_COLUMNS  # (transposed a block at a time)
    body = loop.body.stmts if isinstance(loop.body, Seq) else (loop.body,)
    groups: list[_Group] = []
    for stmt in body:
        if not (
            isinstance(stmt, For)
            and isinstance(stmt.extent, IntImm)
            and (stmt.kind == "vectorized" or stmt.extent.value == 1)  # (a legalized last lane)
            and 1 <= stmt.extent.value <= MAX_VECTOR_LANES
            and all(isinstance(inner, Store | Seq) for inner in walk_stmt(stmt.body))
            and vectorize_blocker(stmt.body, stmt.var) is None
        ):
            return None
        groups.append(_group(ctx, stmt, loop.var, columns))
    if not any(family.rows >= 2 for group in groups for family in group.families):
        return None
    return groups


def _group(ctx: FunctionContext, loop: For, column_var: Var, columns: int) -> _Group:
    """`loop` with each load it may transpose read through a fresh variable instead."""
    assert isinstance(loop.extent, IntImm)
    rows = loop.extent.value
    written = {node.buffer for node in walk_stmt(loop.body) if isinstance(node, Store)}
    padded_columns = _power_of_two(columns)
    if _power_of_two(rows) > padded_columns or _power_of_two(rows) * padded_columns > MAX_ELEMENTS:
        return _Group(loop, ())
    families: dict[Load, _Family] = {}

    def visit(expr: PrimExpr) -> PrimExpr | None:
        if isinstance(expr, Select):
            # Its sides are read only for the lanes that take them (masked): reading a
            # whole row could touch elements no lane asks for. Keep them as they are.
            return expr
        if isinstance(expr, Load) and _transposable(expr, loop.var, column_var, written):
            if expr not in families:
                name = ctx.module_ctx.unique_name(f"{expr.buffer.name}_column")
                families[expr] = _Family(expr, loop.var, rows, Var(name, expr.dtype))
            return families[expr].var
        return None

    rewritten = map_stmt_exprs(loop.body, lambda expr: map_expr(expr, visit))
    for node in walk_stmt(rewritten):
        if isinstance(node, Store) and depends_on(node.index, {f.var for f in families.values()}):
            return _Group(loop, ())  # a transposed value used as an index: leave it be
    return _Group(For(loop.var, loop.extent, loop.kind, rewritten), tuple(families.values()))


def _transposable(load: Load, row_var: Var, column_var: Var, written: set[Buffer]) -> bool:
    """Whether `load` reads one element per row (rows two or more elements apart) and
    consecutive elements along the columns, from a buffer the loop does not write."""
    if load.buffer in written or any(isinstance(node, Load) for node in walk_expr(load.index)):
        return False
    row_step = linear_coefficient(load.index, row_var)
    return (
        linear_coefficient(load.index, column_var) == 1
        and row_step is not None
        and abs(row_step) >= 2
    )


def _transposed_columns(
    ctx: FunctionContext, column_var: Var, family: _Family, first: Any, columns: int
) -> list[Any]:
    """Columns `first + k` of `family`'s rows, for each k < `columns`: a vector of its
    rows' lanes (a scalar for one row)."""
    builder = ctx.builder
    row_vectors = []
    for row in range(family.rows):
        with ExitStack() as bindings:
            bindings.enter_context(ctx.bind(column_var, first, non_negative=True))
            bindings.enter_context(
                ctx.bind(
                    family.row_var,
                    constant(scalar_type(family.row_var.dtype), row),
                    non_negative=True,
                )
            )
            start = emit_index(ctx, family.load.index)
        row_vectors.append(load_contiguous(ctx, family.load.buffer, start, columns))
    if family.rows == 1:
        return [builder.extract_element(row_vectors[0], I32(column)) for column in range(columns)]
    registers = _butterfly(builder, row_vectors, columns)
    per_register = _power_of_two(columns) // len(registers)
    return [
        builder.shuffle_vector(
            registers[column // per_register],
            ir.Constant(registers[0].type, ir.Undefined),
            ir.Constant(
                ir.VectorType(I32, family.rows),
                [row * per_register + column % per_register for row in range(family.rows)],
            ),
        )
        for column in range(columns)
    ]


def _butterfly(builder: ir.IRBuilder, rows: list[Any], columns: int) -> list[Any]:
    """The rows (vectors of `columns` lanes) transposed as in the module docstring:
    register c // (C / R) holds column c at lanes r * (C / R) + c % (C / R)."""
    width = _power_of_two(columns)
    count = _power_of_two(len(rows))
    vector_type = ir.VectorType(rows[0].type.element, width)
    undefined = ir.Constant(vector_type, ir.Undefined)
    if width != columns:  # widen each row; the lanes past `columns` are never picked
        widen = ir.Constant(
            ir.VectorType(I32, width), [*range(columns), *[columns] * (width - columns)]
        )
        rows = [
            builder.shuffle_vector(row, ir.Constant(row.type, ir.Undefined), widen) for row in rows
        ]
    registers = [*rows, *[undefined] * (count - len(rows))]
    low_bits = (width // count).bit_length() - 1
    for stage in range(count.bit_length() - 1):
        register_bit, lane_bit = 1 << stage, 1 << (low_bits + stage)
        low_mask = [(lane & ~lane_bit) + (width if lane & lane_bit else 0) for lane in range(width)]
        high_mask = [(lane | lane_bit) + (width if lane & lane_bit else 0) for lane in range(width)]
        swapped = list(registers)
        for low in range(count):
            if low & register_bit:
                continue
            high = low | register_bit
            pair = registers[low], registers[high]
            swapped[low] = _shuffle(builder, pair, low_mask)
            swapped[high] = _shuffle(builder, pair, high_mask)
        registers = swapped
    return registers


def _shuffle(builder: ir.IRBuilder, pair: tuple[Any, Any], mask: list[int]) -> Any:
    return builder.shuffle_vector(
        pair[0], pair[1], ir.Constant(ir.VectorType(I32, len(mask)), mask)
    )


def _power_of_two(value: int) -> int:
    """The least power of two at least `value`."""
    return 1 << (value - 1).bit_length()
