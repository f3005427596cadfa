"""Vectorized loops: the body is emitted once as code over `extent` lanes.

The loop variable becomes the lane vector <0, 1, ..., extent-1>; expressions that
depend on it become vectors and the rest stay scalar (broadcast where they meet).
Memory accesses pick their form from the index's step per lane (see memory.py).

Emitting the body once reorders its work: every lane runs statement 1, then every
lane statement 2. That is only the loop's meaning when no lane reads or writes what
another lane writes, so a body that could observe the difference - or one with
nested loops, conditionals or allocations, or more than MAX_VECTOR_LANES lanes - is
emitted as a serial loop instead, with metadata asking LLVM's own vectorizer to try.

A vectorized reduce axis (`acc[c] = acc[c] op f(k)`, c not depending on k; op add, mul,
max or min) is one horizontal reduction: f over every lane, the lanes combined as a
tree of vector halves (a float sum in another order than the serial loop's; max and min
NaN in, NaN out, as everywhere), then combined with acc[c] once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import llvmlite.ir as ir

from codegen.llvm.affine import depends_on, linear_coefficient
from codegen.llvm.context import FunctionContext
from codegen.llvm.dtypes import I32, constant, scalar_type, splat
from codegen.llvm.exprs import emit_cast, emit_expr
from codegen.llvm.loops import emit_counted_loop
from ir.tir.expr import Binary, Buffer, IntImm, Load, PrimExpr, Var
from ir.tir.stmt import Barrier, For, IfThenElse, LetStmt, Seq, Stmt, Store
from ir.tir.visit import substitute, walk_expr

EmitStmt = Callable[[FunctionContext, Stmt], None]

# Wider vectors than this are left to LLVM's loop vectorizer: it picks the width, while
# one IR vector of thousands of lanes would take the backend a long time to split.
MAX_VECTOR_LANES = 64


@dataclass
class _Accesses:
    """Indices (with lane-dependent lets expanded) at which the body touches buffers."""

    var: Var
    lets: dict[Var, PrimExpr] = field(default_factory=dict)
    opaque: set[Var] = field(default_factory=set)
    stores: dict[Buffer, set[PrimExpr]] = field(default_factory=dict)
    loads: dict[Buffer, set[PrimExpr]] = field(default_factory=dict)

    def varying(self) -> set[Var]:
        return {self.var, *self.lets, *self.opaque}

    def read(self, expr: PrimExpr) -> None:
        for node in walk_expr(expr):
            if isinstance(node, Load):
                index = substitute(node.index, self.lets)
                self.loads.setdefault(node.buffer, set()).add(index)


def vectorize_blocker(body: Stmt, var: Var) -> str | None:
    """Why `body` cannot run as one vector step over all values of `var`; None if it can."""
    accesses = _Accesses(var)
    reason = _collect(body, accesses)
    if reason is not None:
        return reason
    for buffer, indices in accesses.stores.items():
        if len(indices) > 1:
            return f"it stores to {buffer.name} at several different indices"
        (index,) = indices
        reads = accesses.loads.get(buffer, set())
        if not reads:
            continue  # write-only: lanes store in order, as iterations would
        if reads != {index}:
            return f"it reads {buffer.name} at an index other than the one it writes"
        if not linear_coefficient(index, var, accesses.opaque):
            return f"several lanes read and write the same element of {buffer.name}"
    return None


def _collect(stmt: Stmt, accesses: _Accesses) -> str | None:
    if isinstance(stmt, Seq):
        for child in stmt.stmts:
            reason = _collect(child, accesses)
            if reason is not None:
                return reason
        return None
    if isinstance(stmt, Store):
        accesses.read(stmt.index)
        accesses.read(stmt.value)
        index = substitute(stmt.index, accesses.lets)
        accesses.stores.setdefault(stmt.buffer, set()).add(index)
        return None
    if isinstance(stmt, LetStmt):
        accesses.read(stmt.value)
        if depends_on(stmt.value, accesses.varying()):
            if _has_load(stmt.value):
                accesses.opaque.add(stmt.var)
            else:
                accesses.lets[stmt.var] = substitute(stmt.value, accesses.lets)
        return _collect(stmt.body, accesses)
    if isinstance(stmt, Barrier):
        return None
    if isinstance(stmt, IfThenElse) and stmt.else_case is None:
        accesses.read(stmt.condition)  # (a guard: its lanes' stores are masked)
        return _collect(stmt.then_case, accesses)
    if isinstance(stmt, For):
        return "it contains a nested loop"
    return f"it contains {type(stmt).__name__}"


def _has_load(expr: PrimExpr) -> bool:
    return any(isinstance(node, Load) for node in walk_expr(expr))


def emit_vectorized_loop(ctx: FunctionContext, loop: For, emit_stmt: EmitStmt) -> None:
    """Emit a `vectorized` loop as vector code, or as a serial loop marked for LLVM's
    vectorizer when its extent is not a constant or its body cannot be vectorized here."""
    extent = loop.extent
    if isinstance(extent, IntImm) and extent.value <= 1:
        if extent.value == 1:
            with ctx.bind(loop.var, constant(scalar_type(loop.var.dtype), 0), non_negative=True):
                emit_stmt(ctx, loop.body)
        return
    lanes = 0  # (0: not emitted as vector code here)
    if isinstance(extent, IntImm) and extent.value <= MAX_VECTOR_LANES and ctx.vector_var is None:
        lanes = extent.value
    update = reduction_update(loop.body, loop.var) if lanes and ctx.mask is None else None
    if update is not None:
        _emit_horizontal_reduction(ctx, loop.var, lanes, update, emit_stmt)
        return
    if not lanes or vectorize_blocker(loop.body, loop.var) is not None:
        end = emit_cast(ctx, emit_expr(ctx, extent), extent.dtype, loop.var.dtype)
        emit_counted_loop(
            ctx,
            loop.var,
            constant(end.type, 0),
            end,
            lambda: emit_stmt(ctx, loop.body),
            hints={"llvm.loop.vectorize.enable": True},
        )
        return
    with _as_lanes(ctx, loop.var, lanes):
        emit_stmt(ctx, loop.body)


@contextmanager
def _as_lanes(ctx: FunctionContext, var: Var, lanes: int) -> Iterator[None]:
    """Inside, `var` is the lane vector <0, 1, ..., lanes-1>: code is emitted over lanes."""
    lane_vector = ir.Constant(ir.VectorType(scalar_type(var.dtype), lanes), list(range(lanes)))
    ctx.lanes, ctx.vector_var = lanes, var
    try:
        with ctx.bind(var, lane_vector, non_negative=True):
            yield
    finally:
        ctx.lanes, ctx.vector_var = 1, None


# The combiners a horizontal reduction handles.
_COMBINERS = ("add", "mul", "max", "min")


@dataclass(frozen=True)
class _ReductionUpdate:
    """`store` is `acc[c] = acc[c] op operand` (or `operand op acc[c]`)."""

    store: Store
    op: str
    operand: PrimExpr


def reduction_update(body: Stmt, var: Var) -> _ReductionUpdate | None:
    """`body` as the update of a reduction over `var`, if it is one: a store of
    `acc[c] op f(var)` to acc[c], where c does not depend on `var`, f reads no element of
    acc, and op is a combiner a horizontal reduction handles (not of bools)."""
    if not isinstance(body, Store) or not isinstance(body.value, Binary):
        return None
    value = body.value
    if value.op not in _COMBINERS or value.dtype == "bool" or depends_on(body.index, {var}):
        return None
    accumulator = Load(body.buffer, body.index)
    if value.lhs == accumulator:
        operand = value.rhs
    elif value.rhs == accumulator:
        operand = value.lhs
    else:
        return None
    if any(isinstance(node, Load) and node.buffer == body.buffer for node in walk_expr(operand)):
        return None
    return _ReductionUpdate(body, value.op, operand)


def _emit_horizontal_reduction(
    ctx: FunctionContext, var: Var, lanes: int, update: _ReductionUpdate, emit_stmt: EmitStmt
) -> None:
    """`update` over `lanes` values of `var`: one vector of operands, its halves combined
    until one lane is left, then combined with the accumulator by the update's own store."""
    with _as_lanes(ctx, var, lanes):
        operands = splat(ctx.builder, emit_expr(ctx, update.operand), lanes)
    reduced = _combine_lanes(ctx, update.op, update.operand.dtype, operands, lanes)
    lanes_combined = Var(f"{var.name}_reduced", update.operand.dtype)
    store = update.store
    value = Binary(update.op, Load(store.buffer, store.index), lanes_combined)
    with ctx.bind(lanes_combined, reduced):
        emit_stmt(ctx, Store(store.buffer, store.index, value))


