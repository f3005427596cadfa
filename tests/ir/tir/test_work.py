"""The run-time statement count of a loop nest (`ir.tir.work.statement_count`)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ir.tir.expr import Buffer, FloatImm, IntImm, Var, binary, compare
from ir.tir.sizes import evaluate_dim as evaluate
from ir.tir.stmt import For, IfThenElse, LetStmt, Store, seq
from ir.tir.work import statement_count

N, M = Var("n"), Var("m")
OUT = Buffer("out", (1,))


def _store() -> Store:
    return Store(OUT, IntImm(0), FloatImm(0.0))


def test_loops_multiply_sequences_add_and_branches_take_the_larger_side() -> None:
    i, j = Var("i"), Var("j")
    nest = For(
        i,
        N,
        "parallel",
        seq(
            For(j, IntImm(16), "vectorized", _store()),
            IfThenElse(compare("lt", i, M), For(j, M, "serial", _store()), _store()),
        ),
    )
    count = statement_count(nest, [N, M])
    assert count is not None
    for n, m in itertools.product((1, 3, 10), (1, 2, 40)):
        assert evaluate(count, {N: n, M: m}) == n * (16 + max(m, 1))


def test_a_let_bound_extent_counts_through_its_value_and_an_inner_one_gives_none() -> None:
    i, j, tiles = Var("i"), Var("j"), Var("tiles")
    peeled = LetStmt(tiles, binary("floordiv", N, 16), For(j, tiles, "serial", _store()))
    count = statement_count(peeled, [N])
    assert count is not None and evaluate(count, {N: 100}) == 6
    triangular = For(i, N, "parallel", For(j, i, "serial", _store()))
    assert statement_count(triangular, [N]) is None


@settings(max_examples=50, deadline=None)
@given(
    extents=st.lists(st.integers(1, 9), min_size=1, max_size=4),
    symbolic=st.lists(st.booleans(), min_size=4, max_size=4),
    n=st.integers(1, 50),
)
def test_a_perfect_nest_counts_the_product_of_its_extents(
    extents: list[int], symbolic: list[bool], n: int
) -> None:
    nest = _store()
    expected = 1
    for depth, (extent, by_n) in enumerate(zip(extents, symbolic, strict=False)):
        nest = For(Var(f"v{depth}"), N if by_n else IntImm(extent), "serial", nest)
        expected *= n if by_n else extent
    count = statement_count(nest, [N])
    assert count is not None and evaluate(count, {N: n}) == expected
