"""Property tests: random elementwise kernels under random loop kinds compute what the
loop IR interpreter (the executable definition of the IR) computes."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.llvm import compile_kernel
from ir.tir.expr import (
    Binary,
    Buffer,
    FloatImm,
    IntImm,
    Load,
    PrimExpr,
    Select,
    Var,
    compare,
    intrinsic,
)
from ir.tir.interpret import interpret
from ir.tir.stmt import For, PrimFunc, Store

ROW, COL = Var("row"), Var("col")
_names = itertools.count()


def _expressions(dtype: str, index: PrimExpr) -> st.SearchStrategy[PrimExpr]:
    lhs, rhs = Buffer("A", (3, 16), dtype), Buffer("B", (3, 16), dtype)
    if dtype == "float32":
        constants = st.sampled_from([0.0, 1.0, -0.5, 2.0]).map(FloatImm)
    else:
        constants = st.integers(-9, 9).map(lambda value: IntImm(value, dtype))
    leaves = st.one_of(st.just(Load(lhs, index)), st.just(Load(rhs, index)), constants)

    def extend(children: st.SearchStrategy[PrimExpr]) -> st.SearchStrategy[PrimExpr]:
        ops = ["add", "sub", "mul", "min", "max"]
        binary = st.builds(
            lambda op, a, b: Binary(op, a, b), st.sampled_from(ops), children, children
        )
        choose = st.builds(
            lambda op, a, b, t, f: Select(compare(op, a, b), t, f),
            st.sampled_from(["lt", "le", "gt", "eq", "ne"]),
            children,
            children,
            children,
            children,
        )
        if dtype == "float32":
            unary = st.builds(
                lambda name, a: intrinsic(name, a),
                st.sampled_from(["fabs", "tanh", "floor"]),
                children,
            )
            return st.one_of(binary, choose, unary)
        divisors = (
            st.integers(-7, 7)
            .filter(lambda value: value != 0)
            .map(lambda value: IntImm(value, dtype))
        )
        division = st.builds(
            lambda op, a, b: Binary(op, a, b),
            st.sampled_from(["floordiv", "floormod"]),
            children,
            divisors,
        )
        return st.one_of(binary, choose, division)

    return st.recursive(leaves, extend, max_leaves=6)


def _kernel(dtype: str, value: PrimExpr, rows: int, outer: str, inner: str) -> PrimFunc:
    lhs, rhs, out = (
        Buffer("A", (3, 16), dtype),
        Buffer("B", (3, 16), dtype),
        Buffer("C", (3, 16), dtype),
    )
    body = Store(out, ROW * 16 + COL, value)
    loops = For(ROW, IntImm(rows), outer, For(COL, IntImm(16), inner, body))
    return PrimFunc(f"prop_{dtype}_{next(_names)}", (lhs, rhs, out), loops)


LOOPS = st.tuples(
    st.integers(1, 3),
    st.sampled_from(["serial", "parallel", "unrolled"]),
    st.sampled_from(["serial", "vectorized", "unrolled"]),
)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), loops=LOOPS, seed=st.integers(0, 2**16))
def test_random_float_kernels_match_the_interpreter(
    data: st.DataObject, loops: tuple[int, str, str], seed: int
) -> None:
    value = data.draw(_expressions("float32", ROW * 16 + COL))
    rows, outer, inner = loops
    func = _kernel("float32", value, rows, outer, inner)
    generator = np.random.default_rng(seed)
    lhs, rhs = (generator.uniform(-2, 2, (3, 16)).astype(np.float32) for _ in range(2))
    lhs[0, :4] = rhs[0, :4]  # some equal pairs, for == and != in selects
    expected, got = np.zeros((3, 16), np.float32), np.zeros((3, 16), np.float32)
    interpret(func, [lhs, rhs, expected])
    compile_kernel(func)(lhs, rhs, got)
    # Only multiply-add contraction (one rounding instead of two) may differ.
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), loops=LOOPS, seed=st.integers(0, 2**16))
def test_random_integer_kernels_match_the_interpreter(
    data: st.DataObject, loops: tuple[int, str, str], seed: int
) -> None:
    value = data.draw(_expressions("int64", ROW * 16 + COL))
    rows, outer, inner = loops
    func = _kernel("int64", value, rows, outer, inner)
    generator = np.random.default_rng(seed)
    lhs, rhs = (generator.integers(-60, 60, (3, 16)).astype(np.int64) for _ in range(2))
    expected, got = np.zeros((3, 16), np.int64), np.zeros((3, 16), np.int64)
    interpret(func, [lhs, rhs, expected])
    compile_kernel(func)(lhs, rhs, got)
    np.testing.assert_array_equal(got, expected)
