"""Keep loads under a select in bounds.

Both sides of a select are evaluated (that is what makes it branch-free and
vectorizable), so a load in the side not taken must still read inside its buffer: a
padding stage reads `data[y - 1]` at y = 0, a concatenation reads the first input past its
end. Such indices are clamped to the buffer unless the loop ranges prove them in bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ir.tir.arith import bound
from ir.tir.expr import Load, PrimExpr, Select, Var, maximum, minimum
from ir.tir.stmt import Allocate, For, IfThenElse, LetStmt, PrimFunc, Seq, Stmt, Store
from ir.tir.visit import map_expr

Ranges = Mapping[Var, tuple[int, int]]


def _clamp_loads(expr: PrimExpr, ranges: Ranges) -> PrimExpr:
    def visit(node: PrimExpr) -> PrimExpr | None:
        if isinstance(node, Load):
            index = map_expr(node.index, visit)
            low, high = bound(index, ranges)
            size = node.buffer.size
            if low is None or high is None or low < 0 or high >= size:
                index = maximum(minimum(index, size - 1), 0)
            return Load(node.buffer, index)
        return None

    return map_expr(expr, visit)


def _guard_expr(expr: PrimExpr, ranges: Ranges) -> PrimExpr:
    def visit(node: PrimExpr) -> PrimExpr | None:
        if isinstance(node, Select):
            condition = map_expr(node.condition, visit)
            true_value = _clamp_loads(map_expr(node.true_value, visit), ranges)
            false_value = _clamp_loads(map_expr(node.false_value, visit), ranges)
            return Select(condition, true_value, false_value)
        return None

    return map_expr(expr, visit)


def _guard_stmt(stmt: Stmt, ranges: dict[Var, tuple[int, int]]) -> Stmt:
    if isinstance(stmt, For):
        inner = dict(ranges)
        low, high = bound(stmt.extent, ranges)
        inner[stmt.var] = (0, max(0, high - 1) if high is not None else 2**62)
        return replace(stmt, body=_guard_stmt(stmt.body, inner))
    if isinstance(stmt, LetStmt):
        inner = dict(ranges)
        low, high = bound(stmt.value, ranges)
        if low is not None and high is not None:
            inner[stmt.var] = (low, high)
        return replace(
            stmt, value=_guard_expr(stmt.value, ranges), body=_guard_stmt(stmt.body, inner)
        )
    if isinstance(stmt, Store):
        return replace(stmt, value=_guard_expr(stmt.value, ranges))
    if isinstance(stmt, Seq):
        return Seq(tuple(_guard_stmt(s, ranges) for s in stmt.stmts))
    if isinstance(stmt, IfThenElse):
        else_case = _guard_stmt(stmt.else_case, ranges) if stmt.else_case is not None else None
        return replace(stmt, then_case=_guard_stmt(stmt.then_case, ranges), else_case=else_case)
    if isinstance(stmt, Allocate):
        return replace(stmt, body=_guard_stmt(stmt.body, ranges))
    return stmt


def guard_select_loads(func: PrimFunc) -> PrimFunc:
    """Clamp the indices of loads under selects that the loop ranges do not prove in bounds."""
    return replace(func, body=_guard_stmt(func.body, {}))
