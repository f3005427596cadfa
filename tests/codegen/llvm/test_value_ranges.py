"""Integer ranges in the code generator: vector divisions of small non-negative integers
by a run-time value run in float32, exactly; larger ones stay integer divisions."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from codegen.llvm import compile_kernel
from codegen.llvm.jit import optimized_llvm_ir
from codegen.llvm.value_ranges import FLOAT32_EXACT_INT, variable_ranges, within_float32_exact
from ir.lower import lower
from ir.schedule.default import default_schedule
from ir.te.program import TEProgram
from ir.te.tensor import compute, size_var
from ir.tir.arith import IntervalCache
from ir.tir.expr import INDEX_DTYPE, Buffer, Load, Var, binary, const
from ir.tir.stmt import For, PrimFunc, Seq, Store

VECTOR_INT_DIVISION = re.compile(r"= [su](div|rem) <\d+ x i\d+>")


@given(
    dividend=st.integers(0, FLOAT32_EXACT_INT - 1),
    divisor=st.integers(1, FLOAT32_EXACT_INT),
)
def test_float32_quotients_of_integers_below_two_to_the_24_are_exact(
    dividend: int, divisor: int
) -> None:
    quotient = np.float32(dividend) / np.float32(divisor)
    assert int(quotient) == dividend // divisor


def test_float32_quotients_are_exact_at_the_edges_of_the_range() -> None:
    top = FLOAT32_EXACT_INT - 1
    dividends = np.array([top] * 6 + [top - 1] * 3, np.int64)
    divisors = np.array([1, 2, 3, top, top - 1, FLOAT32_EXACT_INT, top, top - 2, 3], np.int64)
    quotients = (dividends.astype(np.float32) / divisors.astype(np.float32)).astype(np.int64)
    np.testing.assert_array_equal(quotients, dividends // divisors)


def _rows_program(upper: int, scale: int) -> TEProgram:
    """[b, n] int64: the row of each flat position (i + n*r) // n, a remainder and a
    truncating quotient by the run-time n, with the dividends scaled by `scale`."""
    b, n = size_var("b", 4), size_var("n", upper)
    size = n.value

    def value(r, i):  # type: ignore[no-untyped-def]
        row = binary("floordiv", (i + size * r) * const(scale, INDEX_DTYPE), size)
        rest = binary("floormod", i * const(7, INDEX_DTYPE) + r, size)
        part = binary("div", i + r, size)
        return row * const(10_000, INDEX_DTYPE) + rest * const(10, INDEX_DTYPE) + part

    out = compute((b, n), value, name="out")
    return TEProgram("rows", (), (out,))


def _expected(rows: int, n: int, scale: int) -> np.ndarray:
    r, i = np.meshgrid(np.arange(rows), np.arange(n), indexing="ij")
    expected: np.ndarray = ((i + n * r) * scale // n) * 10_000 + ((i * 7 + r) % n) * 10
    expected += (i + r) // n
    return expected


def test_a_vector_division_by_a_size_runs_in_float32_and_matches_numpy() -> None:
    func = lower(default_schedule(_rows_program(upper=300, scale=1)))
    text = optimized_llvm_ir(func)
    assert "fdiv <" in text
    assert not VECTOR_INT_DIVISION.search(text)
    kernel = compile_kernel(func)
    for rows, n in ((1, 1), (2, 7), (3, 64), (4, 299), (4, 300)):
        out = np.zeros((rows, n), np.int64)
        kernel(out)
        np.testing.assert_array_equal(out, _expected(rows, n, 1), err_msg=f"{rows}x{n}")


def test_a_dividend_that_may_reach_two_to_the_24_keeps_the_integer_division() -> None:
    scale = 1 << 16  # dividends up to (256 + 256 * 3) << 16, past 2**24
    func = lower(default_schedule(_rows_program(upper=256, scale=scale)))
    assert VECTOR_INT_DIVISION.search(optimized_llvm_ir(func))
    kernel = compile_kernel(func)
    for rows, n in ((1, 5), (4, 256)):
        out = np.zeros((rows, n), np.int64)
        kernel(out)
        np.testing.assert_array_equal(out, _expected(rows, n, scale), err_msg=f"{rows}x{n}")


def test_variable_ranges_take_the_hull_over_loops_and_drop_unbounded_ones() -> None:
    n = Var("n", INDEX_DTYPE)
    i, j, k = (Var(name, INDEX_DTYPE) for name in "ijk")
    out = Buffer("out", (64,), "int64", dims=(n,))
    data = Buffer("data", (4,), "int64")
    store = Store(out, i, i)
    body = Seq(
        (
            For(i, const(8, INDEX_DTYPE), "serial", store),
            For(i, n, "serial", store),  # the same variable, a run-time extent up to 64
            For(j, binary("floordiv", n, const(16, INDEX_DTYPE)), "serial", store),
            For(k, Load(data, const(0, INDEX_DTYPE)), "serial", store),
        )
    )
    ranges = variable_ranges(PrimFunc("f", (data, out), body, size_params=(n,)))
    assert ranges[n] == (1, 64)
    assert ranges[i] == (0, 63)
    assert ranges[j] == (0, 3)
    assert k not in ranges  # its extent is read from data
    cache: IntervalCache = {}
    assert within_float32_exact(i + j, n, ranges, cache)
    assert not within_float32_exact(i - j, n, ranges, cache)  # may be negative
    assert not within_float32_exact(i, k, ranges, cache)  # the divisor is unbounded
