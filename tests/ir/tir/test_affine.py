"""Affine index forms: exactly the simplifier's result wherever they apply."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ir.tir import expr as E
from ir.tir.affine import AffineEvaluator, CanonicalHints, emit
from ir.tir.expr import PrimExpr, Var
from ir.tir.printer import format_expr
from ir.tir.simplify import simplify, simplify_stmt
from ir.tir.stmt import For, Store
from tests.ir.tir.test_arith import VARS, int_exprs, var_ranges
from tests.ir.tir.test_simplify import OUT

X, Y, Z = VARS


def _split_index(draw: st.DrawFn) -> PrimExpr:
    """Index arithmetic as lowering writes it: splits, layouts (div / mod), flattening."""
    inner = draw(st.integers(1, 6))
    value = E.binary("add", E.binary("mul", X, inner), Y)
    pieces = [
        value,
        E.binary("floordiv", value, draw(st.integers(1, 8))),
        E.binary("floormod", value, draw(st.integers(1, 8))),
        E.binary("sub", E.binary("add", Z, draw(st.integers(-3, 3))), Y),
    ]
    total: PrimExpr = E.IntImm(0)
    for piece in draw(st.permutations(pieces))[: draw(st.integers(1, 4))]:
        total = E.binary("add", E.binary("mul", total, draw(st.integers(1, 9))), piece)
    return total


split_indices = st.composite(_split_index)()


@given(st.one_of(int_exprs, split_indices), var_ranges())
@settings(max_examples=400, deadline=None)
def test_forms_emit_what_the_simplifier_gives(
    expr: PrimExpr, ranges: dict[Var, tuple[int, int]]
) -> None:
    form = AffineEvaluator(ranges).form(expr)
    if form is None:
        return
    assert format_expr(emit(form)) == format_expr(simplify(expr, ranges))
    assert emit(form) == simplify(expr, ranges)


def test_forms_of_splits_and_layouts() -> None:
    ranges = {X: (0, 6), Y: (0, 3)}
    value = E.binary("add", E.binary("mul", X, 4), Y)
    affine = AffineEvaluator(ranges)
    assert affine.form(E.binary("floordiv", value, 4)) == ({"x": 1}, 0)
    assert affine.form(E.binary("floormod", value, 4)) == ({"y": 1}, 0)
    assert affine.form(E.binary("floordiv", value, 3)) is None  # not within one period
    assert affine.form(E.binary("mul", X, Y)) is None
    assert AffineEvaluator({X: (2, 2)}).form(E.binary("add", X, Y)) == ({"y": 1}, 2)
    bound = AffineEvaluator({}, {"x": ({"y": 3}, 1)})
    assert bound.form(E.binary("mul", X, 2)) == ({"y": 6}, 2)


def test_hinted_forms_are_kept_unless_a_variable_is_fixed() -> None:
    hints = CanonicalHints()
    index = emit(({"x": 8, "y": 1}, 0), hints)
    loop = For(
        X, E.IntImm(2), "serial", For(Y, E.IntImm(8), "serial", Store(OUT, index, E.FloatImm(1.0)))
    )
    kept = simplify_stmt(loop, hints)
    assert isinstance(kept, For) and isinstance(kept.body, For)
    assert isinstance(kept.body.body, Store) and kept.body.body.index is index
    # A loop of one iteration fixes x = 0: the hinted index is simplified as usual.
    single = For(X, E.IntImm(1), "serial", loop.body)
    assert simplify_stmt(single, hints) == simplify_stmt(single)
