"""Dim expressions as text: what `format_expr` prints, `parse_dim` reads back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ir.tir.dim_text import DimTextError, parse_dim
from ir.tir.expr import Binary, IntImm, PrimExpr, Var
from ir.tir.printer import format_expr

_OPS = ("add", "sub", "mul", "floordiv", "floormod", "min", "max")

_leaves = st.one_of(
    st.sampled_from([Var("batch"), Var("seq"), Var("past_len")]),
    st.integers(-50, 5000).map(lambda value: IntImm(value, "int64")),
)
dims: st.SearchStrategy[PrimExpr] = st.recursive(
    _leaves,
    lambda inner: st.builds(Binary, st.sampled_from(_OPS), inner, inner),
    max_leaves=12,
)


@given(dims)
def test_what_format_expr_prints_parses_back_to_the_same_expression(dim: PrimExpr) -> None:
    assert parse_dim(format_expr(dim)) == dim


def test_unparenthesised_text_follows_python_precedence() -> None:
    batch, seq = Var("batch"), Var("seq")
    parsed = parse_dim("batch * seq + 12 // 4 - 1")
    expected = Binary(
        "sub",
        Binary("add", Binary("mul", batch, seq), Binary("floordiv", IntImm(12), IntImm(4))),
        IntImm(1),
    )
    assert parsed == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expected more"),
        ("(batch + 1", "expected '\\)'"),
        ("batch +* 2", "unexpected '\\*'"),
        ("batch 2", "unexpected '2'"),
        ("batch ** 2", "unexpected '\\*'"),
        ("1.5", "cannot read '.5'"),
        ("min(batch)", "expected ','"),
    ],
)
def test_text_that_is_no_dim_expression_is_refused_saying_where(text: str, message: str) -> None:
    with pytest.raises(DimTextError, match=message):
        parse_dim(text)
