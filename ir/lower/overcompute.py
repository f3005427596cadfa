"""Overcompute: a stage computed at another's loop fills its whole tile, even where the
tile runs past a symbolic axis's run-time extent.

Such a stage writes a buffer of its own, private to one iteration of the loop it is
computed at and covering the tile at its static extents; its consumer reads the positions
within the run-time extents only (its own guards keep it there). So the positions beyond
them may hold anything, and the stage need not be guarded per position: guards inside a
reduction (a partial tile's rows, say) keep its accumulators out of registers. What a
guard protected instead is the stage's reads of other buffers, which at those positions
may fall outside them. Each such read whose address depends on the guarded positions is
made safe here: a scalar read is clamped into its buffer (a valid element, whose value
does not matter), a read of vector lanes is masked by the guards (off lanes read nothing).

A stage whose value divides integers by anything but a constant or a size is left
guarded: at the positions beyond the extents its divisor may be zero.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ir.tir.expr import (
    INDEX_DTYPE,
    Binary,
    IntImm,
    Load,
    PrimExpr,
    TensorRead,
    Var,
    binary,
    logical_and,
    maximum,
    minimum,
    select,
    zero,
)
from ir.tir.visit import map_expr, walk_expr

# Dtypes whose zero a masked read can give (a select's other side).
_PLAIN_DTYPES = frozenset(
    ["float16", "float32", "float64", "bool"]
    + [f"{sign}int{bits}" for sign in ("", "u") for bits in (8, 16, 32, 64)]
)
_INTEGER_DIVISIONS = frozenset(("div", "floordiv", "floormod", "mod"))


def may_overcompute(body: PrimExpr, axis_vars: Collection[Var]) -> bool:
    """Whether a stage with this (expanded) `body` over `axis_vars` may compute positions
    beyond its axes' run-time extents: it reads only plain dtypes, and divides integers
    only by constants and sizes (never by data or by its own axes)."""
    axes = set(axis_vars)
    for node in walk_expr(body):
        if isinstance(node, TensorRead | Load) and node.dtype not in _PLAIN_DTYPES:
            return False
        if (
            isinstance(node, Binary)
            and node.op in _INTEGER_DIVISIONS
            and not node.dtype.startswith("float")
            and not isinstance(node.rhs, IntImm)
            and any(
                isinstance(part, TensorRead | Load) or (isinstance(part, Var) and part in axes)
                for part in walk_expr(node.rhs)
            )
        ):
            return False
    return True


def safe_reads(
    value: PrimExpr,
    guards: Sequence[PrimExpr],
    private: Collection[str],
    loop_vars: Collection[Var],
    sizes: Collection[Var],
    vector_var: Var | None,
) -> PrimExpr:
    """`value` with each read that `guards` (the dropped ones, over the stage's
    `loop_vars`, the loops outside it and the `sizes`) kept within its buffer made safe
    without them. Reads of `private` buffers (by name: the tiles of stages computed in
    the same loop, which cover every position) stay, and so do reads whose index involves
    none of the guards' loop variables: they read the same element as where the guards
    hold. A scalar read is clamped into its buffer. A read of vector lanes (its index
    varies with `vector_var`) reads only where its guards hold, zero elsewhere: the guards
    over its loop variables, or over none of the stage's (a guard over loops of the stage
    it does not vary with holds at their first iteration, which reads the same lanes)."""
    stage_vars = set(loop_vars)
    guard_vars = [
        {node for node in walk_expr(guard) if isinstance(node, Var) and node not in sizes}
        for guard in guards
    ]
    guarded = set().union(*guard_vars)

    def visit(node: PrimExpr) -> PrimExpr | None:
        if not isinstance(node, Load):
            return None
        index = map_expr(node.index, visit)  # (reads inside the index first)
        load = node if index is node.index else Load(node.buffer, index)
        if node.buffer.name in private:
            return load
        read = {part for part in walk_expr(index) if isinstance(part, Var)}
        if not read & guarded:
            return load
        if vector_var is None or vector_var not in read:
            last = binary("sub", _element_count(load), 1)
            return Load(load.buffer, minimum(maximum(index, 0), last))
        condition: PrimExpr | None = None
        for guard, variables in zip(guards, guard_vars, strict=True):
            own = variables & stage_vars
            if not own or own & read:
                condition = guard if condition is None else logical_and(condition, guard)
        if condition is None:
            return load
        return select(condition, load, zero(load.dtype))

    return map_expr(value, visit)


def _element_count(load: Load) -> PrimExpr:
    buffer = load.buffer
    if not buffer.dims:
        return IntImm(buffer.size, INDEX_DTYPE)
    count: PrimExpr = IntImm(1, INDEX_DTYPE)
    for dim in buffer.dims:
        count = binary("mul", count, dim)
    return count
