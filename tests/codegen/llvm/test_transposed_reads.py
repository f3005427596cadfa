"""A loop over columns around a vectorized loop over rows that reads down a column
(`out[k, x] = src[x * S + k]`, a conv's channels-innermost accumulator written to NCHW)
is compiled as row loads and a shuffle network (codegen/llvm/transpose.py): the same
numbers as numpy, no gathers, and never an element the loop does not read (inputs sit
flush against a faulting page)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.llvm import compile_kernel, host_target
from codegen.llvm.emit import build_module
from codegen.llvm.legalize import legalize_vector_loops
from ir.tir.expr import Buffer, IntImm, Load, PrimExpr, Var, cast, const, select
from ir.tir.stmt import For, PrimFunc, Seq, Store
from tests.codegen.llvm.kernels import random_array
from tests.codegen.llvm.test_strided_loads import guarded


def transposed_read(
    rows: int, columns: int, row_step: int, dtype: str = "float32", kind: str = "serial"
) -> tuple[PrimFunc, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """`B[k, x] = A[x * row_step + k + base] + k` for k < columns (a `kind` loop) and x <
    rows (vectorized): the kernel, an A holding exactly the elements read, and numpy's B."""
    span = (rows - 1) * abs(row_step) + columns
    base = 0 if row_step > 0 else (rows - 1) * -row_step
    source, result = Buffer("A", (span,), dtype), Buffer("B", (columns, rows), dtype)
    k, x = Var("k"), Var("x")
    value = Load(source, x * row_step + k + base) + cast(dtype, k)
    body = For(
        k,
        IntImm(columns),
        kind,
        For(x, IntImm(rows), "vectorized", Store(result, k * rows + x, value)),
    )
    data = random_array((span,), dtype, seed=rows * 100 + columns)
    picks = np.arange(rows)[None, :] * row_step + np.arange(columns)[:, None] + base
    expected = (data[picks] + np.arange(columns, dtype=dtype)[:, None]).astype(dtype)
    name = f"transposed_{dtype}_{rows}x{columns}_s{row_step}".replace("-", "m")
    return PrimFunc(name, (source, result), body), data, expected


def check(func: PrimFunc, data: np.ndarray[Any, Any], expected: np.ndarray[Any, Any]) -> str:
    """Run `func` with its input flush against a faulting page on each side; compare with
    `expected`; return the optimised LLVM IR."""
    kernel = compile_kernel(func)
    for side in ("after", "before"):
        got = np.zeros_like(expected)
        kernel(guarded(data, side), got)
        np.testing.assert_array_equal(got, expected, err_msg=f"input flush {side} a guard page")
    return kernel.stages["llvm"]


@pytest.mark.parametrize(("rows", "columns"), [(7, 32), (8, 16), (2, 64), (16, 16), (5, 24)])
@pytest.mark.parametrize("kind", ["serial", "unrolled"])
def test_a_transposed_read_is_shuffled_not_gathered(rows: int, columns: int, kind: str) -> None:
    func, data, expected = transposed_read(rows, columns, columns, kind=kind)
    llvm_text = check(func, data, expected)
    assert "llvm.masked.gather" not in llvm_text
    # Before optimisation: one load per row, of all its columns (not one per column).
    unoptimised = str(build_module(legalize_vector_loops(func), host_target()))
    assert len(re.findall(r"= load <", unoptimised)) == rows
    assert len(re.findall(rf"= load <{columns} x float>", unoptimised)) == rows


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 16),
    columns=st.integers(1, 150),  # past 64: blocks of 16 columns in a loop, then the rest
    step_past_columns=st.integers(-3, 9),
    negative=st.booleans(),
    dtype=st.sampled_from(["float32", "float64", "int32", "int8", "float16"]),
    kind=st.sampled_from(["serial", "unrolled"]),
)
def test_transposed_reads_match_numpy_for_any_shape(
    rows: int, columns: int, step_past_columns: int, negative: bool, dtype: str, kind: str
) -> None:
    step = max(2, columns + step_past_columns)  # rows may overlap (a step under the columns)
    func, data, expected = transposed_read(rows, columns, -step if negative else step, dtype, kind)
    check(func, data, expected)


@pytest.mark.parametrize(("rows", "columns"), [(16, 197), (5, 100), (4, 65), (2, 80)])
def test_many_columns_are_transposed_a_block_at_a_time(rows: int, columns: int) -> None:
    # (The last columns % 16 run as before.)
    func, data, expected = transposed_read(rows, columns, columns + 3)
    check(func, data, expected)


def test_a_read_under_a_select_is_left_to_its_mask() -> None:
    # B[k, x] = x < 3 ? A[8x + k] : -1 over 4 rows, with A holding only the first 3 rows:
    # reading the 4th row whole would fault, as the masked lanes never read it.
    rows, columns, step = 4, 8, 8
    source, result = Buffer("A", ((rows - 2) * step + columns,)), Buffer("B", (columns, rows))
    k, x = Var("k"), Var("x")
    value: PrimExpr = select(x < rows - 1, Load(source, x * step + k), const(-1.0, "float32"))
    body = For(
        k,
        IntImm(columns),
        "serial",
        For(x, IntImm(rows), "vectorized", Store(result, k * rows + x, value)),
    )
    data = random_array((source.shape[0],), "float32", seed=3)
    expected = np.full((columns, rows), -1.0, np.float32)
    expected[:, : rows - 1] = data[
        np.arange(rows - 1)[None, :] * step + np.arange(columns)[:, None]
    ]
    check(PrimFunc("masked_column", (source, result), body), data, expected)


def test_a_buffer_written_in_the_loop_is_read_as_written() -> None:
    # A[x * 5 + k] = A[x * 5 + k] * 2 and B[k, x] = A[x * 5 + k]: the second store reads
    # what the first wrote, column by column; a row loaded ahead would read stale values.
    rows, columns, step = 4, 5, 5
    source, result = Buffer("A", (rows * step,)), Buffer("B", (columns, rows))
    k, x = Var("k"), Var("x")
    index = x * step + k
    scaled = Store(source, index, Load(source, index) * const(2.0, "float32"))
    copied = Store(result, k * rows + x, Load(source, index))
    body = For(
        k, IntImm(columns), "serial", For(x, IntImm(rows), "vectorized", Seq((scaled, copied)))
    )
    data = random_array((rows * step,), "float32", seed=5)
    kernel = compile_kernel(PrimFunc("in_place_column", (source, result), body))
    got = np.zeros((columns, rows), np.float32)
    kernel(data.copy(), got)
    np.testing.assert_array_equal(got, (data * 2).reshape(rows, step)[:, :columns].T)
