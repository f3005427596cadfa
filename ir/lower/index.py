"""Flat buffer indices built directly in the simplifier's canonical linear form.

Lowering composes flat indices from split values, layouts (floordiv / floormod by
constants) and region offsets. Where every piece is affine in the loop variables, or a
floordiv / floormod by a constant that the loop bounds prove affine (the remainder stays
within one period), the index is built as `from_linear_form` of its terms and recorded as
a `LinearHint`, so that `simplify_func` only folds the variables it knows to be constant
instead of re-deriving the form from the expression tree.

The result is what the simplifier derives from the tree: it performs the same reductions
under ranges no wider than these bounds, and a linear form over variables that each take
at least two values is unique.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ir.tir.arith import from_linear_form
from ir.tir.expr import INDEX_DTYPE, Binary, IntImm, PrimExpr, Var
from ir.tir.simplify import LinearHint

VarForm = tuple[Mapping[str, int], int]
"""An affine form: (coefficient by variable name, constant); never mutated. (Names are
unique in a kernel, and a string hashes cheaply where a Var hashes its fields.)"""


class LinearIndexer:
    """Affine forms of index expressions over variables with known inclusive bounds."""

    def __init__(self) -> None:
        self.bounds: dict[str, tuple[int, int]] = {}
        self._vars: dict[str, Var] = {}
        self._var_forms: dict[str, VarForm] = {}
        self.hints: dict[int, LinearHint] = {}
        # Forms by node identity (the node kept beside its form): lowering shares values.
        self._forms: dict[int, tuple[PrimExpr, VarForm | None]] = {}
        # The variables' forms of the `form_at` call in progress.
        self._substituted: Callable[[Var], VarForm | None] | None = None
        # Counts the bound changes that dropped the forms: what was built from forms
        # under an older generation may differ now.
        self.generation = 0

    def bound(self, loop_vars: Mapping[str, Var], extents: Mapping[str, int]) -> None:
        """Record that each loop's variable lies in [0, extent - 1] wherever it is used."""
        bounds = self.bounds
        for leaf, var in loop_vars.items():
            extent = extents[leaf]
            name = var.name
            new = (0, extent - 1 if extent > 0 else 0)
            old = bounds.get(name)
            if old == new:
                continue
            self._vars[name] = var
            if old is not None:
                # The same loop emitted again with another extent (a tail region): keep
                # the union, and drop forms proven under narrower bounds.
                new = (min(old[0], new[0]), max(old[1], new[1]))
                if new == old:
                    continue
                self._forms.clear()
                self._var_forms.clear()
                self.generation += 1
            bounds[name] = new

    def flat(self, indices: Sequence[PrimExpr], shape: Sequence[int]) -> PrimExpr | None:
        """The canonical row-major flat index of `indices` into `shape` (recorded as a hint),
        or None when an index is not affine in the loop variables."""
        forms = []
        for index in indices:
            form = self.form(index)
            if form is None:
                return None
            forms.append(form)
        return self.flat_of_forms(forms, shape)

    def flat_of_forms(self, forms: Sequence[VarForm], shape: Sequence[int]) -> PrimExpr:
        """`flat` of indices whose affine forms are `forms` (recorded as a hint)."""
        by_name: dict[str, int] = {}
        const = 0
        stride = 1
        for (index_terms, index_const), extent in zip(
            reversed(forms), reversed(shape), strict=True
        ):
            for name, coef in index_terms.items():
                by_name[name] = by_name.get(name, 0) + coef * stride
            const += index_const * stride
            stride *= extent
        variables = self._vars
        terms = {variables[name]: coef for name, coef in by_name.items() if coef != 0}
        expr = from_linear_form(terms, const, INDEX_DTYPE)
        if type(expr) is Binary:
            self.hints[id(expr)] = (expr, terms, const)
        return expr

    def form(self, expr: PrimExpr) -> VarForm | None:
        """The affine form of an integer index expression, or None when it is not affine."""
        kind = type(expr)
        if kind is Binary:
            known = self._forms.get(id(expr))
            if known is not None and known[0] is expr:
                return known[1]
        elif kind is Var:
            return self._var_form(expr)  # type: ignore[arg-type]
        elif kind is IntImm:
            return ({}, expr.value) if expr.dtype == INDEX_DTYPE else None  # type: ignore[attr-defined]
        else:
            return None
        form = self._binary_form(expr, self.form)  # type: ignore[arg-type]
        self._forms[id(expr)] = (expr, form)
        return form

    def form_at(self, expr: PrimExpr, var_form: Callable[[Var], VarForm | None]) -> VarForm | None:
        """`form(substitute(expr, values))`, the variables' forms given by `var_form`, without
        building the substituted tree; None when that form may not exist.

        The substituted tree differs from `expr` only below its variables, where constants
        may fold (which keeps every value, hence every form): a constant operand of `expr`
        stays one, and anything not decided on `expr` alone is None (callers then build the
        tree and take its `form`).
        """
        outer = self._substituted
        self._substituted = var_form
        try:
            return self._substituted_form(expr)
        finally:
            self._substituted = outer

    def _substituted_form(self, expr: PrimExpr) -> VarForm | None:
        """`form_at(expr, self._substituted)` (a method, so that the recursion through
        `_binary_form` needs no closure per node)."""
        kind = type(expr)
        if kind is Var:
            return self._substituted(expr)  # type: ignore[arg-type,misc]
        if kind is IntImm:
            return ({}, expr.value) if expr.dtype == INDEX_DTYPE else None  # type: ignore[attr-defined]
        if kind is not Binary:
            return None
        for operand in (expr.lhs, expr.rhs):  # type: ignore[attr-defined]
            if type(operand) is IntImm and operand.dtype != INDEX_DTYPE:
                return None  # (building the tree would fail on the mixed types)
        return self._binary_form(expr, self._substituted_form)  # type: ignore[arg-type]

    def var_form(self, var: Var) -> VarForm | None:
        """The form of a variable left as it is."""
        return self._var_form(var)

    def _var_form(self, var: Var) -> VarForm | None:
        name = var.name
        form = self._var_forms.get(name)
        if form is None:
            if var.dtype != INDEX_DTYPE:
                return None
            self._vars.setdefault(name, var)
            # A loop of extent 1 has the value 0 (the simplifier replaces its variable).
            form = ({}, 0) if self.bounds.get(name) == (0, 0) else ({name: 1}, 0)
            self._var_forms[name] = form
        return form

    def _binary_form(
        self, expr: Binary, form_of: Callable[[PrimExpr], VarForm | None]
    ) -> VarForm | None:
        """The form of `expr` from the forms of its operands (`form_of`)."""
        op, lhs, rhs = expr.op, expr.lhs, expr.rhs
        if expr.dtype != INDEX_DTYPE:
            return None
        if op == "add" or op == "sub":
            left, right = form_of(lhs), form_of(rhs)
            if left is None or right is None:
                return None
            return combine_forms(left, right, 1 if op == "add" else -1)
        if op == "mul":
            if type(rhs) is IntImm:
                scale, scaled = rhs.value, form_of(lhs)
            elif type(lhs) is IntImm:
                scale, scaled = lhs.value, form_of(rhs)
            else:
                return None
            if scaled is None:
                return None
            if scale == 0:
                return {}, 0
            return {var: coef * scale for var, coef in scaled[0].items()}, scaled[1] * scale
        if op == "floordiv" or op == "floormod":
            if type(rhs) is not IntImm or rhs.value <= 0:
                return None
            numerator = form_of(lhs)
            if numerator is None:
                return None
            if op == "floordiv":
                return self.floordiv(numerator, rhs.value)
            return self.floormod(numerator, rhs.value)
        return None

    def floordiv(self, numerator: VarForm, divisor: int) -> VarForm | None:
        """The form of `floordiv(numerator, divisor)` (divisor > 0), or None when not affine."""
        # floordiv(q * c + r, c) == q + floordiv(r, c), and floordiv(r, c) is constant when
        # r stays within one period (the simplifier's rule, without its gcd step, which
        # decides the same).
        quotient: dict[str, int] = {}
        remainder: dict[str, int] = {}
        for var, coef in numerator[0].items():
            if coef % divisor == 0:
                quotient[var] = coef // divisor
            else:
                remainder[var] = coef
        quotient_const, remainder_const = divmod(numerator[1], divisor)
        if remainder:
            span = self._interval(remainder, remainder_const)
            if span is None or span[0] // divisor != span[1] // divisor:
                return None
            quotient_const += span[0] // divisor
        return quotient, quotient_const

    def floormod(self, numerator: VarForm, divisor: int) -> VarForm | None:
        """The form of `floormod(numerator, divisor)` (divisor > 0), or None when not affine."""
        # Coefficients modulo the divisor (smallest magnitude, as the simplifier reduces
        # them), then the remainder must stay within one period.
        reduced: dict[str, int] = {}
        for var, coef in numerator[0].items():
            if abs(coef) >= divisor:
                residue = coef % divisor
                coef = residue if residue <= divisor - residue else residue - divisor
            if coef:
                reduced[var] = coef
        const = numerator[1] % divisor
        if not reduced:
            return {}, const
        span = self._interval(reduced, const)
        if span is None or span[0] // divisor != span[1] // divisor:
            return None
        return reduced, const - (span[0] // divisor) * divisor

    def _interval(self, terms: Mapping[str, int], const: int) -> tuple[int, int] | None:
        low = high = const
        bounds = self.bounds
        for var, coef in terms.items():
            known = bounds.get(var)
            if known is None:
                return None
            if coef > 0:
                low += coef * known[0]
                high += coef * known[1]
            else:
                low += coef * known[1]
                high += coef * known[0]
        return low, high


def combine_forms(left: VarForm, right: VarForm, sign: int) -> VarForm:
    """The form of `left + sign * right` (sign is 1 or -1)."""
    if not right[0]:
        return left[0], left[1] + sign * right[1]
    terms = dict(left[0])
    cancelled = False
    for name, coef in right[0].items():
        total = terms.get(name, 0) + sign * coef
        terms[name] = total
        cancelled = cancelled or total == 0
    if cancelled:
        terms = {name: coef for name, coef in terms.items() if coef != 0}
    return terms, left[1] + sign * right[1]
