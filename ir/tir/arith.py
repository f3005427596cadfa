"""Integer arithmetic analysis of scalar expressions: bounds, linear forms and proofs.

Modelled on TVM's `arith` analyzer, reduced to what the loop IR needs:

- `bound(expr, ranges)` gives a sound constant interval of an integer expression, given
  inclusive ranges of its variables (loop indices run over [0, extent - 1]);
- `linear_form(expr)` splits an expression into `sum(coef * atom) + const`, where atoms
  are variables or non-linear sub-expressions compared by structure;
- `prove(cond, ranges)` decides comparisons through the bound of `lhs - rhs`.

Integers are mathematical integers here (index arithmetic is int64 and never meant to
overflow), and `floordiv` / `floormod` round towards minus infinity, as Python's `//` and
`%` do. Internally an interval is a pair whose finite ends are Python ints and whose
unbounded ends are `±math.inf`; the public API turns the infinities into None.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import lru_cache

from ir.tir.expr import (
    INDEX_DTYPE,
    Binary,
    Cast,
    Compare,
    FloatImm,
    IntImm,
    Logical,
    PrimExpr,
    Select,
    Var,
)
from ir.tir.printer import format_expr
from ir.tir.visit import expr_children

IntervalMap = Mapping[Var, tuple[int, int]]
"""Inclusive integer ranges of variables."""

LinearForm = tuple[dict[PrimExpr, int], int]
"""`(terms, const)`: the expression `sum(coef * atom for atom, coef in terms) + const`."""

End = int | float
"""An interval end: an int, or -inf / +inf. (Spelled out rather than `float`, which
compiled code would turn every int into.)"""

Interval = tuple[End, End]
"""An inclusive interval; finite ends are ints, unbounded ends are -inf / +inf."""

RangeMap = Mapping[Var, Interval]
"""Variable ranges as used internally (ends may be unbounded)."""

IntervalCache = dict[PrimExpr, Interval]

_INF = math.inf
_UNBOUNDED: Interval = (-_INF, _INF)
_BOOL: Interval = (0, 1)
_TRUE: Interval = (1, 1)
_FALSE: Interval = (0, 0)
_LINEAR_OPS = frozenset(("add", "sub", "mul"))


@lru_cache(maxsize=64)
def is_int_dtype(dtype: str) -> bool:
    """Whether `dtype` is a (signed or unsigned) integer type; bool is not."""
    return dtype.startswith(("int", "uint"))


@lru_cache(maxsize=64)
def dtype_interval(dtype: str) -> Interval:
    """The values a scalar of `dtype` can hold (unbounded for floats and unknown types)."""
    if dtype == "bool":
        return _BOOL
    for prefix, signed in (("uint", False), ("int", True)):
        if dtype.startswith(prefix) and dtype[len(prefix) :].isdigit():
            bits = int(dtype[len(prefix) :])
            if signed:
                return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
            return (0, 2**bits - 1)
    return _UNBOUNDED


def _is_finite(value: End) -> bool:
    return -_INF < value < _INF


# --- bounds -------------------------------------------------------------------------


def bound(expr: PrimExpr, ranges: IntervalMap | None = None) -> tuple[int | None, int | None]:
    """A sound inclusive interval `(lo, hi)` of an integer expression; None = unbounded.

    Variables missing from `ranges` are unbounded (bools are 0 or 1).
    """
    lo, hi = interval(expr, ranges or {}, None)
    return (int(lo) if lo != -_INF else None, int(hi) if hi != _INF else None)


def interval(expr: PrimExpr, ranges: RangeMap, cache: IntervalCache | None) -> Interval:
    """The interval of `expr` (see `bound`), memoising composite nodes in `cache`."""
    kind = type(expr)
    if kind is IntImm:
        value = expr.value  # type: ignore[attr-defined]
        return (value, value)
    if kind is Var:
        known = ranges.get(expr)  # type: ignore[call-overload]
        if known is not None:
            return known  # type: ignore[no-any-return]
        return _default_interval(expr.dtype)
    if cache is not None:
        hit = cache.get(expr)
        if hit is not None:
            return hit
    result = _interval_of(expr, ranges, cache)
    if cache is not None:
        cache[expr] = result
    return result


def _default_interval(dtype: str) -> Interval:
    if dtype == "bool":
        return _BOOL
    if dtype.startswith("uint"):
        return (0, _INF)
    return _UNBOUNDED


def _interval_of(expr: PrimExpr, ranges: RangeMap, cache: IntervalCache | None) -> Interval:
    if isinstance(expr, Binary):
        if not is_int_dtype(expr.lhs.dtype):
            return _UNBOUNDED
        rule = _BINARY_RULES.get(expr.op)
        if rule is None:
            return _UNBOUNDED
        return rule(interval(expr.lhs, ranges, cache), interval(expr.rhs, ranges, cache))
    if isinstance(expr, Compare | Logical):
        verdict = _prove(expr, ranges, cache)
        return _BOOL if verdict is None else (_TRUE if verdict else _FALSE)
    if isinstance(expr, Select):
        verdict = _prove(expr.condition, ranges, cache)
        if verdict is not None:
            return interval(expr.true_value if verdict else expr.false_value, ranges, cache)
        true_lo, true_hi = interval(expr.true_value, ranges, cache)
        false_lo, false_hi = interval(expr.false_value, ranges, cache)
        return (min(true_lo, false_lo), max(true_hi, false_hi))
    if isinstance(expr, Cast):
        return _cast_interval(expr.dtype, expr.value, ranges, cache)
    return _default_interval(expr.dtype)


def _cast_interval(
    dtype: str, value: PrimExpr, ranges: RangeMap, cache: IntervalCache | None
) -> Interval:
    source = value.dtype
    if not (is_int_dtype(dtype) or dtype == "bool"):
        return _UNBOUNDED
    if not (is_int_dtype(source) or source == "bool"):
        return dtype_interval(dtype)  # float -> int: only the target type bounds it
    inner = interval(value, ranges, cache)
    if dtype == "bool":
        if inner == (0, 0):
            return _FALSE
        return _TRUE if inner[0] > 0 or inner[1] < 0 else _BOOL
    limits = dtype_interval(dtype)
    if limits[0] <= inner[0] and inner[1] <= limits[1]:
        return inner
    return limits  # the value may wrap around


def _add(a: Interval, b: Interval) -> Interval:
    return (a[0] + b[0], a[1] + b[1])


def _sub(a: Interval, b: Interval) -> Interval:
    return (a[0] - b[1], a[1] - b[0])


def _scale(a: Interval, factor: End) -> Interval:
    if factor == 0:
        return (0, 0)
    if factor > 0:
        return (a[0] * factor, a[1] * factor)
    return (a[1] * factor, a[0] * factor)


def _mul_end(x: End, y: End) -> End:
    # 0 * inf is 0 here: an unbounded end is never reached, so the product stays near 0.
    if x == 0 or y == 0:
        return 0
    return x * y


def _mul(a: Interval, b: Interval) -> Interval:
    if a[0] == a[1] and _is_finite(a[0]):
        return _scale(b, a[0])
    if b[0] == b[1] and _is_finite(b[0]):
        return _scale(a, b[0])
    corners = (
        _mul_end(a[0], b[0]),
        _mul_end(a[0], b[1]),
        _mul_end(a[1], b[0]),
        _mul_end(a[1], b[1]),
    )
    return (min(corners), max(corners))


def _floordiv_end(x: End, y: End) -> End:
    # y > 0 here; an unbounded x stays unbounded, x / inf tends to 0 (from below if x < 0).
    if not _is_finite(x):
        return x
    if y == _INF:
        return 0 if x >= 0 else -1
    return x // y


def _floordiv_positive(a: Interval, b: Interval) -> Interval:
    # x / y is monotone in each argument on y > 0, so the extremes are at corners.
    lo = _floordiv_end(a[0], b[1] if a[0] >= 0 else b[0])
    hi = _floordiv_end(a[1], b[0] if a[1] >= 0 else b[1])
    return (lo, hi)


def _floordiv(a: Interval, b: Interval) -> Interval:
    if b[0] > 0:
        return _floordiv_positive(a, b)
    if b[1] < 0:  # floor(x / y) == floor(-x / -y)
        return _floordiv_positive((-a[1], -a[0]), (-b[1], -b[0]))
    # The divisor may be of either sign: |floor(x / y)| <= |x| for any integer y != 0.
    magnitude = max(abs(a[0]), abs(a[1]))
    return (-magnitude, magnitude)


def _floormod(a: Interval, b: Interval) -> Interval:
    low, high = b
    if low == high and _is_finite(low) and low != 0:
        if _is_finite(a[0]) and _is_finite(a[1]) and a[0] // low == a[1] // low:
            # One period: x % c == x - q * c is increasing in x.
            base = (a[0] // low) * low
            return (a[0] - base, a[1] - base)
        return (0, low - 1) if low > 0 else (low + 1, 0)
    if low > 0:
        if a[0] >= 0:
            if a[1] < low:
                return a
            return (0, min(high - 1, a[1]))
        return (0, high - 1)
    if high < 0:
        return (low + 1, 0)
    magnitude = max(abs(low), abs(high))
    return (-(magnitude - 1), magnitude - 1) if magnitude > 0 else _UNBOUNDED


def _min(a: Interval, b: Interval) -> Interval:
    return (min(a[0], b[0]), min(a[1], b[1]))


def _max(a: Interval, b: Interval) -> Interval:
    return (max(a[0], b[0]), max(a[1], b[1]))


_BINARY_RULES: dict[str, Callable[[Interval, Interval], Interval]] = {
    "add": _add,
    "sub": _sub,
    "mul": _mul,
    "floordiv": _floordiv,
    "floormod": _floormod,
    "min": _min,
    "max": _max,
}


def floordiv_interval(a: Interval, b: Interval) -> Interval:
    """The interval of `floordiv(x, y)` for x in `a`, y in `b`."""
    return _floordiv(a, b)


def floormod_interval(a: Interval, b: Interval) -> Interval:
    """The interval of `floormod(x, y)` for x in `a`, y in `b`."""
    return _floormod(a, b)


def linear_interval(
    terms: Mapping[PrimExpr, int], const: int, ranges: RangeMap, cache: IntervalCache | None
) -> Interval:
    """The interval of a linear form (each distinct atom bounded once)."""
    lo: End = const
    hi: End = const
    for atom, coef in terms.items():
        atom_lo, atom_hi = interval(atom, ranges, cache)
        if coef > 0:
            lo += coef * atom_lo
            hi += coef * atom_hi
        elif coef < 0:
            lo += coef * atom_hi
            hi += coef * atom_lo
        if lo == -_INF and hi == _INF:
            break
    return (lo, hi)


# --- linear forms -------------------------------------------------------------------


def collect_linear(
    expr: PrimExpr,
    scale: int,
    terms: dict[PrimExpr, int],
    atom_fn: Callable[[PrimExpr], PrimExpr] | None = None,
) -> int:
    """Add `scale * expr` to `terms` (atoms first passed through `atom_fn`); return the const.

    Coefficients may cancel to 0 in `terms`; `normalize_linear` drops them.
    """
    kind = type(expr)
    if kind is IntImm:
        return scale * expr.value  # type: ignore[attr-defined,no-any-return]
    if kind is Binary:
        op = expr.op  # type: ignore[attr-defined]
        lhs: PrimExpr = expr.lhs  # type: ignore[attr-defined]
        rhs: PrimExpr = expr.rhs  # type: ignore[attr-defined]
        if op == "add":
            return collect_linear(lhs, scale, terms, atom_fn) + collect_linear(
                rhs, scale, terms, atom_fn
            )
        if op == "sub":
            return collect_linear(lhs, scale, terms, atom_fn) + collect_linear(
                rhs, -scale, terms, atom_fn
            )
        if op == "mul":
            if type(rhs) is IntImm:
                return collect_linear(lhs, scale * rhs.value, terms, atom_fn)
            if type(lhs) is IntImm:
                return collect_linear(rhs, scale * lhs.value, terms, atom_fn)
    if atom_fn is not None:
        expr = atom_fn(expr)
        kind = type(expr)
        if kind is IntImm or (kind is Binary and expr.op in _LINEAR_OPS):  # type: ignore[attr-defined]
            return collect_linear(expr, scale, terms, None)
    terms[expr] = terms.get(expr, 0) + scale
    return 0


def linear_form(expr: PrimExpr) -> LinearForm | None:
    """Decompose an integer expression into `(terms, const)`; None for float/bool ones.

    Add, sub and multiplication by constants are split; anything else (a variable, a
    floordiv, a product of two non-constants, a load, ...) is an atom, compared by
    structure. Zero coefficients are dropped.
    """
    if not is_int_dtype(expr.dtype):
        return None
    terms: dict[PrimExpr, int] = {}
    const = collect_linear(expr, 1, terms)
    return {atom: coef for atom, coef in terms.items() if coef != 0}, const


_ORDER_KEYS: dict[PrimExpr, tuple[int, str]] = {}


def order_key(atom: PrimExpr) -> tuple[int, str]:
    """A deterministic sort key of an atom: variables by name first, then by printed text."""
    if type(atom) is Var:
        return (0, atom.name)
    key = _ORDER_KEYS.get(atom)
    if key is None:
        if len(_ORDER_KEYS) > 65536:
            _ORDER_KEYS.clear()
        key = (1, format_expr(atom))
        _ORDER_KEYS[atom] = key
    return key


def _term_key(item: tuple[PrimExpr, int]) -> tuple[int, tuple[int, str]]:
    atom = item[0]
    if type(atom) is Var:  # (`order_key` inlined for the common atom)
        return (-abs(item[1]), (0, atom.name))
    return (-abs(item[1]), order_key(atom))


def from_linear_form(
    terms: Mapping[PrimExpr, int] | Mapping[Var, int], const: int, dtype: str | None = None
) -> PrimExpr:
    """Rebuild `sum(coef * atom) + const` canonically.

    Terms are ordered by decreasing |coefficient| (row-major strides read outer to inner),
    then by `order_key`; positive terms come first, negative ones are
    subtracted, and the constant comes last (or first, as `c - ...`, when every term is
    negative). `dtype` defaults to the atoms' dtype, or int64 for a bare constant.
    """
    items = [(atom, coef) for atom, coef in terms.items() if coef != 0]
    if dtype is None:
        dtype = items[0][0].dtype if items else INDEX_DTYPE
    if not items:
        return IntImm(const, dtype)
    if len(items) > 1:
        items.sort(key=_term_key)
    result: PrimExpr | None = None
    for atom, coef in items:
        if coef > 0:
            term = atom if coef == 1 else Binary("mul", atom, IntImm(coef, dtype))
            result = term if result is None else Binary("add", result, term)
    for atom, coef in items:
        if coef > 0:
            continue
        if result is None:
            if const <= 0:
                result = Binary("mul", atom, IntImm(coef, dtype))
                continue
            result = IntImm(const, dtype)
            const = 0
        term = atom if coef == -1 else Binary("mul", atom, IntImm(-coef, dtype))
        result = Binary("sub", result, term)
    assert result is not None
    if const > 0:
        return Binary("add", result, IntImm(const, dtype))
    if const < 0:
        return Binary("sub", result, IntImm(-const, dtype))
    return result


def _const_divisor(expr: PrimExpr, op: str) -> int:
    """The divisor c of `floordiv(e, c)` / `floormod(e, c)` when c > 0 is constant, else 0."""
    if type(expr) is Binary and expr.op == op:
        divisor = expr.rhs
        if type(divisor) is IntImm and divisor.value > 0:
            return divisor.value
    return 0


def _covers(have: int, need: int) -> bool:
    return need != 0 and (have >= need > 0 or have <= need < 0)


def normalize_linear(terms: Mapping[PrimExpr, int], const: int) -> LinearForm:
    """Drop zero terms and fuse floordiv/floormod pairs of the same numerator.

    `floordiv(e, c) * c * k + floormod(e, c) * k -> e * k` and
    `e * k - floordiv(e, c) * c * k -> floormod(e, c) * k` (exact under floor semantics);
    the second keeps bounds tight, since floormod's range is known.
    """
    result = {atom: coef for atom, coef in terms.items() if coef != 0}
    if len(result) < 2 or not any(type(atom) is Binary for atom in result):
        return result, const
    for _ in range(16):  # each round fuses at least one pair; the cap only guards
        changed = False
        for atom in list(result):
            coef = result.get(atom, 0)
            if coef == 0 or type(atom) is not Binary:
                continue
            if _const_divisor(atom, "floormod"):
                change = _fuse_mod(atom, coef, result)
            elif _const_divisor(atom, "floordiv"):
                change = _fuse_div(atom, coef, result)
            else:
                continue
            if change is not None:
                const += change
                changed = True
        result = {atom: coef for atom, coef in result.items() if coef != 0}
        if not changed:
            break
    return result, const


def _fuse_mod(atom: Binary, coef: int, terms: dict[PrimExpr, int]) -> int | None:
    divisor = atom.rhs
    assert isinstance(divisor, IntImm)
    partner = Binary("floordiv", atom.lhs, divisor)
    if terms.get(partner, 0) == coef * divisor.value:
        terms[atom] = 0
        terms[partner] = 0
        return collect_linear(atom.lhs, coef, terms)
    inner = atom.lhs
    inner_divisor = _const_divisor(inner, "floordiv")
    if inner_divisor:
        assert isinstance(inner, Binary)
        # floordiv(floordiv(x, a), c) is simplified to floordiv(x, a * c).
        partner = Binary(
            "floordiv", inner.lhs, IntImm(inner_divisor * divisor.value, divisor.dtype)
        )
        if terms.get(partner, 0) == coef * divisor.value:
            terms[atom] = 0
            terms[partner] = 0
            terms[inner] = terms.get(inner, 0) + coef
            return 0
    return None


def _fuse_div(atom: Binary, coef: int, terms: dict[PrimExpr, int]) -> int | None:
    divisor = atom.rhs
    assert isinstance(divisor, IntImm)
    if coef % divisor.value:
        return None
    factor = -coef // divisor.value
    numerator: dict[PrimExpr, int] = {}
    numerator_const = collect_linear(atom.lhs, 1, numerator)
    parts = [(term, k) for term, k in numerator.items() if k != 0]
    if not parts or not all(_covers(terms.get(term, 0), factor * k) for term, k in parts):
        return None
    terms[atom] = 0
    for term, k in parts:
        terms[term] -= factor * k
    remainder = Binary("floormod", atom.lhs, divisor)
    terms[remainder] = terms.get(remainder, 0) + factor
    return -factor * numerator_const


def coefficient(expr: PrimExpr, var: Var) -> int | None:
    """The constant coefficient of `var` in `expr` if `expr` is affine in it, else None."""
    form = linear_form(expr)
    if form is None:
        return None
    terms, _ = form
    for atom in terms:
        if atom != var and _mentions(atom, var):
            return None
    return terms.get(var, 0)


def _mentions(expr: PrimExpr, var: Var) -> bool:
    stack = [expr]
    while stack:
        node = stack.pop()
        if node == var:
            return True
        stack.extend(expr_children(node))
    return False


# --- proofs -------------------------------------------------------------------------


def prove(cond: PrimExpr, ranges: IntervalMap | None = None) -> bool | None:
    """True / False when `cond` (a comparison or logical expression) provably holds / fails
    for every value of its variables in `ranges`; None when it cannot tell."""
    return _prove(cond, ranges or {}, None)


def decide(op: str, diff: Interval) -> bool | None:
    """The truth of `lhs op rhs` given the interval of `lhs - rhs`, or None."""
    lo, hi = diff
    if op == "lt":
        return True if hi < 0 else (False if lo >= 0 else None)
    if op == "le":
        return True if hi <= 0 else (False if lo > 0 else None)
    if op == "gt":
        return True if lo > 0 else (False if hi <= 0 else None)
    if op == "ge":
        return True if lo >= 0 else (False if hi < 0 else None)
    if op in ("eq", "ne"):
        if lo == hi == 0:
            verdict: bool | None = True
        elif lo > 0 or hi < 0:
            verdict = False
        else:
            return None
        return verdict if op == "eq" else not verdict
    return None


def _prove(cond: PrimExpr, ranges: RangeMap, cache: IntervalCache | None) -> bool | None:
    if isinstance(cond, IntImm):
        return bool(cond.value)
    if isinstance(cond, Compare):
        return _prove_compare(cond, ranges, cache)
    if isinstance(cond, Logical):
        first = _prove(cond.lhs, ranges, cache)
        if cond.op == "not" or cond.rhs is None:
            return None if first is None else not first
        if cond.op == "and" and first is False:
            return False
        if cond.op == "or" and first is True:
            return True
        second = _prove(cond.rhs, ranges, cache)
        if cond.op == "and":
            if second is False:
                return False
            return True if first and second else None
        if second is True:
            return True
        return False if first is False and second is False else None
    lo, hi = interval(cond, ranges, cache)
    if lo > 0 or hi < 0:
        return True
    if lo == hi == 0:
        return False
    return None


def _prove_compare(cond: Compare, ranges: RangeMap, cache: IntervalCache | None) -> bool | None:
    lhs, rhs = cond.lhs, cond.rhs
    if isinstance(lhs, IntImm | FloatImm) and isinstance(rhs, IntImm | FloatImm):
        return decide(cond.op, (lhs.value - rhs.value, lhs.value - rhs.value))
    left, right = lhs.dtype, rhs.dtype
    if is_int_dtype(left) and is_int_dtype(right):
        terms: dict[PrimExpr, int] = {}
        const = collect_linear(lhs, 1, terms) + collect_linear(rhs, -1, terms)
        terms, const = normalize_linear(terms, const)
        return decide(cond.op, linear_interval(terms, const, ranges, cache))
    if left == "bool" or right == "bool":
        return decide(cond.op, _sub(interval(lhs, ranges, cache), interval(rhs, ranges, cache)))
    return None
