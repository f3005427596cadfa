"""Affine index forms: integer expressions over loop variables, canonical on the way out.

Lowering composes index expressions (split and fuse relations, region offsets, storage
layouts, row-major flattening) that the simplifier would later take apart again into
linear forms. `AffineEvaluator` computes those forms directly: `sum(coef * var) + const`
over variables only, with `floordiv` / `floormod` by a positive constant resolved by the
same rules, under the same variable ranges, as `ir.tir.simplify` (a remainder that stays
within one period). `emit` rebuilds the canonical expression, exactly what the simplifier
produces for it, and `CanonicalHints` tells the simplifier which expressions are already
in that form: it keeps them as they are unless a variable in them has a single value in
its scope (a guard narrowed it), in which case it simplifies them as usual.

Anything else (a non-constant product, a division the rules cannot resolve, a read, a
dtype other than the index dtype) makes the form None: the caller builds the expression
generically and the simplifier does the work.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ir.tir.arith import Interval, from_linear_form, linear_interval
from ir.tir.expr import INDEX_DTYPE, Binary, IntImm, PrimExpr, Var

AffineForm = tuple[dict[str, int], int]
"""`(terms, const)`, terms by variable name (names are unique in a kernel, and a string
hashes faster than a Var node); terms never hold a zero coefficient. Forms are shared:
never modify one in place."""

_INF = math.inf


class CanonicalHints:
    """Expressions known to be canonical affine forms, by identity, with their variables.

    The simplifier may keep such an expression unchanged wherever none of its variables
    has a single value (the form is then the simplifier's own normal form).
    """

    __slots__ = ("known",)

    def __init__(self) -> None:
        self.known: dict[int, tuple[PrimExpr, tuple[Var, ...]]] = {}

    def add(self, expr: PrimExpr, variables: tuple[Var, ...]) -> None:
        """Record that `expr` is the canonical form of an affine expression in `variables`."""
        self.known[id(expr)] = (expr, variables)

    def is_canonical(self, expr: PrimExpr, ranges: Mapping[Var, Interval]) -> bool:
        """Whether `expr` is a recorded form none of whose variables is fixed by `ranges`."""
        entry = self.known.get(id(expr))
        if entry is None or entry[0] is not expr:
            return False
        get = ranges.get
        for var in entry[1]:
            known = get(var)
            if known is not None and known[0] == known[1]:
                return False
        return True


def add_forms(lhs: AffineForm, rhs: AffineForm, sign: int = 1) -> AffineForm:
    """`lhs + sign * rhs`."""
    if not rhs[0]:
        return lhs[0], lhs[1] + sign * rhs[1]
    terms = dict(lhs[0])
    for var, coef in rhs[0].items():
        total = terms.get(var, 0) + sign * coef
        if total:
            terms[var] = total
        else:
            terms.pop(var, None)
    return terms, lhs[1] + sign * rhs[1]


def scale_form(form: AffineForm, factor: int) -> AffineForm:
    """`factor * form`."""
    if factor == 0:
        return {}, 0
    return {var: coef * factor for var, coef in form[0].items()}, form[1] * factor


def emit(form: AffineForm, hints: CanonicalHints | None = None) -> PrimExpr:
    """The canonical expression of `form` (recorded in `hints` when it is composite)."""
    names, const = form
    variables = tuple(Var(name) for name in names)
    terms: dict[PrimExpr, int] = dict(zip(variables, names.values(), strict=True))
    expr = from_linear_form(terms, const, INDEX_DTYPE)
    if hints is not None and type(expr) is Binary:
        hints.add(expr, variables)
    return expr


class AffineEvaluator:
    """Affine forms of integer expressions under fixed variable ranges.

    `ranges` are the inclusive ranges of the loop variables where the expression is used
    (a variable with one value is that constant); `bindings` give the forms of other
    variables by name (a compute's axes, layout placeholders). Results are memoised by
    node identity, so expressions sharing sub-trees are evaluated once: set `bindings`
    before the first evaluation that needs them.
    """

    __slots__ = ("bindings", "done", "ranges")

    def __init__(
        self, ranges: Mapping[Var, Interval], bindings: Mapping[str, AffineForm] | None = None
    ) -> None:
        self.ranges = ranges
        self.bindings: Mapping[str, AffineForm] = bindings or {}
        self.done: dict[int, tuple[PrimExpr, AffineForm | None]] = {}

    def form(self, expr: PrimExpr) -> AffineForm | None:
        """The form of `expr`, or None when it is not affine (see the module doc)."""
        kind = type(expr)
        if kind is IntImm:
            if expr.dtype != INDEX_DTYPE:
                return None
            return {}, expr.value  # type: ignore[attr-defined]
        if kind is Var:
            return self._var(expr)  # type: ignore[arg-type]
        if kind is not Binary:
            return None
        known = self.done.get(id(expr))
        if known is not None and known[0] is expr:
            return known[1]
        result = self._binary(expr)  # type: ignore[arg-type]
        self.done[id(expr)] = (expr, result)
        return result

    def _var(self, var: Var) -> AffineForm | None:
        bound = self.bindings.get(var.name)
        if bound is not None:
            return bound
        if var.dtype != INDEX_DTYPE:
            return None
        known = self.ranges.get(var)
        if known is not None and known[0] == known[1]:
            return {}, int(known[0])
        return {var.name: 1}, 0

    def _binary(self, expr: Binary) -> AffineForm | None:
        if expr.dtype != INDEX_DTYPE:
            return None
        op = expr.op
        lhs = self.form(expr.lhs)
        if lhs is None:
            return None
        rhs = self.form(expr.rhs)
        if rhs is None:
            return None
        if op == "add":
            return add_forms(lhs, rhs)
        if op == "sub":
            return add_forms(lhs, rhs, -1)
        if op == "mul":
            if not rhs[0]:
                return scale_form(lhs, rhs[1])
            if not lhs[0]:
                return scale_form(rhs, lhs[1])
            return None
        if (op == "floordiv" or op == "floormod") and not rhs[0] and rhs[1] > 0:
            if op == "floordiv":
                return self._floordiv(lhs[0], lhs[1], rhs[1])
            return self._floormod(lhs[0], lhs[1], rhs[1])
        return None

    def _interval(self, terms: dict[str, int], const: int) -> Interval:
        return linear_interval(
            {Var(name): coef for name, coef in terms.items()}, const, self.ranges, None
        )

    def _floordiv(self, terms: dict[str, int], const: int, divisor: int) -> AffineForm | None:
        # The simplifier's `_floordiv_const`, for variable atoms.
        quotient: dict[str, int] = {}
        remainder: dict[str, int] = {}
        for var, coef in terms.items():
            if coef % divisor == 0:
                quotient[var] = coef // divisor
            else:
                remainder[var] = coef
        quotient_const, remainder_const = divmod(const, divisor)
        if remainder:
            common = math.gcd(divisor, remainder_const, *remainder.values())
            if common > 1:
                remainder = {var: coef // common for var, coef in remainder.items()}
                remainder_const //= common
                divisor //= common
            lo, hi = self._interval(remainder, remainder_const)
            if not (lo > -_INF and hi < _INF and lo // divisor == hi // divisor):
                return None
            quotient_const += int(lo // divisor)
        return quotient, quotient_const

    def _floormod(self, terms: dict[str, int], const: int, divisor: int) -> AffineForm | None:
        # The simplifier's `_floormod_const`, for variable atoms.
        remainder: dict[str, int] = {}
        for var, coef in terms.items():
            if abs(coef) >= divisor:
                reduced = coef % divisor
                coef = reduced if reduced <= divisor - reduced else reduced - divisor
            if coef:
                remainder[var] = coef
        const %= divisor
        if not remainder:
            return {}, const
        common = math.gcd(divisor, const, *remainder.values())
        if common > 1:
            reduced_terms = {var: coef // common for var, coef in remainder.items()}
            inner = self._floormod(reduced_terms, const // common, divisor // common)
            return None if inner is None else scale_form(inner, common)
        lo, hi = self._interval(remainder, const)
        if lo > -_INF and hi < _INF and lo // divisor == hi // divisor:
            return remainder, const - int(lo // divisor) * divisor
        return None
