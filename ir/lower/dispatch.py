"""Size dispatch: one kernel that runs one of two lowerings of a program, by the run-time
values of its size variables.

A schedule is fitted to the upper bounds of a program's symbolic dims; where a size
variable's range is wide (a sequence of 1 to 384 tokens), its small sizes run mostly in
partial tiles. The program narrowed to small sizes (`ir.graph.passes.narrow_sizes`) gets
a schedule and a lowering of its own, valid only there; `dispatch_on_sizes` joins the two
into one kernel with the wide one's signature, so callers see one kernel per workload.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ir.errors import IRError
from ir.tir.expr import INDEX_DTYPE, Buffer, Load, PrimExpr, compare, const, logical_and
from ir.tir.stmt import Allocate, For, IfThenElse, LetStmt, PrimFunc, Seq, Stmt, Store
from ir.tir.visit import map_expr


def dispatch_on_sizes(small: PrimFunc, wide: PrimFunc, limits: Mapping[str, int]) -> PrimFunc:
    """A kernel of `wide`'s signature running `small`'s body where every size variable
    named in `limits` is at most its limit, else `wide`'s body. Both are lowerings of one
    program, `small`'s for those narrower ranges: their parameters match by position
    (the same dims, other upper bounds) and their size variables by name."""
    if len(small.params) != len(wide.params) or small.num_outputs != wide.num_outputs:
        raise IRError(f"{small.name} and {wide.name} do not take the same parameters")
    buffers = dict(zip(small.params, wide.params, strict=True))
    for narrow, full in buffers.items():
        same_shape = bool(full.dims) or narrow.shape == full.shape  # (static: the layout)
        if (narrow.name, narrow.dtype, narrow.dims) != (full.name, full.dtype, full.dims) or (
            not same_shape
        ):
            raise IRError(f"parameter {narrow.name} of {small.name} is not {full.name}'s")
    sizes = {var.name: var for var in wide.size_params}
    missing = sorted(set(limits) - set(sizes))
    if missing or {var.name for var in small.size_params} != set(sizes):
        raise IRError(f"{wide.name} has no size variable(s) {missing or sorted(sizes)}")
    condition: PrimExpr | None = None
    for name, limit in sorted(limits.items()):
        test = compare("le", sizes[name], const(int(limit), INDEX_DTYPE))
        condition = test if condition is None else logical_and(condition, test)
    if condition is None:
        return wide
    return replace(wide, body=IfThenElse(condition, _rebind(small.body, buffers), wide.body))


def _rebind(stmt: Stmt, buffers: Mapping[Buffer, Buffer]) -> Stmt:
    """`stmt` with its loads and stores of `buffers`' keys made of their values."""

    def expr(value: PrimExpr) -> PrimExpr:
        def visit(node: PrimExpr) -> PrimExpr | None:
            if isinstance(node, Load) and node.buffer in buffers:
                return Load(buffers[node.buffer], map_expr(node.index, visit))
            return None

        return map_expr(value, visit)

    if isinstance(stmt, Store):
        return Store(buffers.get(stmt.buffer, stmt.buffer), expr(stmt.index), expr(stmt.value))
    if isinstance(stmt, For):
        return For(
            stmt.var, expr(stmt.extent), stmt.kind, _rebind(stmt.body, buffers), stmt.thread_tag
        )
    if isinstance(stmt, Allocate):
        return replace(stmt, body=_rebind(stmt.body, buffers))
    if isinstance(stmt, IfThenElse):
        otherwise = None if stmt.else_case is None else _rebind(stmt.else_case, buffers)
        return IfThenElse(expr(stmt.condition), _rebind(stmt.then_case, buffers), otherwise)
    if isinstance(stmt, Seq):
        return Seq(tuple(_rebind(item, buffers) for item in stmt.stmts))
    if isinstance(stmt, LetStmt):
        return LetStmt(stmt.var, expr(stmt.value), _rebind(stmt.body, buffers))
    return stmt  # (a barrier)
