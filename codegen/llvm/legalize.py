"""Legalize vectorized loops: split lane counts that are not powers of two.

LLVM lowers a `<24 x float>` into shuffles and spills on x86; a loop of 24 lanes runs
much faster as one 16-lane and one 8-lane vector body. Each vectorized loop whose extent
is not a power of two (or exceeds `max_lanes`) becomes a sequence of loops of
power-of-two extents, the later ones offset by the lanes before them.
"""

from __future__ import annotations

from dataclasses import replace

from ir.tir.expr import IntImm, Var, binary
from ir.tir.stmt import Allocate, For, IfThenElse, LetStmt, PrimFunc, Seq, Stmt, seq
from ir.tir.visit import map_stmt_exprs, substitute


def lane_chunks(extent: int, max_lanes: int) -> list[int]:
    """Power-of-two chunk sizes (each at most `max_lanes`) that add up to `extent`."""
    chunks: list[int] = []
    remaining = extent
    while remaining > 0:
        size = min(max_lanes, 1 << (remaining.bit_length() - 1))
        chunks.append(size)
        remaining -= size
    return chunks


def _offset(stmt: Stmt, var: Var, offset: int) -> Stmt:
    if offset == 0:
        return stmt
    shifted = binary("add", var, offset)
    return map_stmt_exprs(stmt, lambda expr: substitute(expr, {var: shifted}))


def _legalize(stmt: Stmt, max_lanes: int) -> Stmt:
    if isinstance(stmt, For):
        body = _legalize(stmt.body, max_lanes)
        if stmt.kind == "vectorized" and isinstance(stmt.extent, IntImm):
            extent = stmt.extent.value
            chunks = lane_chunks(extent, max_lanes)
            if len(chunks) > 1:
                loops: list[Stmt] = []
                start = 0
                for size in chunks:
                    kind = "vectorized" if size > 1 else "serial"
                    loops.append(
                        replace(
                            stmt,
                            extent=IntImm(size),
                            kind=kind,
                            body=_offset(body, stmt.var, start),
                        )
                    )
                    start += size
                return seq(*loops)
        return replace(stmt, body=body)
    if isinstance(stmt, Seq):
        return Seq(tuple(_legalize(s, max_lanes) for s in stmt.stmts))
    if isinstance(stmt, IfThenElse):
        else_case = _legalize(stmt.else_case, max_lanes) if stmt.else_case is not None else None
        return replace(stmt, then_case=_legalize(stmt.then_case, max_lanes), else_case=else_case)
    if isinstance(stmt, Allocate | LetStmt):
        return replace(stmt, body=_legalize(stmt.body, max_lanes))
    return stmt


def legalize_vector_loops(func: PrimFunc, max_lanes: int = 64) -> PrimFunc:
    """Split vectorized loops into power-of-two lane counts of at most `max_lanes`."""
    body = _legalize(func.body, max_lanes)
    return func if body is func.body else replace(func, body=body)
