"""Generic traversal and rewriting of scalar expressions and loop IR statements."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace

from ir.tir.expr import (
    Binary,
    Call,
    Cast,
    Compare,
    FloatImm,
    IntImm,
    IterVar,
    Load,
    Logical,
    PrimExpr,
    Reduce,
    Select,
    TensorRead,
    Var,
)
from ir.tir.stmt import Allocate, Barrier, For, IfThenElse, LetStmt, Seq, Stmt, Store


def expr_children(expr: PrimExpr) -> tuple[PrimExpr, ...]:
    """The direct sub-expressions of `expr`."""
    if isinstance(expr, Binary | Compare):
        return (expr.lhs, expr.rhs)
    if isinstance(expr, Logical):
        return (expr.lhs,) if expr.rhs is None else (expr.lhs, expr.rhs)
    if isinstance(expr, Select):
        return (expr.condition, expr.true_value, expr.false_value)
    if isinstance(expr, Cast):
        return (expr.value,)
    if isinstance(expr, Call):
        return expr.args
    if isinstance(expr, TensorRead):
        return expr.indices
    if isinstance(expr, Reduce):
        return (expr.source,) if expr.condition is None else (expr.source, expr.condition)
    if isinstance(expr, Load):
        return (expr.index,)
    return ()


def rebuild_expr(expr: PrimExpr, children: tuple[PrimExpr, ...]) -> PrimExpr:
    """`expr` with new children (the same object when they are unchanged)."""
    old = expr_children(expr)
    if all(a is b for a, b in zip(old, children, strict=True)):
        return expr
    from ir.tir import expr as E

    if isinstance(expr, Binary):
        return E.binary(expr.op, children[0], children[1])
    if isinstance(expr, Compare):
        return E.compare(expr.op, children[0], children[1])
    if isinstance(expr, Logical):
        if expr.op == "and":
            return E.logical_and(children[0], children[1])
        if expr.op == "or":
            return E.logical_or(children[0], children[1])
        return E.logical_not(children[0])
    if isinstance(expr, Select):
        return E.select(children[0], children[1], children[2])
    if isinstance(expr, Cast):
        return E.cast(expr.dtype, children[0])
    if isinstance(expr, Call):
        return replace(expr, args=children)
    if isinstance(expr, TensorRead):
        return replace(expr, indices=children)
    if isinstance(expr, Reduce):
        condition = children[1] if len(children) > 1 else None
        return replace(expr, source=children[0], condition=condition)
    if isinstance(expr, Load):
        return replace(expr, index=children[0])
    raise TypeError(f"{type(expr).__name__} has no children")


def map_expr(expr: PrimExpr, visit: Callable[[PrimExpr], PrimExpr | None]) -> PrimExpr:
    """Rewrite top-down: `visit` returns a replacement, or None to recurse into children."""
    result = visit(expr)
    if result is not None:
        return result
    children = expr_children(expr)
    if not children:
        return expr
    return rebuild_expr(expr, tuple(map_expr(child, visit) for child in children))


def substitute(expr: PrimExpr, mapping: Mapping[Var, PrimExpr]) -> PrimExpr:
    """Replace variables by expressions."""
    if not mapping:
        return expr

    def visit(node: PrimExpr) -> PrimExpr | None:
        if isinstance(node, Var):
            return mapping.get(node, node)
        if isinstance(node, IntImm | FloatImm):
            return node
        return None

    return map_expr(expr, visit)


def walk_expr(expr: PrimExpr) -> Iterator[PrimExpr]:
    """Every sub-expression of `expr`, parents before children."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(expr_children(node)))


def free_index_vars(expr: PrimExpr) -> set[Var]:
    """Variables that `expr` mentions (reduce axes of a Reduce excluded)."""
    found = {node for node in walk_expr(expr) if isinstance(node, Var)}
    for node in walk_expr(expr):
        if isinstance(node, Reduce):
            found -= {axis.var for axis in node.axes}
    return found


def iter_var_names(axes: tuple[IterVar, ...]) -> list[str]:
    """The names of some iteration axes."""
    return [axis.name for axis in axes]


def stmt_children(stmt: Stmt) -> tuple[Stmt, ...]:
    """The direct sub-statements of `stmt`."""
    if isinstance(stmt, For | Allocate | LetStmt):
        return (stmt.body,)
    if isinstance(stmt, IfThenElse):
        return (stmt.then_case,) if stmt.else_case is None else (stmt.then_case, stmt.else_case)
    if isinstance(stmt, Seq):
        return stmt.stmts
    return ()


def walk_stmt(stmt: Stmt) -> Iterator[Stmt]:
    """Every statement under `stmt`, parents before children."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(stmt_children(node)))


def map_stmt_exprs(stmt: Stmt, fn: Callable[[PrimExpr], PrimExpr]) -> Stmt:
    """Apply `fn` to every expression held directly by statements under `stmt`."""
    if isinstance(stmt, For):
        return replace(stmt, extent=fn(stmt.extent), body=map_stmt_exprs(stmt.body, fn))
    if isinstance(stmt, Store):
        return replace(stmt, index=fn(stmt.index), value=fn(stmt.value))
    if isinstance(stmt, Allocate):
        return replace(stmt, body=map_stmt_exprs(stmt.body, fn))
    if isinstance(stmt, IfThenElse):
        else_case = map_stmt_exprs(stmt.else_case, fn) if stmt.else_case is not None else None
        return replace(
            stmt,
            condition=fn(stmt.condition),
            then_case=map_stmt_exprs(stmt.then_case, fn),
            else_case=else_case,
        )
    if isinstance(stmt, Seq):
        return Seq(tuple(map_stmt_exprs(s, fn) for s in stmt.stmts))
    if isinstance(stmt, LetStmt):
        return replace(stmt, value=fn(stmt.value), body=map_stmt_exprs(stmt.body, fn))
    if isinstance(stmt, Barrier):
        return stmt
    raise TypeError(f"unknown statement {type(stmt).__name__}")
