"""Generic traversal and rewriting of scalar expressions and loop IR statements."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from ir.tir import expr as E
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


def _no_children(expr: PrimExpr) -> tuple[PrimExpr, ...]:
    return ()


def _operands(expr: Binary | Compare) -> tuple[PrimExpr, ...]:
    return (expr.lhs, expr.rhs)


def _logical_children(expr: Logical) -> tuple[PrimExpr, ...]:
    return (expr.lhs,) if expr.rhs is None else (expr.lhs, expr.rhs)


def _select_children(expr: Select) -> tuple[PrimExpr, ...]:
    return (expr.condition, expr.true_value, expr.false_value)


def _reduce_children(expr: Reduce) -> tuple[PrimExpr, ...]:
    return (expr.source,) if expr.condition is None else (expr.source, expr.condition)


# One lookup by exact type instead of a chain of isinstance tests: traversals call this
# for every node. (Subclasses of the node types fall back to the chain.)
_CHILDREN: dict[type, Callable[[Any], tuple[PrimExpr, ...]]] = {
    IntImm: _no_children,
    FloatImm: _no_children,
    Var: _no_children,
    Binary: _operands,
    Compare: _operands,
    Logical: _logical_children,
    Select: _select_children,
    Cast: lambda expr: (expr.value,),
    Call: lambda expr: expr.args,
    TensorRead: lambda expr: expr.indices,
    Reduce: _reduce_children,
    Load: lambda expr: (expr.index,),
}


def expr_children(expr: PrimExpr) -> tuple[PrimExpr, ...]:
    """The direct sub-expressions of `expr`."""
    children = _CHILDREN.get(type(expr))
    if children is not None:
        return children(expr)
    for kind, getter in _CHILDREN.items():
        if isinstance(expr, kind):
            return getter(expr)
    return ()


def rebuild_expr(expr: PrimExpr, children: tuple[PrimExpr, ...]) -> PrimExpr:
    """`expr` with new children (the same object when they are unchanged)."""
    old = expr_children(expr)
    if all(a is b for a, b in zip(old, children, strict=True)):
        return expr
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
    kind = type(expr)
    if kind is Binary:  # the common case, without the generic child tuple
        lhs = map_expr(expr.lhs, visit)  # type: ignore[attr-defined]
        rhs = map_expr(expr.rhs, visit)  # type: ignore[attr-defined]
        if lhs is expr.lhs and rhs is expr.rhs:  # type: ignore[attr-defined]
            return expr
        return E.binary(expr.op, lhs, rhs)  # type: ignore[attr-defined]
    if kind is Var or kind is IntImm or kind is FloatImm:
        return expr
    children = expr_children(expr)
    if not children:
        return expr
    return rebuild_expr(expr, tuple(map_expr(child, visit) for child in children))


Rewrite = Callable[[PrimExpr], PrimExpr]


def map_expr_shared(
    expr: PrimExpr, visit: Callable[[PrimExpr, Rewrite], PrimExpr | None]
) -> PrimExpr:
    """Rewrite top-down like `map_expr`, but each distinct node object only once.

    `visit(node, rewrite)` returns a replacement, or None to recurse into the children;
    it may call `rewrite` on sub-expressions of its own choosing (a read's indices).
    Constants are kept as they are. Lowering builds expressions that share sub-trees (an
    axis's index appears in every access), so results are remembered by node identity
    for this call (the nodes stay alive inside `expr` meanwhile): `visit` must be pure.
    """
    return _SharedRewrite(visit).rewrite(expr)


class _SharedRewrite:
    """The state of one `map_expr_shared` call.

    (A recursive closure would refer to itself: a reference cycle that keeps the memo and
    every node in it alive until the cyclic garbage collector runs.)
    """

    __slots__ = ("done", "visit")

    def __init__(self, visit: Callable[[PrimExpr, Rewrite], PrimExpr | None]) -> None:
        self.visit = visit
        self.done: dict[int, PrimExpr] = {}

    def rewrite(self, node: PrimExpr) -> PrimExpr:
        kind = type(node)
        if kind is IntImm or kind is FloatImm:
            return node
        done = self.done
        known = done.get(id(node))
        if known is not None:
            return known
        rewrite = self.rewrite
        result = self.visit(node, rewrite)
        if result is None:
            if kind is Binary:  # the common case, without the generic child tuple
                lhs, rhs = rewrite(node.lhs), rewrite(node.rhs)  # type: ignore[attr-defined]
                unchanged = lhs is node.lhs and rhs is node.rhs  # type: ignore[attr-defined]
                result = node if unchanged else E.binary(node.op, lhs, rhs)  # type: ignore[attr-defined]
            elif kind is Compare:  # (guards and selects: as `rebuild_expr` does it)
                lhs, rhs = rewrite(node.lhs), rewrite(node.rhs)  # type: ignore[attr-defined]
                unchanged = lhs is node.lhs and rhs is node.rhs  # type: ignore[attr-defined]
                result = node if unchanged else E.compare(node.op, lhs, rhs)  # type: ignore[attr-defined]
            else:
                children = expr_children(node)
                result = rebuild_expr(node, tuple(rewrite(child) for child in children))
        done[id(node)] = result
        return result


def substitute(expr: PrimExpr, mapping: Mapping[Var, PrimExpr]) -> PrimExpr:
    """Replace variables by expressions."""
    if not mapping:
        return expr

    def visit(node: PrimExpr, _: Rewrite) -> PrimExpr | None:
        return mapping.get(node) if type(node) is Var else None  # type: ignore[call-overload]

    return map_expr_shared(expr, visit)


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
