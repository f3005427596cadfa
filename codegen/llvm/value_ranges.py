"""The ranges of a kernel's integer variables, for code whose choice depends on how large
an integer can be: a vector division of small non-negative integers runs exactly in
float32 (`codegen.llvm.exprs`), where x86 has no vector integer division at all.

Size variables range over [1, the upper bound a parameter dim gives them]; a loop
variable over [0, the bound of its extent - 1]; a let variable over its value's bound.
A variable bound in several places gets the hull of its ranges, and one that any place
leaves unbounded gets none.
"""

from __future__ import annotations

from ir.tir.arith import IntervalCache, IntervalMap, bound, interval
from ir.tir.expr import PrimExpr, Var
from ir.tir.simplify_stmt import size_ranges
from ir.tir.stmt import For, LetStmt, PrimFunc, Stmt
from ir.tir.visit import stmt_children

# float32 holds every integer up to 2**24 exactly, and for a dividend below it the
# correctly rounded quotient truncates to the exact one: its rounding error, under
# dividend / divisor * 2**-24, stays below the 1 / divisor between the quotient and
# the next integer.
FLOAT32_EXACT_INT = 1 << 24


def variable_ranges(func: PrimFunc) -> dict[Var, tuple[int, int]]:
    """The inclusive range of each size, loop and let variable of `func` that is bounded
    wherever it is bound (variables missing are unbounded)."""
    ranges: dict[Var, tuple[int, int]] = {
        var: (int(low), int(high)) for var, (low, high) in size_ranges(func).items()
    }
    unbounded: set[Var] = set()

    def note(var: Var, low: int | None, high: int | None) -> None:
        if low is None or high is None or var in unbounded:
            unbounded.add(var)
            ranges.pop(var, None)
            return
        known = ranges.get(var)
        ranges[var] = (low, high) if known is None else (min(low, known[0]), max(high, known[1]))

    def visit(stmt: Stmt) -> None:
        if isinstance(stmt, For):
            _, last = bound(stmt.extent, ranges)
            note(stmt.var, 0, None if last is None else max(0, last - 1))
        elif isinstance(stmt, LetStmt) and stmt.var.dtype.startswith(("int", "uint")):
            note(stmt.var, *bound(stmt.value, ranges))
        for child in stmt_children(stmt):
            visit(child)

    visit(func.body)
    return ranges


def within_float32_exact(
    dividend: PrimExpr, divisor: PrimExpr, ranges: IntervalMap, cache: IntervalCache
) -> bool:
    """Whether integer `dividend` lies in [0, 2**24) and `divisor` in [1, 2**24] wherever
    they are evaluated, so that float32 divides them exactly (`FLOAT32_EXACT_INT`)."""
    low, high = interval(dividend, ranges, cache)
    if low < 0 or high >= FLOAT32_EXACT_INT:
        return False
    low, high = interval(divisor, ranges, cache)
    return low >= 1 and high <= FLOAT32_EXACT_INT