def _combine_lanes(ctx: FunctionContext, op: str, dtype: str, vector: Any, lanes: int) -> Any:
    """The `lanes` lanes of `vector` combined by `op` as a tree (the lower half with the
    upper, an odd lane kept aside until the end), each step `op` as the serial code
    computes it (max and min: NaN in, NaN out)."""
    builder = ctx.builder
    lhs, rhs = Var("lanes_lhs", dtype), Var("lanes_rhs", dtype)
    step = Binary(op, lhs, rhs)

    def combine(a: Any, b: Any) -> Any:
        with ctx.bind(lhs, a), ctx.bind(rhs, b):
            return emit_expr(ctx, step)

    def lane(index: int) -> Any:
        return builder.extract_element(vector, I32(index))

    aside: list[Any] = []
    while lanes > 1:  # (from 2 lanes or more: the loop ends on a scalar)
        if lanes % 2:
            lanes -= 1
            aside.append(lane(lanes))
        half = lanes // 2
        if half == 1:
            vector = combine(lane(0), lane(1))
        else:
            low = builder.shuffle_vector(vector, vector, _indices(range(half)))
            high = builder.shuffle_vector(vector, vector, _indices(range(half, lanes)))
            vector = combine(low, high)
        lanes = half
    result = vector
    for value in reversed(aside):
        result = combine(result, value)
    return result


def _indices(values: range) -> Any:
    return ir.Constant(ir.VectorType(I32, len(values)), list(values))


@contextmanager
def bind_vector_let(ctx: FunctionContext, var: Var, value: PrimExpr) -> Iterator[None]:
    """Record that let variable `var` holds a lane-dependent `value`, so index analysis
    can look through it (or, when it reads memory, treat it as unknown)."""
    if _has_load(value):
        ctx.opaque_vars.add(var)
        try:
            yield
        finally:
            ctx.opaque_vars.discard(var)
        return
    ctx.vector_lets[var] = substitute(value, ctx.vector_lets)
    try:
        yield
    finally:
        del ctx.vector_lets[var]
