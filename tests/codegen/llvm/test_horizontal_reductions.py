"""A vectorized loop that reduces into one element (`acc[c] = acc[c] op f(k)`) is one
horizontal reduction: every lane's operand, combined as a tree, then with acc[c]. Bodies
that only look like one keep their serial meaning."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from codegen.llvm import compile_kernel, host_target
from codegen.llvm.emit import build_module
from codegen.llvm.vectorize import reduction_update
from ir.lower import lower
from ir.schedule import Schedule
from ir.te.program import TEProgram
from ir.te.tensor import compute, max_reduce, placeholder, reduce_axis, sum_reduce
from ir.tir.expr import Binary, Buffer, FloatImm, IntImm, Load, Var
from ir.tir.stmt import For, PrimFunc, Seq, Store

ROWS = 3
NUMPY = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _is_horizontal(func: PrimFunc) -> bool:
    """Whether every vectorized loop of `func` became vector code (no serial loop left
    for LLVM's vectorizer)."""
    return "llvm.loop.vectorize.enable" not in str(build_module(func, host_target()))


def _row_reduction(op: str, lanes: int, dtype: str, operand_first: bool = False) -> PrimFunc:
    """`S[i] = S[i] op A[i, k]` for k in a vectorized loop of `lanes`, over ROWS rows."""
    source, total = Buffer("A", (ROWS, lanes), dtype), Buffer("S", (ROWS,), dtype)
    i, k = Var("i"), Var("k")
    accumulator, operand = Load(total, i), Load(source, i * lanes + k)
    value = Binary(op, operand, accumulator) if operand_first else Binary(op, accumulator, operand)
    loop = For(k, IntImm(lanes), "vectorized", Store(total, i, value))
    return PrimFunc(
        f"reduce_{op}_{dtype}_{lanes}", (source, total), For(i, IntImm(ROWS), "serial", loop)
    )


def _data(op: str, lanes: int, dtype: str, seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        data = rng.uniform(-2.0, 2.0, (ROWS, lanes))
        if op == "mul":  # keep products of 64 factors in range
            data = rng.uniform(0.9, 1.1, (ROWS, lanes))
        start = rng.uniform(-1.0, 1.0, ROWS)
    else:
        low = 0 if np.dtype(dtype).kind == "u" else -50
        data = rng.integers(low, 50, (ROWS, lanes))
        if op == "mul":
            data = rng.integers(1, 3, (ROWS, lanes))
        start = rng.integers(max(low, 1), 20, ROWS)
    return data.astype(dtype), start.astype(dtype)


@pytest.mark.parametrize(
    ("op", "dtype"),
    [
        ("add", "float32"),
        ("mul", "float32"),
        ("max", "float32"),
        ("min", "float32"),
        ("add", "float64"),
        ("max", "float64"),
        ("add", "int32"),
        ("mul", "int64"),
        ("max", "int32"),
        ("min", "int64"),
        ("max", "uint8"),
        ("min", "uint8"),
    ],
)
@pytest.mark.parametrize("lanes", [2, 5, 16, 64])
def test_a_vectorized_reduction_combines_every_lane_and_the_accumulator(
    op: str, dtype: str, lanes: int
) -> None:
    func = _row_reduction(op, lanes, dtype, operand_first=lanes == 5)
    assert _is_horizontal(func)
    data, start = _data(op, lanes, dtype, seed=lanes)
    total = start.copy()
    compile_kernel(func)(data, total)
    expected = NUMPY[op](start, NUMPY[op].reduce(data, axis=1))
    if np.dtype(dtype).kind == "f":
        np.testing.assert_allclose(total, expected, rtol=1e-6 if dtype == "float64" else 1e-5)
    else:
        np.testing.assert_array_equal(total, expected)


@pytest.mark.parametrize("op", ["max", "min"])
def test_a_nan_in_any_lane_or_the_accumulator_gives_nan(op: str) -> None:
    func = _row_reduction(op, 16, "float32")
    data, start = _data(op, 16, "float32", seed=3)
    data[0, 11] = np.nan  # a lane
    start[1] = np.nan  # the accumulator
    total = start.copy()
    compile_kernel(func)(data, total)
    assert np.isnan(total[0]) and np.isnan(total[1])
    np.testing.assert_array_equal(total[2], NUMPY[op](start[2], NUMPY[op].reduce(data[2])))


def _single(body_of: Any, lanes: int = 16) -> tuple[PrimFunc, Store, Var]:
    source, total = Buffer("A", (lanes,)), Buffer("S", (1,))
    k = Var("k")
    body = body_of(Load(total, IntImm(0)), Load(source, k), total, k)
    func = PrimFunc("single", (source, total), For(k, IntImm(lanes), "vectorized", body))
    return func, body, k


@pytest.mark.parametrize(
    ("what", "body_of", "serial"),
    [
        (
            "the accumulator scaled as well",
            lambda acc, a, s, k: Store(s, IntImm(0), acc * FloatImm(0.5) + a),
            lambda s0, data: _fold(s0, data, lambda x, y: x * np.float32(0.5) + y),
        ),
        (
            "the operand reads the accumulator",
            lambda acc, a, s, k: Store(s, IntImm(0), acc + acc * a),
            lambda s0, data: _fold(s0, data, lambda x, y: x + x * y),
        ),
        (
            "a division",
            lambda acc, a, s, k: Store(s, IntImm(0), Binary("div", acc, a)),
            lambda s0, data: _fold(s0, data, lambda x, y: x / y),
        ),
    ],
)
def test_bodies_that_are_not_a_plain_reduction_keep_their_serial_meaning(
    what: str, body_of: Any, serial: Any
) -> None:
    func, body, k = _single(body_of)
    assert reduction_update(body, k) is None, what
    assert not _is_horizontal(func)
    data = np.random.default_rng(1).uniform(1.0, 2.0, 16).astype(np.float32)
    total = np.array([1.5], np.float32)
    compile_kernel(func)(data, total)
    np.testing.assert_allclose(total, [serial(np.float32(1.5), data)], rtol=1e-6)


def _fold(start: Any, data: Any, step: Any) -> Any:
    value = start
    for item in data:
        value = np.float32(step(value, item))
    return value


def test_a_reduction_among_other_statements_keeps_its_serial_meaning() -> None:
    source, total, copy = Buffer("A", (8,)), Buffer("S", (1,)), Buffer("C", (8,))
    k = Var("k")
    update = Store(total, IntImm(0), Load(total, IntImm(0)) + Load(source, k))
    body = Seq((update, Store(copy, k, Load(total, IntImm(0)))))  # reads the running sum
    func = PrimFunc("running", (source, total, copy), For(k, IntImm(8), "vectorized", body))
    assert reduction_update(body, k) is None and not _is_horizontal(func)
    data = np.arange(1, 9, dtype=np.float32)
    total_out, copy_out = np.zeros(1, np.float32), np.zeros(8, np.float32)
    compile_kernel(func)(data, total_out, copy_out)
    np.testing.assert_array_equal(copy_out, np.cumsum(data))


def _rows(shape: tuple[int, int], reducer: Any) -> TEProgram:
    x = placeholder(shape, name="x")
    k = reduce_axis(shape[1], "k")
    out = compute(shape[:1], lambda i: reducer(x[i, k], axis=k), name="out")
    return TEProgram("rows", (x,), (out,))


@pytest.mark.parametrize("reducer", [sum_reduce, max_reduce])
@pytest.mark.parametrize(("columns", "factor"), [(64, 16), (50, 16), (7, 7)])
def test_a_schedule_may_vectorize_a_reduce_axis(reducer: Any, columns: int, factor: int) -> None:
    """The innermost reduce loop, split (with a tail where the factor does not divide) and
    vectorized, against numpy."""
    program = _rows((6, columns), reducer)
    schedule = Schedule(program)
    if factor < columns:
        _, inner = schedule.split("out", "k", factor=factor)
        schedule.vectorize("out", inner)
    else:
        schedule.vectorize("out", "k")
    func = lower(schedule)
    assert _is_horizontal(func)
    data = np.random.default_rng(columns).standard_normal((6, columns)).astype(np.float32)
    out = np.empty(6, np.float32)
    compile_kernel(func)(data, out)
    expected = data.sum(axis=1) if reducer is sum_reduce else data.max(axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
