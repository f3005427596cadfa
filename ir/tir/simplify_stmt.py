"""Simplify loop IR statements (TVM's `tir.Simplify`, reduced): `simplify_stmt` walks a
loop nest with the ranges of the enclosing loop variables, simplifies every expression
(`ir.tir.simplify`), drops proven conditionals and loops of extent 0, and inlines loops
of extent 1."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from ir.tir import expr as E
from ir.tir.arith import (
    Interval,
    RangeMap,
    collect_linear,
    interval,
    is_int_dtype,
    linear_interval,
    normalize_linear,
)
from ir.tir.expr import (
    Compare,
    FloatImm,
    IntImm,
    Logical,
    PrimExpr,
    Var,
    is_float,
)
from ir.tir.simplify import (
    FLIPPED_COMPARE,
    MIRRORED_COMPARE,
    ExprSimplifier,
    LinearHint,
)
from ir.tir.sizes import solve_dim
from ir.tir.stmt import (
    Allocate,
    Barrier,
    For,
    IfThenElse,
    LetStmt,
    PrimFunc,
    Seq,
    Stmt,
    Store,
)
from ir.tir.visit import map_expr

EMPTY = Seq(())
"""The statement that does nothing (what a fully eliminated statement becomes)."""

_INF = math.inf


def simplify_stmt(
    stmt: Stmt,
    hints: Mapping[int, LinearHint] | None = None,
    size_ranges: Mapping[Var, Interval] | None = None,
) -> Stmt:
    """Simplify every expression of a loop nest and drop the statements that do nothing.

    Loop variables range over [0, extent - 1]; proven conditionals keep only their live
    branch, and a branch knows the `var op const` facts of its condition; loops of
    extent 0 vanish and loops of extent 1 become their body with the variable replaced
    by 0 (as do lets of constants); sequences are flattened. Returns `EMPTY` if nothing
    is left. `hints` (by node identity) name index expressions already in canonical form;
    `size_ranges` gives the ranges of the size variables, and a loop running to a
    symbolic extent proves `var < extent` inside it.
    """
    simplifier = _StmtSimplifier(hints)
    simplifier.ranges.update(size_ranges or {})
    result = simplifier.visit(stmt)
    return EMPTY if result is None else result


def simplify_func(func: PrimFunc, hints: Mapping[int, LinearHint] | None = None) -> PrimFunc:
    """`func` with its body simplified by `simplify_stmt` (its size variables ranging
    over [1, the smallest upper bound of a parameter dim they are])."""
    body = simplify_stmt(func.body, hints, size_ranges(func))
    return func if body is func.body else replace(func, body=body)


def size_ranges(func: PrimFunc) -> dict[Var, Interval]:
    """The range of each size variable of `func` that a parameter dim binds (by itself, or
    plus, minus or times constants: `solve_dim`)."""
    ranges: dict[Var, Interval] = {}
    for buffer in func.params:
        for dim, upper in zip(buffer.dims, buffer.shape, strict=False):
            solved = solve_dim(dim, upper)
            if solved is not None:
                var, largest = solved
                ranges[var] = (1, min(largest, ranges.get(var, (1, largest))[1]))
    return ranges


class _StmtSimplifier:
    """Walks statements, tracking loop-variable ranges and variables replaced by constants."""

    def __init__(self, hints: Mapping[int, LinearHint] | None = None) -> None:
        # A variable replaced by a constant c (loop of extent 1, constant let) has range
        # (c, c): the expression simplifier turns it into c.
        self.ranges: dict[Var, Interval] = {}
        self.hints = hints
        self._simplifier: ExprSimplifier | None = None
        # The variables of the enclosing loops with symbolic extents, to those extents.
        self.symbolic_loops: dict[PrimExpr, PrimExpr] = {}

    def expr(self, expr: PrimExpr) -> PrimExpr:
        kind = type(expr)
        if kind is IntImm or kind is FloatImm:
            return expr
        simplifier = self._simplifier
        if simplifier is None:  # one per scope: statements share its memos
            simplifier = self._simplifier = ExprSimplifier(self.ranges, self.hints)
        if self.symbolic_loops:
            expr = map_expr(expr, self._loop_bound_fact)
        return simplifier.top(expr)

    def visit(self, stmt: Stmt) -> Stmt | None:
        """The simplified statement, or None when it does nothing."""
        kind = type(stmt)
        if kind is For:  # (the common kinds by type, before the isinstance chain)
            return self._for(stmt)  # type: ignore[arg-type]
        if isinstance(stmt, Store):
            index, value = self.expr(stmt.index), self.expr(stmt.value)
            if index is stmt.index and value is stmt.value:
                return stmt
            return Store(stmt.buffer, index, value)
        if isinstance(stmt, For):
            return self._for(stmt)
        if isinstance(stmt, Seq):
            return self._seq(stmt)
        if isinstance(stmt, IfThenElse):
            return self._if(stmt)
        if isinstance(stmt, Allocate):
            body = self.visit(stmt.body)
            if body is None:
                return None
            return stmt if body is stmt.body else Allocate(stmt.buffer, body)
        if isinstance(stmt, LetStmt):
            return self._let(stmt)
        if isinstance(stmt, Barrier):
            return stmt
        raise TypeError(f"unknown statement {type(stmt).__name__}")

    def _with_range(self, var: Var, stmt: Stmt, var_range: Interval) -> Stmt | None:
        """Visit `stmt` knowing that `var` lies in `var_range`."""
        return self._within({var: var_range}, stmt)

    def _within(self, facts: dict[Var, Interval], stmt: Stmt) -> Stmt | None:
        """Visit `stmt` in a scope where the variables of `facts` have those ranges."""
        saved = (self.ranges, self._simplifier)
        self.ranges = {**self.ranges, **facts}
        self._simplifier = None
        try:
            return self.visit(stmt)
        finally:
            self.ranges, self._simplifier = saved

    def _for(self, stmt: For) -> Stmt | None:
        extent = stmt.extent
        if type(extent) is not IntImm:
            extent = self.expr(extent)
        if type(extent) is IntImm:
            if extent.value <= 0:
                return None
            if extent.value == 1:
                return self._within({stmt.var: (0, 0)}, stmt.body)
            loop_range: Interval = (0, extent.value - 1)
        else:
            high = interval(extent, self.ranges, None)[1]
            if high <= 0:
                return None
            loop_range = (0, high - 1)
            self.symbolic_loops[stmt.var] = extent
        body = self._within({stmt.var: loop_range}, stmt.body)
        self.symbolic_loops.pop(stmt.var, None)
        if body is None:
            return None
        if body is stmt.body and extent is stmt.extent:
            return stmt
        return For(stmt.var, extent, stmt.kind, body, stmt.thread_tag)

    def _seq(self, stmt: Seq) -> Stmt | None:
        flat: list[Stmt] = []
        changed = False
        for child in stmt.stmts:
            result = self.visit(child)
            if result is not child:
                changed = True
            if result is None:
                continue
            if isinstance(result, Seq):
                flat.extend(result.stmts)
                changed = True
            else:
                flat.append(result)
        if not flat:
            return None
        if len(flat) == 1:
            return flat[0]
        return Seq(tuple(flat)) if changed else stmt

    def _if(self, stmt: IfThenElse) -> Stmt | None:
        condition = self.expr(stmt.condition)
        if self.symbolic_loops and type(condition) is not IntImm:
            condition = self.expr(condition)  # (again: simplified, it may match a fact)
        if type(condition) is IntImm:
            branch = stmt.then_case if condition.value else stmt.else_case
            return None if branch is None else self.visit(branch)
        then_case = self._assuming(condition, True, stmt.then_case)
        else_case = None
        if stmt.else_case is not None:
            else_case = self._assuming(condition, False, stmt.else_case)
        if then_case is None:
            if else_case is None:
                return None
            return IfThenElse(_negate(condition), else_case)
        unchanged = condition is stmt.condition and then_case is stmt.then_case
        if unchanged and else_case is stmt.else_case:
            return stmt
        return IfThenElse(condition, then_case, else_case)

    def _loop_bound_fact(self, node: PrimExpr) -> PrimExpr | None:
        """True for `var < E` where `var` runs a loop to the symbolic `E`, and for
        `f * var + rest < E` where it runs to `E // f` and `rest` lies in [0, f - 1] (an
        index within the whole tiles of E)."""
        if type(node) is not Compare or node.op != "lt":
            return None
        if self.symbolic_loops.get(node.lhs) == node.rhs:
            return E.const(True, "bool")
        terms: dict[PrimExpr, int] = {}
        const = collect_linear(node.lhs, 1, terms)
        for var, coef in terms.items():
            extent = self.symbolic_loops.get(var)
            if (
                coef > 0
                and isinstance(extent, E.Binary)
                and extent.op == "floordiv"
                and extent.lhs == node.rhs
                and extent.rhs == E.IntImm(coef)
            ):
                rest = {atom: scale for atom, scale in terms.items() if atom is not var}
                low, high = linear_interval(rest, const, self.ranges, None)
                if low >= 0 and high <= coef - 1:
                    return E.const(True, "bool")
        return None

    def _assuming(self, condition: PrimExpr, truth: bool, stmt: Stmt) -> Stmt | None:
        """Visit `stmt`, which only runs when `condition` has the value `truth`."""
        narrowed: dict[Var, Interval] = {}
        _narrow(condition, truth, self.ranges, narrowed)
        if not narrowed:
            return self.visit(stmt)
        return self._within(narrowed, stmt)

    def _let(self, stmt: LetStmt) -> Stmt | None:
        value = self.expr(stmt.value)
        if type(value) is IntImm and is_int_dtype(stmt.var.dtype):
            return self._with_range(stmt.var, stmt.body, (value.value, value.value))
        if is_int_dtype(value.dtype):
            body = self._with_range(stmt.var, stmt.body, interval(value, self.ranges, None))
        else:
            body = self.visit(stmt.body)
        if body is None:
            return None
        if value is stmt.value and body is stmt.body:
            return stmt
        return LetStmt(stmt.var, value, body)


def _negate(condition: PrimExpr) -> PrimExpr:
    if isinstance(condition, Compare) and not is_float(condition.lhs.dtype):
        # (with floats, not (a < b) differs from a >= b when either is NaN)
        return Compare(FLIPPED_COMPARE[condition.op], condition.lhs, condition.rhs)
    if isinstance(condition, Logical) and condition.op == "not":
        return condition.lhs
    return E.logical_not(condition)


def _narrow(
    condition: PrimExpr, truth: bool, ranges: RangeMap, narrowed: dict[Var, Interval]
) -> None:
    """Tighten variable ranges from `condition == truth` (`var op const` facts only)."""
    if isinstance(condition, Logical):
        if condition.op == "not":
            _narrow(condition.lhs, not truth, ranges, narrowed)
        elif condition.rhs is not None and (condition.op == "and") == truth:
            _narrow(condition.lhs, truth, ranges, narrowed)
            _narrow(condition.rhs, truth, ranges, narrowed)
        return
    if not isinstance(condition, Compare) or not is_int_dtype(condition.lhs.dtype):
        return
    terms: dict[PrimExpr, int] = {}
    const = collect_linear(condition.lhs, 1, terms) + collect_linear(condition.rhs, -1, terms)
    terms, const = normalize_linear(terms, const)
    if len(terms) != 1:
        return
    ((var, coef),) = terms.items()
    if not isinstance(var, Var):
        return
    op = condition.op if truth else FLIPPED_COMPARE[condition.op]
    # coef * var + const  op  0; make the relation non-strict and the coefficient positive.
    if op == "lt":
        op, const = "le", const + 1
    elif op == "gt":
        op, const = "ge", const - 1
    if coef < 0:
        coef, const, op = -coef, -const, MIRRORED_COMPARE[op]
    limit = -const  # coef * var  op  limit
    lo, hi = narrowed.get(var) or ranges.get(var) or (-_INF, _INF)
    if op in ("le", "eq"):
        hi = min(hi, limit // coef)
    if op in ("ge", "eq"):
        lo = max(lo, -(-limit // coef))
    if op == "ne" or lo > hi:
        return
    narrowed[var] = (lo, hi)
