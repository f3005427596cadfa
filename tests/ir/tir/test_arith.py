"""Tests of the integer analysis: bounds, linear forms, coefficients and proofs.

The property tests draw random integer expressions over three variables with small random
ranges (add / sub / mul by constants, floordiv / floormod by positive constants, min / max,
selects on comparisons, split / fuse patterns) and check the analysis against a tiny
Python evaluator on sampled points. `test_simplify` reuses the evaluator and strategies.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir.tir import expr as E
from ir.tir.arith import (
    bound,
    coefficient,
    from_linear_form,
    linear_form,
    normalize_linear,
    prove,
)
from ir.tir.expr import (
    COMPARE_OPS,
    Binary,
    Cast,
    Compare,
    FloatImm,
    IntImm,
    Load,
    Logical,
    PrimExpr,
    Select,
    Var,
)

X, Y, Z = Var("x"), Var("y"), Var("z")
VARS = (X, Y, Z)

Value = int | float


# --- a tiny evaluator: the oracle ---------------------------------------------------


_BINARY: dict[str, Callable[[Any, Any], Value]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
    "floordiv": operator.floordiv,
    "floormod": operator.mod,
    "min": min,
    "max": max,
}
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}


def evaluate(
    expr: PrimExpr, env: Mapping[Var, Value], memory: Mapping[str, list[float]] | None = None
) -> Value:
    """The value of `expr` with Python numbers (floor division, as in the IR)."""
    if isinstance(expr, IntImm | FloatImm):
        return expr.value
    if isinstance(expr, Var):
        return env[expr]
    if isinstance(expr, Binary):
        return _BINARY[expr.op](evaluate(expr.lhs, env, memory), evaluate(expr.rhs, env, memory))
    if isinstance(expr, Compare):
        lhs, rhs = evaluate(expr.lhs, env, memory), evaluate(expr.rhs, env, memory)
        return int(_COMPARE[expr.op](lhs, rhs))
    if isinstance(expr, Logical):
        first = bool(evaluate(expr.lhs, env, memory))
        if expr.rhs is None:
            return int(not first)
        second = bool(evaluate(expr.rhs, env, memory))
        return int(first and second) if expr.op == "and" else int(first or second)
    if isinstance(expr, Select):
        taken = expr.true_value if evaluate(expr.condition, env, memory) else expr.false_value
        return evaluate(taken, env, memory)
    if isinstance(expr, Cast):
        value = evaluate(expr.value, env, memory)
        if expr.dtype == "bool":
            return int(bool(value))
        return float(value) if E.is_float(expr.dtype) else int(value)
    if isinstance(expr, Load):
        assert memory is not None
        index = evaluate(expr.index, env, memory)
        assert isinstance(index, int) and 0 <= index < len(memory[expr.buffer.name])
        return memory[expr.buffer.name][index]
    raise TypeError(f"cannot evaluate {type(expr).__name__}")


# --- strategies ---------------------------------------------------------------------

_leaves = st.one_of(
    st.sampled_from(VARS),
    st.sampled_from(VARS),
    st.integers(-6, 6).map(lambda value: IntImm(value)),
)
_scales = st.integers(-4, 4)
_divisors = st.integers(1, 6)


def _extend(children: st.SearchStrategy[PrimExpr]) -> st.SearchStrategy[PrimExpr]:
    pairs = st.tuples(children, children)
    return st.one_of(
        pairs.map(lambda p: p[0] + p[1]),
        pairs.map(lambda p: p[0] - p[1]),
        st.tuples(children, _scales).map(lambda p: p[0] * p[1]),
        st.tuples(children, _divisors).map(lambda p: E.binary("floordiv", p[0], p[1])),
        st.tuples(children, _divisors).map(lambda p: E.binary("floormod", p[0], p[1])),
        pairs.map(lambda p: E.minimum(p[0], p[1])),
        pairs.map(lambda p: E.maximum(p[0], p[1])),
        # split / fuse patterns, which the simplifier rewrites
        st.tuples(children, _divisors, children).map(lambda p: (p[0] * p[1] + p[2]) // p[1]),
        st.tuples(children, _divisors, children).map(lambda p: (p[0] * p[1] + p[2]) % p[1]),
        st.tuples(children, _divisors).map(lambda p: (p[0] // p[1]) * p[1] + p[0] % p[1]),
        st.tuples(children, _divisors).map(lambda p: p[0] - (p[0] // p[1]) * p[1]),
        st.tuples(st.sampled_from(COMPARE_OPS), children, children, children, children).map(
            lambda p: E.select(E.compare(p[0], p[1], p[2]), p[3], p[4])
        ),
    )


int_exprs = st.recursive(_leaves, _extend, max_leaves=10)


@st.composite
def conditions(draw: st.DrawFn) -> PrimExpr:
    """A comparison of two random expressions, sometimes combined by and / or / not."""
    first = E.compare(draw(st.sampled_from(COMPARE_OPS)), draw(int_exprs), draw(int_exprs))
    how = draw(st.sampled_from(("plain", "and", "or", "not")))
    if how == "plain":
        return first
    if how == "not":
        return E.logical_not(first)
    second = E.compare(draw(st.sampled_from(COMPARE_OPS)), draw(int_exprs), draw(int_exprs))
    return E.logical_and(first, second) if how == "and" else E.logical_or(first, second)


@st.composite
def var_ranges(draw: st.DrawFn) -> dict[Var, tuple[int, int]]:
    """Small inclusive ranges for x, y, z (some may be missing, i.e. unbounded)."""
    ranges: dict[Var, tuple[int, int]] = {}
    for var in VARS:
        if draw(st.integers(0, 5)) == 0:
            continue
        low = draw(st.integers(-10, 10))
        ranges[var] = (low, low + draw(st.integers(0, 12)))
    return ranges


def sample_points(
    ranges: Mapping[Var, tuple[int, int]], rng: random.Random, count: int = 24
) -> list[dict[Var, int]]:
    """Corner points of the box plus random points inside it (unranged vars: [-40, 40])."""
    boxes = {var: ranges.get(var, (-40, 40)) for var in VARS}
    points = [
        {var: box[corner >> i & 1] for i, (var, box) in enumerate(boxes.items())}
        for corner in range(8)
    ]
    for _ in range(count):
        points.append({var: rng.randint(*box) for var, box in boxes.items()})
    return points


# --- bound --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (X + Y, (-2, 8)),
        (X - Y, (-7, 3)),
        (X * 3, (-6, 9)),
        (X * -3, (-9, 6)),
        (X * Y, (-10, 15)),  # x in [-2, 3], y in [0, 5]: sign cases
        (Y * Y, (0, 25)),  # intervals do not know both factors are the same
        (E.binary("floordiv", X, 2), (-1, 1)),
        (E.binary("floordiv", X, -2), (-2, 1)),
        (E.binary("floormod", X, 4), (0, 3)),
        (E.binary("floormod", Y, 8), (0, 5)),  # one period: y itself
        (E.binary("floormod", X, -4), (-3, 0)),
        (E.binary("floordiv", Y, Y + 1), (0, 5)),  # positive-range divisor
        (E.binary("floormod", X, Y + 1), (0, 5)),  # divisor in [1, 6]
        (E.minimum(X, Y), (-2, 3)),
        (E.maximum(X, Y), (0, 5)),
        (E.select(X < Y, X, Y * 2), (-2, 10)),
        (E.select(Y >= 0, X, Y * 100), (-2, 3)),  # the condition is proven
        (E.cast("int32", X), (-2, 3)),
        (E.cast("int8", Y * 100), (-128, 127)),  # may wrap
        (E.cast("int64", X < Y), (0, 1)),
        (E.cast("int32", Var("f", "float32")), (-(2**31), 2**31 - 1)),
        (IntImm(7), (7, 7)),
    ],
    ids=str,
)
def test_bound_rules(expr: PrimExpr, expected: tuple[int, int]) -> None:
    assert bound(expr, {X: (-2, 3), Y: (0, 5)}) == expected


def test_bound_of_unknown_variables_is_open() -> None:
    assert bound(Z) == (None, None)
    assert bound(Z + 1, {X: (0, 3)}) == (None, None)
    assert bound(E.maximum(Z, 0)) == (0, None)
    assert bound(E.minimum(Z, 0) + X, {X: (0, 3)}) == (None, 3)
    assert bound(E.binary("floormod", Z, 5)) == (0, 4)
    assert bound(E.binary("floordiv", Z, 5)) == (None, None)
    assert bound(Var("flag", "bool")) == (0, 1)
    assert bound(Load(E.Buffer("idx", (4,), "int32"), IntImm(0))) == (None, None)


def test_bound_multiplies_open_intervals_soundly() -> None:
    positive = E.maximum(Z, 1)
    assert bound(positive * positive) == (1, None)
    assert bound(positive * -2) == (None, -2)
    assert bound(positive * X, {X: (0, 3)}) == (0, None)  # 0 * inf is 0 here


# --- linear forms -------------------------------------------------------------------


def test_linear_form_merges_terms_and_keeps_atoms() -> None:
    atom = E.binary("floordiv", X, 4)
    assert linear_form(X * 4 + Y - (X * 4) + atom * 3 - 2 + atom) == ({Y: 1, atom: 4}, -2)
    assert linear_form(IntImm(5)) == ({}, 5)
    assert linear_form(X * Y) == ({Binary("mul", X, Y): 1}, 0)
    assert linear_form(Var("f", "float32") + 1.0) is None
    assert linear_form(X < Y) is None


def test_from_linear_form_is_canonical() -> None:
    fd = E.binary("floordiv", Z, 4)
    assert str(from_linear_form({Y: 1, X: 4}, 3)) == "(((x * 4) + y) + 3)"
    assert str(from_linear_form({X: 4, Y: 1}, 3)) == "(((x * 4) + y) + 3)"
    assert str(from_linear_form({fd: 1, Y: 1, X: 1}, 0)) == "((x + y) + (z // 4))"
    assert str(from_linear_form({X: -1, Y: 2}, -1)) == "(((y * 2) - x) - 1)"
    assert str(from_linear_form({X: -1, Y: -2}, 5)) == "((5 - (y * 2)) - x)"
    assert str(from_linear_form({X: -1}, 0)) == "(x * -1)"
    assert from_linear_form({X: 0}, 4) == IntImm(4)
    assert from_linear_form({}, 0, "int32") == IntImm(0, "int32")


@given(int_exprs, st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_linear_form_round_trip_keeps_values(expr: PrimExpr, rng: random.Random) -> None:
    form = linear_form(expr)
    assert form is not None
    rebuilt = from_linear_form(*form)
    for point in sample_points({}, rng, count=8):
        assert evaluate(rebuilt, point) == evaluate(expr, point)


def test_normalize_linear_fuses_div_and_mod() -> None:
    fd, fm = E.binary("floordiv", X, 4), E.binary("floormod", X, 4)
    assert normalize_linear({fd: 4, fm: 1}, 0) == ({X: 1}, 0)
    assert normalize_linear({fd: 8, fm: 2, Y: 1}, 1) == ({X: 2, Y: 1}, 1)
    assert normalize_linear({X: 1, fd: -4}, 0) == ({fm: 1}, 0)
    assert normalize_linear({X: 1, fd: -3}, 0) == ({X: 1, fd: -3}, 0)  # not a multiple
    shifted = E.binary("floordiv", X + 3, 4)
    assert normalize_linear({X: 1, shifted: -4}, 5) == ({E.binary("floormod", X + 3, 4): 1}, 2)


def test_coefficient() -> None:
    assert coefficient(X * 4 + Y * 2 - X, X) == 3
    assert coefficient(X * 4 + Y, Z) == 0
    assert coefficient(X * X, X) is None
    assert coefficient(E.binary("floordiv", X, 4) + X, X) is None
    assert coefficient(E.cast("float32", X), X) is None


# --- prove --------------------------------------------------------------------------


def test_prove_comparisons() -> None:
    ranges = {X: (0, 7), Y: (0, 3)}
    assert prove(X * 4 + Y < 32, ranges) is True
    assert prove(X * 4 + Y < 31, ranges) is None
    assert prove(X * 4 + Y >= 32, ranges) is False
    assert prove(E.eq(X - X, 0), ranges) is True
    assert prove(E.ne(Y, 4), ranges) is True
    assert prove(E.eq(Y, 4), ranges) is False
    assert prove(X * 4 + Y - X * 4 <= 3, ranges) is True  # like terms cancel first
    assert prove(E.binary("floordiv", Z, 4) * 4 <= Z) is True  # z - (z // 4) * 4 == z % 4
    assert prove(Z < Z + 1) is True
    assert prove(Z < 0) is None
    assert prove(IntImm(1, "bool")) is True
    assert prove(Var("f", "float32") < 1.0) is None


def test_prove_logical() -> None:
    ranges = {X: (0, 7)}
    assert prove(E.logical_and(X >= 0, X < 8), ranges) is True
    assert prove(E.logical_and(X >= 0, Z < 8), ranges) is None
    assert prove(E.logical_and(Z < 8, X > 9), ranges) is False
    assert prove(E.logical_or(Z < 8, X < 9), ranges) is True
    assert prove(E.logical_or(X > 8, X < 0), ranges) is False
    assert prove(E.logical_not(X > 8), ranges) is True


# --- properties ---------------------------------------------------------------------


@given(int_exprs, var_ranges(), st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_bound_contains_every_value(
    expr: PrimExpr, ranges: dict[Var, tuple[int, int]], rng: random.Random
) -> None:
    lo, hi = bound(expr, ranges)
    for point in sample_points(ranges, rng):
        value = evaluate(expr, point)
        assert lo is None or lo <= value, (str(expr), point, value)
        assert hi is None or value <= hi, (str(expr), point, value)


@given(conditions(), var_ranges(), st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_prove_is_never_wrong(
    cond: PrimExpr, ranges: dict[Var, tuple[int, int]], rng: random.Random
) -> None:
    verdict = prove(cond, ranges)
    if verdict is None:
        return
    for point in sample_points(ranges, rng):
        assert bool(evaluate(cond, point)) == verdict, (str(cond), point)


def test_finite_interval_ends_stay_ints() -> None:
    # (compiled by mypyc, a `float` annotation would turn them into doubles: 2**62 + 1
    # would round, and an end that lands in an IntImm would print as 3.0)
    from ir.tir.arith import dtype_interval, interval

    big = 2**62 + 1
    x = Var("x")
    for lo, hi in (interval(IntImm(3), {}, None), interval(x * 2 + 1, {x: (big, big)}, None)):
        assert type(lo) is int and type(hi) is int
    assert interval(x * 2 + 1, {x: (big, big)}, None) == (2 * big + 1, 2 * big + 1)
    low, high = dtype_interval("int64")
    assert (low, high) == (-(2**63), 2**63 - 1) and type(high) is int  # exactly
