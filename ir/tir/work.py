"""How many innermost statements a loop nest runs, as an expression of the variables
bound outside it: the run-time counterpart of the schedule rules' work estimate (output
elements times reduction steps), for loops whose extents are known only at run time."""

from __future__ import annotations

from collections.abc import Collection

from ir.tir.expr import INDEX_DTYPE, IntImm, PrimExpr, Var, binary
from ir.tir.simplify import simplify
from ir.tir.stmt import Allocate, Barrier, For, IfThenElse, LetStmt, Seq, Stmt, Store
from ir.tir.visit import free_index_vars, substitute


def statement_count(stmt: Stmt, bound_vars: Collection[Var]) -> PrimExpr | None:
    """The number of stores `stmt` runs (a branch counted as its larger side), as an
    expression over `bound_vars` (the variables defined outside `stmt`); None where a loop
    extent depends on a variable bound inside it (a triangular loop, say)."""
    count = _count(stmt, frozenset(bound_vars))
    return None if count is None else simplify(count)


def _count(stmt: Stmt, bound: frozenset[Var]) -> PrimExpr | None:
    if isinstance(stmt, Store):
        return IntImm(1, INDEX_DTYPE)
    if isinstance(stmt, For):
        if not free_index_vars(stmt.extent) <= bound:
            return None
        body = _count(stmt.body, bound)
        return None if body is None else binary("mul", stmt.extent, body)
    if isinstance(stmt, Seq):
        total: PrimExpr = IntImm(0, INDEX_DTYPE)
        for part in stmt.stmts:
            count = _count(part, bound)
            if count is None:
                return None
            total = binary("add", total, count)
        return total
    if isinstance(stmt, IfThenElse):
        then = _count(stmt.then_case, bound)
        if stmt.else_case is None or then is None:
            return then
        other = _count(stmt.else_case, bound)
        return None if other is None else binary("max", then, other)
    if isinstance(stmt, LetStmt):
        if not free_index_vars(stmt.value) <= bound:
            return _count(stmt.body, bound)
        body = _count(stmt.body, bound | {stmt.var})
        return None if body is None else substitute(body, {stmt.var: stmt.value})
    if isinstance(stmt, Allocate):
        return _count(stmt.body, bound)
    if isinstance(stmt, Barrier):
        return IntImm(0, INDEX_DTYPE)
    return None
