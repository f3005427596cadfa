"""Flat indices built in canonical linear form (`ir.lower.index`) against the simplifier.

The property: wherever `LinearIndexer.flat` builds an index, it is exactly what
`simplify` makes of the `flat_index` tree under the loop ranges, and simplifying it with
its hint (variables of one value folded) gives what simplifying it without the hint does.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ir.lower.index import LinearIndexer, VarForm
from ir.lower.reads import flat_index
from ir.tir import expr as E
from ir.tir.expr import Buffer, IntImm, PrimExpr, Var
from ir.tir.simplify import simplify
from ir.tir.simplify_stmt import simplify_func
from ir.tir.stmt import For, PrimFunc, Store
from ir.tir.visit import substitute

VARS = [Var(f"v{i}") for i in range(4)]


@st.composite
def _index(draw: st.DrawFn, depth: int = 0) -> PrimExpr:
    """Index arithmetic as lowering builds it: splits, fuses, layouts and offsets."""
    if depth >= 3 or draw(st.booleans()):
        if draw(st.integers(0, 4)) == 0:
            return IntImm(draw(st.integers(-3, 6)))
        return draw(st.sampled_from(VARS))
    op = draw(st.sampled_from(["add", "sub", "mul", "floordiv", "floormod"]))
    lhs = draw(_index(depth + 1))
    if op in ("add", "sub"):
        return E.binary(op, lhs, draw(_index(depth + 1)))
    return E.binary(op, lhs, draw(st.integers(1, 9)))


@settings(max_examples=400, deadline=None)
@given(
    extents=st.lists(st.integers(1, 8), min_size=4, max_size=4),
    indices=st.lists(_index(), min_size=1, max_size=3),
    shape_tail=st.lists(st.integers(1, 12), min_size=3, max_size=3),
)
def test_flat_index_in_linear_form_is_what_the_simplifier_makes(
    extents: list[int], indices: list[PrimExpr], shape_tail: list[int]
) -> None:
    shape = [7, *shape_tail][: len(indices)]
    indexer = LinearIndexer()
    indexer.bound(
        {var.name: var for var in VARS}, dict(zip([v.name for v in VARS], extents, strict=True))
    )
    built = indexer.flat(indices, shape)
    if built is None:
        return
    ranges = {var: (0, extent - 1) for var, extent in zip(VARS, extents, strict=True)}
    assert built == simplify(flat_index(indices, shape), ranges)
    buffer = Buffer("b", (1 << 20,))
    body: Store | For = Store(buffer, built, E.FloatImm(0.0))
    for var, extent in zip(VARS, extents, strict=True):
        body = For(var, IntImm(extent), "serial", body)
    func = PrimFunc("f", (buffer,), body, num_outputs=1)
    assert simplify_func(func, indexer.hints) == simplify_func(func)


def test_a_split_value_stored_in_tiled_layout_is_its_loop_variables() -> None:
    outer, inner = Var("outer"), Var("inner")
    indexer = LinearIndexer()
    indexer.bound({"o": outer, "i": inner}, {"o": 5, "i": 8})
    value = outer * 8 + inner
    built = indexer.flat([value // 8, value % 8], [5, 8])
    assert built == outer * 8 + inner
    assert built is not None and id(built) in indexer.hints


def test_an_index_that_is_not_affine_is_left_to_the_simplifier() -> None:
    x = Var("x")
    indexer = LinearIndexer()
    indexer.bound({"x": x}, {"x": 8})
    assert indexer.flat([x // 2, x // 4], [4, 2]) is None  # a remainder over two periods
    assert indexer.flat([x * x], [64]) is None


SYMBOLS = [Var(f"s{i}") for i in range(3)]


@st.composite
def _template(draw: st.DrawFn, depth: int = 0) -> PrimExpr:
    """An index over symbols (a compute body's axes) that lowering substitutes."""
    if depth >= 3 or draw(st.booleans()):
        if draw(st.integers(0, 4)) == 0:
            return IntImm(draw(st.integers(-3, 6)))
        return draw(st.sampled_from(SYMBOLS))
    op = draw(st.sampled_from(["add", "sub", "mul", "mul_var", "floordiv", "floormod"]))
    lhs = draw(_template(depth + 1))
    if op in ("add", "sub"):
        return E.binary(op, lhs, draw(_template(depth + 1)))
    if op == "mul_var":  # a product of two non-constants: not affine
        return E.binary("mul", lhs, draw(_template(depth + 1)))
    return E.binary(op, lhs, draw(st.integers(0, 9)))


@settings(max_examples=400, deadline=None)
@given(
    extents=st.lists(st.integers(1, 8), min_size=4, max_size=4),
    template=_template(),
    values=st.lists(_index(), min_size=3, max_size=3),
    constant=st.integers(0, 2),
)
def test_form_at_is_the_form_of_the_substituted_tree(
    extents: list[int], template: PrimExpr, values: list[PrimExpr], constant: int
) -> None:
    # (One symbol maps to a constant, as an offset can: the substituted tree folds there.)
    values[constant] = IntImm(constant)
    indexer = LinearIndexer()
    indexer.bound(
        {var.name: var for var in VARS}, dict(zip([v.name for v in VARS], extents, strict=True))
    )
    mapping = dict(zip(SYMBOLS, values, strict=True))

    def var_form(var: Var) -> VarForm | None:
        value = mapping.get(var)
        return indexer.var_form(var) if value is None else indexer.form(value)

    composed = indexer.form_at(template, var_form)
    if composed is not None:  # (None: undecided; lowering then builds the tree)
        assert composed == indexer.form(substitute(template, mapping))
