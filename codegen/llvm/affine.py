"""Small index analyses: the coefficient of a variable in an affine index, and sign facts.

`linear_coefficient(index, var)` answers "how far does `index` move when `var` grows
by one?" when that is a compile-time constant: the vectorizer turns a coefficient of
1 into one contiguous vector access, 0 into a scalar access, a small one (2 to 4, or
-1 to -4) into contiguous loads and a shuffle, and anything else (including None, "not
affine in var") into a gather or scatter.
"""

from __future__ import annotations

from collections.abc import Set

from ir.tir.expr import Binary, Cast, FloatImm, IntImm, Load, PrimExpr, Var
from ir.tir.visit import walk_expr


def depends_on(expr: PrimExpr, variables: Set[Var]) -> bool:
    """Whether `expr` mentions any of `variables` (inside loads' indices too)."""
    return any(isinstance(node, Var) and node in variables for node in walk_expr(expr))


def linear_coefficient(expr: PrimExpr, var: Var, opaque: Set[Var] = frozenset()) -> int | None:
    """The constant c with `expr(var + 1) - expr(var) == c` for every value, else None.

    Handles sums, differences and products by integer constants of `var` and of
    terms free of it. Any other use of `var` (floordiv, floormod, min, a load index,
    a product with another variable), or any use of an `opaque` variable (one that
    depends on `var` in a way the caller cannot expand), gives None.
    """
    if isinstance(expr, Var):
        if expr == var:
            return 1
        return None if expr in opaque else 0
    if isinstance(expr, IntImm | FloatImm):
        return 0
    if isinstance(expr, Binary) and expr.op in ("add", "sub"):
        lhs = linear_coefficient(expr.lhs, var, opaque)
        rhs = linear_coefficient(expr.rhs, var, opaque)
        if lhs is None or rhs is None:
            return None
        return lhs + rhs if expr.op == "add" else lhs - rhs
    if isinstance(expr, Binary) and expr.op == "mul":
        lhs = linear_coefficient(expr.lhs, var, opaque)
        rhs = linear_coefficient(expr.rhs, var, opaque)
        if lhs is None or rhs is None:
            return None
        if lhs == 0 and rhs == 0:
            return 0
        if isinstance(expr.rhs, IntImm):
            return lhs * expr.rhs.value
        if isinstance(expr.lhs, IntImm):
            return rhs * expr.lhs.value
        return None  # var times a symbolic stride: not a compile-time constant step
    if isinstance(expr, Cast) and not _is_float(expr.dtype) and not _is_float(expr.value.dtype):
        # Integer widening/narrowing keeps the step as long as nothing wraps, which
        # holds for in-bounds indices.
        return linear_coefficient(expr.value, var, opaque)
    return None if depends_on(expr, {var, *opaque}) else 0


def is_non_negative(expr: PrimExpr, non_negative_vars: Set[Var]) -> bool:
    """Whether `expr` is provably >= 0: built from non-negative constants and variables
    by add, mul, min, max, floordiv and floormod (divisors positive constants or vars).

    Conservative: False means "not proven", not "negative".
    """
    if isinstance(expr, IntImm):
        return expr.value >= 0
    if isinstance(expr, Var):
        return expr in non_negative_vars
    if isinstance(expr, Binary) and expr.op in ("add", "mul", "min", "max", "floordiv", "floormod"):
        return is_non_negative(expr.lhs, non_negative_vars) and is_non_negative(
            expr.rhs, non_negative_vars
        )
    if isinstance(expr, Load):
        return expr.dtype.startswith("uint") or expr.dtype == "bool"
    if isinstance(expr, Cast):
        # Widening a non-negative integer keeps it non-negative; narrowing, or a
        # same-width unsigned-to-signed cast, may not.
        return (
            not _is_float(expr.value.dtype)
            and not _is_float(expr.dtype)
            and _int_bits(expr.dtype) > _int_bits(expr.value.dtype)
            and is_non_negative(expr.value, non_negative_vars)
        )
    return False


def _is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def _int_bits(dtype: str) -> int:
    if dtype == "bool":
        return 1
    digits = "".join(ch for ch in dtype if ch.isdigit())
    return int(digits) if digits else 64
