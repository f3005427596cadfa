"""Simplify scalar expressions and loop IR (TVM's `tir.Simplify`, reduced).

Integer arithmetic is canonicalised through linear forms (like terms merge, atoms come
in a fixed order, the constant last); floordiv / floormod by positive constants pull out
exact multiples and vanish when the range analysis of `ir.tir.arith` shows the remainder
stays within one period, and drop (floordiv) or keep as it is (floormod) a part that
stays below a period dividing the divisor (a flattened row * length + column index);
min / max / comparisons whose outcome is provable fold. Float arithmetic is only folded
when all of it is constant: reassociating floats changes results.

Statements are simplified by `ir.tir.simplify_stmt`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import cast

from ir.tir import expr as E
from ir.tir.arith import (
    Interval,
    IntervalCache,
    IntervalMap,
    RangeMap,
    collect_linear,
    decide,
    floordiv_interval,
    floormod_interval,
    from_linear_form,
    interval,
    is_int_dtype,
    linear_interval,
    normalize_linear,
    order_key,
)
from ir.tir.expr import (
    Binary,
    Compare,
    FloatImm,
    IntImm,
    Load,
    Logical,
    PrimExpr,
    Reduce,
    Select,
    Var,
    is_float,
)
from ir.tir.visit import expr_children, rebuild_expr

_INF = math.inf
_LINEAR_OPS = frozenset(("add", "sub", "mul"))
FLIPPED_COMPARE = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
MIRRORED_COMPARE = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
_CACHE_LIMIT = 1 << 16

LinearHint = tuple[PrimExpr, Mapping[Var, int], int]
"""(expr, terms, const) where `expr` is `from_linear_form(terms, const)` over variables:
an index already in canonical form, whose simplification only folds known constants."""


def simplify(expr: PrimExpr, ranges: IntervalMap | None = None) -> PrimExpr:
    """Simplify `expr`, knowing that each variable in `ranges` lies in its inclusive range."""
    kind = type(expr)
    if kind is IntImm or kind is FloatImm:
        return expr
    return ExprSimplifier(ranges or {}).top(expr)


# Results keyed by (expression, the ranges of the variables it mentions): what a
# simplification depends on. The tuner lowers and simplifies the same index expressions
# again and again, in one kernel (a reduction's init and update) and across candidates,
# under loop nests that differ only in variables the expression does not mention.
_CACHE: dict[tuple[PrimExpr, tuple[Interval | None, ...]], PrimExpr] = {}


def _remember(key: tuple[PrimExpr, tuple[Interval | None, ...]], result: PrimExpr) -> None:
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = result


def _range_key(expr: PrimExpr, ranges: RangeMap) -> tuple[PrimExpr, tuple[Interval | None, ...]]:
    """The cache key of `expr` under `ranges`: the expression, and the range of each
    variable occurrence in the order a walk meets them (the same sequence of variables
    for equal expressions, so the variables themselves need not be part of the key)."""
    found: list[Interval | None] = []
    stack = [expr]
    pop, push, extend, get, note = stack.pop, stack.append, stack.extend, ranges.get, found.append
    while stack:
        node = pop()
        kind = type(node)
        if kind is Binary or kind is Compare:
            push(node.rhs)  # type: ignore[attr-defined]
            push(node.lhs)  # type: ignore[attr-defined]
        elif kind is Var:
            note(get(node))  # type: ignore[call-overload]
        elif kind is not IntImm and kind is not FloatImm:
            extend(reversed(expr_children(node)))
    return expr, tuple(found)


def _is_index(expr: PrimExpr) -> bool:
    """Whether `expr` is integer arithmetic or a condition on it (a key of the cache)."""
    kind = type(expr)
    if kind is Compare:
        return is_int_dtype(expr.lhs.dtype)  # type: ignore[attr-defined]
    return kind is Logical or is_int_dtype(expr.dtype)


class ExprSimplifier:
    """Bottom-up rewriting of one expression under fixed variable ranges."""

    __slots__ = ("bounds", "done", "hints", "ranges")

    def __init__(self, ranges: RangeMap, hints: Mapping[int, LinearHint] | None = None) -> None:
        self.ranges = ranges
        self.hints = hints or {}
        self.bounds: IntervalCache = {}
        # Results by node identity (the node is kept alive beside its result): lowering
        # shares sub-expression objects, and an id lookup costs no structural hashing.
        self.done: dict[int, tuple[PrimExpr, PrimExpr]] = {}

    def top(self, expr: PrimExpr) -> PrimExpr:
        """The simplified `expr`, looked up in the shared cache first."""
        kind = type(expr)
        if kind is Var or kind is IntImm or kind is FloatImm:
            return self.visit(expr)
        hint = self.hints.get(id(expr))
        if hint is not None and hint[0] is expr:
            return self._hinted(hint)
        if kind is Logical:
            # Each side is cached on its own: a pad guard's conditions on different axes
            # mention different loops, and candidates repeat one side far more often
            # than the whole conjunction.
            return rebuild_expr(expr, tuple(self.top(child) for child in expr_children(expr)))
        if not _is_index(expr):
            # A value is not cached whole: candidates rarely repeat one, and its indices
            # are hints or cached on their own, so the walk for its key would be wasted.
            return self.visit(expr)
        key = _range_key(expr, self.ranges)
        result = _CACHE.get(key)
        if result is None:
            result = self.visit(expr)
            _remember(key, result)
        elif kind is Binary:  # the node may come again inside another expression (a load)
            self.done[id(expr)] = (expr, result)
        return result

    def visit(self, expr: PrimExpr) -> PrimExpr:
        """The simplified `expr`."""
        kind = type(expr)
        if kind is Binary:
            known = self.done.get(id(expr))
            if known is not None and known[0] is expr:
                return known[1]
            hint = self.hints.get(id(expr))
            if hint is not None and hint[0] is expr:
                result = self._hinted(hint)
            else:
                result = self._binary(expr)  # type: ignore[arg-type]
            self.done[id(expr)] = (expr, result)
            return result
        if kind is Var:
            var_range = self.ranges.get(cast(Var, expr))
            if var_range is not None and var_range[0] == var_range[1]:
                return IntImm(int(var_range[0]), expr.dtype)  # a variable with one value
            return expr
        if kind is IntImm or kind is FloatImm:
            return expr
        if kind is Load:
            index = self.top(expr.index)  # type: ignore[attr-defined]
            return expr if index is expr.index else Load(expr.buffer, index)  # type: ignore[attr-defined]
        if kind is Compare:
            return self._compare(expr)  # type: ignore[arg-type]
        if kind is Select:
            return self._select(expr)  # type: ignore[arg-type]
        if kind is Reduce:
            return self._reduce(expr)  # type: ignore[arg-type]
        children = expr_children(expr)
        if not children:
            return expr
        return rebuild_expr(expr, tuple(self.visit(child) for child in children))

    def _hinted(self, hint: LinearHint) -> PrimExpr:
        """A canonical linear form with the variables of one value replaced by it."""
        expr, terms, const = hint
        ranges = self.ranges
        folded: dict[Var, int] | None = None
        for var, coef in terms.items():
            known = ranges.get(var)
            if known is not None and known[0] == known[1]:
                if folded is None:
                    folded = dict(terms)
                del folded[var]
                const += coef * int(known[0])
        if folded is None:
            return expr
        return from_linear_form(folded, const, expr.dtype)

    # Step 1. Integer arithmetic: linear regions, division, min / max.

    def _binary(self, expr: Binary) -> PrimExpr:
        op = expr.op
        if not is_int_dtype(expr.lhs.dtype):
            lhs, rhs = self.visit(expr.lhs), self.visit(expr.rhs)
            if lhs is expr.lhs and rhs is expr.rhs:
                return expr
            return E.binary(op, lhs, rhs)  # folds constants only: floats never reassociate
        if op in _LINEAR_OPS:
            terms: dict[PrimExpr, int] = {}
            const = collect_linear(expr, 1, terms, self._atom)
            return self._finish(terms, const, expr.lhs.dtype)
        if op == "floordiv" or op == "floormod":
            return self._division(expr)
        if op == "min" or op == "max":
            return self._min_max(expr)
        return rebuild_expr(expr, (self.visit(expr.lhs), self.visit(expr.rhs)))

    def _atom(self, expr: PrimExpr) -> PrimExpr:
        if type(expr) is Binary and expr.op == "mul":
            lhs, rhs = self.visit(expr.lhs), self.visit(expr.rhs)
            if type(lhs) is IntImm or type(rhs) is IntImm:
                return E.binary("mul", lhs, rhs)
            if order_key(rhs) < order_key(lhs):
                lhs, rhs = rhs, lhs
            if lhs is expr.lhs and rhs is expr.rhs:
                return expr
            return Binary("mul", lhs, rhs)
        return self.visit(expr)

    def _finish(self, terms: dict[PrimExpr, int], const: int, dtype: str) -> PrimExpr:
        terms, const = self._normalize(terms, const)
        return from_linear_form(terms, const, dtype)

    def _normalize(self, terms: dict[PrimExpr, int], const: int) -> tuple[dict[PrimExpr, int], int]:
        """`normalize_linear`, then simplify the floormods that fusing div / mod created."""
        fused, const = normalize_linear(terms, const)
        created = [
            atom
            for atom in fused
            if type(atom) is Binary and atom.op == "floormod" and atom not in terms
        ]
        if not created:
            return fused, const
        rebuilt: dict[PrimExpr, int] = {}
        for atom, coef in fused.items():
            if atom in created:
                const += collect_linear(self.visit(atom), coef, rebuilt)
            else:
                rebuilt[atom] = rebuilt.get(atom, 0) + coef
        return normalize_linear(rebuilt, const)

    def _linear(self, expr: PrimExpr) -> tuple[dict[PrimExpr, int], int]:
        """The normalised linear form of `expr`, its atoms simplified."""
        terms: dict[PrimExpr, int] = {}
        const = collect_linear(expr, 1, terms, self._atom)
        return self._normalize(terms, const)

    def _interval(self, expr: PrimExpr) -> Interval:
        return interval(expr, self.ranges, self.bounds)

    def _linear_interval(self, terms: dict[PrimExpr, int], const: int) -> Interval:
        return linear_interval(terms, const, self.ranges, self.bounds)

    def _division(self, expr: Binary) -> PrimExpr:
        divisor = self.visit(expr.rhs)
        dtype = expr.lhs.dtype
        if type(divisor) is IntImm and divisor.value > 0:
            terms, const = self._linear(expr.lhs)
            if expr.op == "floordiv":
                return self._floordiv_const(terms, const, divisor.value, dtype)
            return self._floormod_const(terms, const, divisor.value, dtype)
        numerator = self.visit(expr.lhs)
        rule = floordiv_interval if expr.op == "floordiv" else floormod_interval
        lo, hi = rule(self._interval(numerator), self._interval(divisor))
        if lo == hi and -_INF < lo < _INF:
            return IntImm(int(lo), dtype)
        if expr.op == "floormod":
            num_lo, num_hi = self._interval(numerator)
            if num_lo >= 0 and num_hi < self._interval(divisor)[0]:
                return numerator  # 0 <= x < y
        return rebuild_expr(expr, (numerator, divisor))

    def _floordiv_const(
        self, terms: dict[PrimExpr, int], const: int, divisor: int, dtype: str
    ) -> PrimExpr:
        # floordiv(q * c + r, c) == q + floordiv(r, c) for every integer r (floor rounding).
        quotient: dict[PrimExpr, int] = {}
        remainder: dict[PrimExpr, int] = {}
        for atom, coef in terms.items():
            if coef % divisor == 0:
                quotient[atom] = coef // divisor
            else:
                remainder[atom] = coef
        quotient_const, remainder_const = divmod(const, divisor)
        if remainder:
            # floordiv(g * r, g * c) == floordiv(r, c)
            common = math.gcd(divisor, remainder_const, *remainder.values())
            if common > 1:
                remainder = {atom: coef // common for atom, coef in remainder.items()}
                remainder_const //= common
                divisor //= common
            lo, hi = self._linear_interval(remainder, remainder_const)
            if lo > -_INF and hi < _INF and lo // divisor == hi // divisor:
                quotient_const += int(lo // divisor)
            elif (split := self._period_split(remainder, remainder_const, divisor)) is not None:
                # floordiv(g * big + small, g * d) == floordiv(big, d) when 0 <= small < g
                period, big = split
                rest = self._floordiv_const(big, 0, divisor // period, dtype)
                quotient_const += collect_linear(rest, 1, quotient)
            else:
                rest = self._nested_floordiv(remainder, remainder_const, divisor, dtype)
                quotient_const += collect_linear(rest, 1, quotient)
        return self._finish(quotient, quotient_const, dtype)

    def _period_split(
        self, terms: dict[PrimExpr, int], const: int, divisor: int
    ) -> tuple[int, dict[PrimExpr, int]] | None:
        """The largest g > 1 dividing `divisor` for which `terms + const` is g * big + small
        with 0 <= small < g (the terms whose coefficients g does not divide, and the
        constant): (g, big), or None. A row index times its length plus a column below
        that length, divided or taken modulo a multiple of the length, is the usual case."""
        best: tuple[int, dict[PrimExpr, int]] | None = None
        for coef in sorted({abs(value) for value in terms.values()}, reverse=True):
            period = math.gcd(divisor, coef)
            if period <= 1 or (best is not None and period <= best[0]):
                continue
            big = {atom: value // period for atom, value in terms.items() if value % period == 0}
            small = {atom: value for atom, value in terms.items() if value % period != 0}
            lo, hi = self._linear_interval(small, const)
            if lo >= 0 and hi < period:
                best = (period, big)
        return best

    def _nested_floordiv(
        self, terms: dict[PrimExpr, int], const: int, divisor: int, dtype: str
    ) -> PrimExpr:
        """`floordiv(sum + const, divisor)` (0 <= const < divisor), folding nested floordivs."""
        if len(terms) == 1:
            ((atom, coef),) = terms.items()
            inner = _positive_divisor(atom, "floordiv")
            if coef == 1 and inner:
                # floordiv(floordiv(x, a) + k, c) == floordiv(x + k * a, a * c)
                assert isinstance(atom, Binary)
                inner_terms: dict[PrimExpr, int] = {}
                inner_const = collect_linear(atom.lhs, 1, inner_terms)
                inner_terms, inner_const = normalize_linear(inner_terms, inner_const)
                return self._floordiv_const(
                    inner_terms, inner_const + const * inner, inner * divisor, dtype
                )
        numerator = from_linear_form(terms, const, dtype)
        return Binary("floordiv", numerator, IntImm(divisor, dtype))

    def _floormod_const(
        self, terms: dict[PrimExpr, int], const: int, divisor: int, dtype: str
    ) -> PrimExpr:
        # floormod(floormod(x, a), c) == floormod(x, c) when c divides a.
        while any(_mod_multiple(atom, divisor) for atom in terms):
            expanded: dict[PrimExpr, int] = {}
            for atom, coef in terms.items():
                if _mod_multiple(atom, divisor):
                    assert isinstance(atom, Binary)
                    const += collect_linear(atom.lhs, coef, expanded)
                else:
                    expanded[atom] = expanded.get(atom, 0) + coef
            terms, const = self._normalize(expanded, const)
        remainder = _reduce_modulo(terms, divisor)
        if remainder != terms:  # smaller coefficients may pair a floordiv with its floormod
            remainder, const = self._normalize(remainder, const)
            remainder = _reduce_modulo(remainder, divisor)
        const %= divisor
        if not remainder:
            return IntImm(const, dtype)
        # floormod(g * r, g * c) == g * floormod(r, c); the smaller divisor may allow more.
        common = math.gcd(divisor, const, *remainder.values())
        if common > 1:
            reduced = {atom: coef // common for atom, coef in remainder.items()}
            inner = self._floormod_const(reduced, const // common, divisor // common, dtype)
            scaled: dict[PrimExpr, int] = {}
            return self._finish(scaled, collect_linear(inner, common, scaled), dtype)
        lo, hi = self._linear_interval(remainder, const)
        if lo > -_INF and hi < _INF and lo // divisor == hi // divisor:
            return self._finish(remainder, const - int(lo // divisor) * divisor, dtype)
        split = self._period_split(remainder, const, divisor)
        if split is not None:
            # floormod(g * big + small, g * d) == g * floormod(big, d) + small (0 <= small < g)
            period, big = split
            inner = self._floormod_const(big, 0, divisor // period, dtype)
            result = {atom: value for atom, value in remainder.items() if value % period != 0}
            return self._finish(result, const + collect_linear(inner, period, result), dtype)
        numerator = from_linear_form(remainder, const, dtype)
        return Binary("floormod", numerator, IntImm(divisor, dtype))

    def _min_max(self, expr: Binary) -> PrimExpr:
        lhs, rhs = self.visit(expr.lhs), self.visit(expr.rhs)
        if lhs == rhs:
            return lhs
        terms: dict[PrimExpr, int] = {}
        const = collect_linear(lhs, 1, terms) + collect_linear(rhs, -1, terms)
        terms, const = self._normalize(terms, const)
        lo, hi = self._linear_interval(terms, const)
        if expr.op == "min":
            if hi <= 0:
                return lhs
            if lo >= 0:
                return rhs
        else:
            if lo >= 0:
                return lhs
            if hi <= 0:
                return rhs
        return rebuild_expr(expr, (lhs, rhs))

    # Step 2. Conditions: comparisons, selects, reductions.

    def _compare(self, expr: Compare) -> PrimExpr:
        lhs, rhs = self.visit(expr.lhs), self.visit(expr.rhs)
        dtype = lhs.dtype
        if not (is_int_dtype(dtype) and rhs.dtype == dtype):
            result = rebuild_expr(expr, (lhs, rhs))
            if type(result) is Compare and not (is_float(dtype) or is_float(rhs.dtype)):
                # bools, or integers of different widths: compare the two intervals
                lhs_interval, rhs_interval = self._interval(lhs), self._interval(rhs)
                diff = (lhs_interval[0] - rhs_interval[1], lhs_interval[1] - rhs_interval[0])
                verdict = decide(expr.op, diff)
                if verdict is not None:
                    return IntImm(int(verdict), "bool")
            return result
        terms: dict[PrimExpr, int] = {}
        const = collect_linear(lhs, 1, terms) + collect_linear(rhs, -1, terms)
        terms, const = self._normalize(terms, const)
        verdict = decide(expr.op, self._linear_interval(terms, const))
        if verdict is not None:
            return IntImm(int(verdict), "bool")
        return _canonical_compare(expr, terms, const, dtype)

    def _select(self, expr: Select) -> PrimExpr:
        condition = self.top(expr.condition)
        if type(condition) is IntImm:
            return self.visit(expr.true_value if condition.value else expr.false_value)
        true_value, false_value = self.visit(expr.true_value), self.visit(expr.false_value)
        if true_value == false_value:
            return true_value
        return rebuild_expr(expr, (condition, true_value, false_value))

    def _reduce(self, expr: Reduce) -> PrimExpr:
        ranges = dict(self.ranges)
        for axis in expr.axes:
            if axis.extent > 0:
                ranges[axis.var] = (0, axis.extent - 1)
        inner = ExprSimplifier(ranges, self.hints)
        return rebuild_expr(expr, tuple(inner.visit(child) for child in expr_children(expr)))


def _reduce_modulo(terms: dict[PrimExpr, int], divisor: int) -> dict[PrimExpr, int]:
    """Coefficients reduced modulo `divisor` to the smallest magnitude, when |k| >= divisor.

    floormod(k * x + r, c) == floormod((k mod c) * x + r, c); smaller ones are kept as
    they are, so that floormod(y - x, 4) stays as written.
    """
    reduced_terms: dict[PrimExpr, int] = {}
    for atom, coef in terms.items():
        if abs(coef) >= divisor:
            reduced = coef % divisor
            coef = reduced if reduced <= divisor - reduced else reduced - divisor
        if coef:
            reduced_terms[atom] = coef
    return reduced_terms


def _mod_multiple(expr: PrimExpr, divisor: int) -> bool:
    """Whether `expr` is floormod(x, a) with `divisor` dividing a (so it is x modulo it)."""
    inner = _positive_divisor(expr, "floormod")
    return inner > 0 and inner % divisor == 0


def _positive_divisor(expr: PrimExpr, op: str) -> int:
    if type(expr) is Binary and expr.op == op:
        divisor = expr.rhs
        if type(divisor) is IntImm and divisor.value > 0:
            return divisor.value
    return 0


def _canonical_compare(
    expr: Compare, terms: dict[PrimExpr, int], const: int, dtype: str
) -> PrimExpr:
    """`lhs op rhs` from the form of `lhs - rhs`: positive terms left, negative right."""
    op = expr.op
    if op in ("eq", "ne"):
        common = math.gcd(*terms.values())
        if const % common:
            return IntImm(int(op == "ne"), "bool")
        if common > 1:
            terms = {atom: coef // common for atom, coef in terms.items()}
            const //= common
    left = {atom: coef for atom, coef in terms.items() if coef > 0}
    right = {atom: -coef for atom, coef in terms.items() if coef < 0}
    if not left and (op == "eq" or op == "ne"):
        left, right, const, op = right, left, -const, MIRRORED_COMPARE[op]
    left_const, right_const = (const, 0) if const > 0 else (0, -const)
    lhs = from_linear_form(left, left_const, dtype)
    rhs = from_linear_form(right, right_const, dtype)
    if lhs == expr.lhs and rhs == expr.rhs:
        return expr
    return Compare(op, lhs, rhs)
