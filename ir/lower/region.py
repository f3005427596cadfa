"""Bound inference for compute_at: the region of a producer one consumer iteration needs.

Index expressions are split into an affine part over the free (inner) loop variables and
a rest that depends only on the fixed (outer) ones. Reads that differ only by constants
share one region; anything else falls back to the producer's whole extent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ir.tir.expr import Binary, IntImm, PrimExpr, Var, binary, slot_setters
from ir.tir.visit import walk_expr


@dataclass(frozen=True, slots=True, init=False)
class AffineIndex:
    """index = rest + const + sum(coef * var) over free vars."""

    coefs: tuple[tuple[Var, int], ...]
    rest: PrimExpr | None
    const: int

    def __init__(
        self, coefs: tuple[tuple[Var, int], ...], rest: PrimExpr | None, const: int
    ) -> None:
        # (one per read index and dimension: the generated frozen `__init__` costs more)
        _set_coefs(self, coefs)
        _set_rest(self, rest)
        _set_const(self, const)


_set_coefs, _set_rest, _set_const = slot_setters(AffineIndex, "coefs", "rest", "const")


def _name_of(term: tuple[Var, int]) -> str:
    return term[0].name


def _mentions(expr: PrimExpr, free: Mapping[Var, object]) -> bool:
    return any(isinstance(node, Var) and node in free for node in walk_expr(expr))


def affine_in(expr: PrimExpr, free: Mapping[Var, object]) -> AffineIndex | None:
    """Decompose `expr` as affine in the `free` vars (the keys of `free`), or None when it
    is not."""
    result = _decompose(expr, free)
    if result is None:
        return None
    coefs, rest, const = result
    ordered = [(var, coef) for var, coef in coefs.items() if coef != 0]
    if len(ordered) > 1:
        ordered.sort(key=_name_of)
    return AffineIndex(tuple(ordered), rest, const)


def _add_rest(lhs: PrimExpr | None, rhs: PrimExpr | None, sign: int) -> PrimExpr | None:
    if rhs is None:
        return lhs
    if sign < 0:
        rhs = binary("mul", rhs, -1)
    if lhs is None:
        return rhs
    return binary("add", lhs, rhs)


def _decompose(
    expr: PrimExpr, free: Mapping[Var, object]
) -> tuple[dict[Var, int], PrimExpr | None, int] | None:
    kind = type(expr)  # (no subclasses of these node types exist)
    if kind is IntImm:
        return {}, None, expr.value  # type: ignore[attr-defined]
    if kind is Var:
        if expr in free:
            return {expr: 1}, None, 0  # type: ignore[dict-item]
        return {}, expr, 0
    if not isinstance(expr, Binary):
        if not _mentions(expr, free):
            return {}, expr, 0
        return None
    if expr.op in ("add", "sub"):
        left = _decompose(expr.lhs, free)
        right = _decompose(expr.rhs, free)
        if left is None or right is None:
            return None
        sign = 1 if expr.op == "add" else -1
        coefs = dict(left[0])
        for var, coef in right[0].items():
            coefs[var] = coefs.get(var, 0) + sign * coef
        return coefs, _add_rest(left[1], right[1], sign), left[2] + sign * right[2]
    if expr.op == "mul":
        for scaled, factor in ((expr.lhs, expr.rhs), (expr.rhs, expr.lhs)):
            if isinstance(factor, IntImm):
                inner = _decompose(scaled, free)
                if inner is None:
                    return None
                coefs = {var: coef * factor.value for var, coef in inner[0].items()}
                rest = binary("mul", inner[1], factor.value) if inner[1] is not None else None
                return coefs, rest, inner[2] * factor.value
    if not _mentions(expr, free):
        return {}, expr, 0
    return None


@dataclass(frozen=True)
class Region:
    """For each dimension: start (an expression of fixed vars) and constant extent."""

    starts: tuple[PrimExpr, ...]
    extents: tuple[int, ...]


def infer_region(
    reads: Sequence[Sequence[PrimExpr]], free: Mapping[Var, int], shape: Sequence[int]
) -> Region:
    """The box of a producer covering every read while free vars range over [0, extent)."""
    starts: list[PrimExpr] = []
    extents: list[int] = []
    for dim, size in enumerate(shape):
        pieces = [affine_in(read[dim], free) for read in reads]
        region = _union(pieces, free)
        if region is None:
            starts.append(IntImm(0))
            extents.append(size)
            continue
        start, extent = region
        if extent >= size and isinstance(start, IntImm) and start.value == 0:
            extent = size
        starts.append(start)
        extents.append(extent)
    return Region(tuple(starts), tuple(extents))


def _union(
    pieces: Sequence[AffineIndex | None], free: Mapping[Var, int]
) -> tuple[PrimExpr, int] | None:
    if not pieces or any(piece is None for piece in pieces):
        return None
    lows: list[int] = []
    highs: list[int] = []
    rest = pieces[0].rest if pieces[0] is not None else None
    for piece in pieces:
        assert piece is not None
        if piece.rest != rest:
            return None
        low = high = piece.const
        for var, coef in piece.coefs:
            span = coef * (free[var] - 1)
            if span < 0:
                low += span
            else:
                high += span
        lows.append(low)
        highs.append(high)
    low, high = min(lows), max(highs)
    start = binary("add", rest, low) if rest is not None else IntImm(low)
    return start, high - low + 1


def constant_range(expr: PrimExpr, ranges: Mapping[Var, tuple[int, int]]) -> tuple[int, int] | None:
    """The [min, max] of an expression affine in vars with inclusive `ranges`, if it is."""
    piece = affine_in(expr, ranges)  # (affine in the variables that have a range)
    if piece is None or piece.rest is not None:
        return None
    low = piece.const
    high = piece.const
    for var, coef in piece.coefs:
        start, stop = ranges[var]
        low += min(coef * start, coef * stop)
        high += max(coef * start, coef * stop)
    return low, high
