"""Integer and float arithmetic, comparisons, selects and casts against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.llvm import host_target
from codegen.llvm.emit import build_module
from ir.tir.expr import (
    Binary,
    Buffer,
    Cast,
    FloatImm,
    IntImm,
    Load,
    Var,
    cast,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    ne,
    select,
)
from ir.tir.interpret import interpret
from ir.tir.stmt import For, PrimFunc, Store, seq
from tests.codegen.llvm.kernels import random_array, run

SIZE = 64


def binary_kernel(
    name: str, op: str, dtype: str, kind: str, out_dtype: str | None = None
) -> PrimFunc:
    """C[k] = A[k] op B[k] for k in range(SIZE) (no constant folding: Binary directly)."""
    lhs, rhs = Buffer("A", (SIZE,), dtype), Buffer("B", (SIZE,), dtype)
    result = Buffer("C", (SIZE,), out_dtype or dtype)
    k = Var("k")
    body = Store(result, k, Binary(op, Load(lhs, k), Load(rhs, k)))
    return PrimFunc(name, (lhs, rhs, result), For(k, IntImm(SIZE), kind, body))


def _signed_pairs(dtype: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    generator = np.random.default_rng(seed)
    numerators = generator.integers(-100, 100, SIZE).astype(dtype)
    divisors = generator.integers(1, 9, SIZE) * generator.choice([-1, 1], SIZE)
    numerators[:8] = [-7, 7, -8, 8, 0, -1, 1, -9]
    divisors[:8] = [2, -2, 4, -4, 3, 3, -3, 3]
    return numerators, divisors.astype(dtype)


@pytest.mark.parametrize("dtype", ["int32", "int64", "int8"])
@pytest.mark.parametrize("kind", ["serial", "vectorized"])
def test_floordiv_floormod_follow_python_for_negative_values(dtype: str, kind: str) -> None:
    numerators, divisors = _signed_pairs(dtype)
    quotient = run(
        binary_kernel(f"fdiv_{dtype}_{kind}", "floordiv", dtype, kind), numerators, divisors
    )
    remainder = run(
        binary_kernel(f"fmod_{dtype}_{kind}", "floormod", dtype, kind), numerators, divisors
    )
    np.testing.assert_array_equal(quotient, numerators // divisors)
    np.testing.assert_array_equal(remainder, numerators % divisors)


@pytest.mark.parametrize("kind", ["serial", "vectorized"])
def test_integer_div_truncates_toward_zero(kind: str) -> None:
    numerators, divisors = _signed_pairs("int32", seed=1)
    quotient = run(binary_kernel(f"tdiv_{kind}", "div", "int32", kind), numerators, divisors)
    expected = np.trunc(numerators / divisors).astype(np.int32)
    np.testing.assert_array_equal(quotient, expected)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_floordiv_floormod_follow_numpy(dtype: str) -> None:
    numerators = random_array((SIZE,), dtype) * 10
    divisors = random_array((SIZE,), dtype, seed=2) + np.where(np.arange(SIZE) % 2, 2, -2).astype(
        dtype
    )
    quotient = run(
        binary_kernel(f"ffdiv_{dtype}", "floordiv", dtype, "vectorized"), numerators, divisors
    )
    remainder = run(
        binary_kernel(f"ffmod_{dtype}", "floormod", dtype, "vectorized"), numerators, divisors
    )
    np.testing.assert_array_equal(quotient, np.floor(numerators / divisors))
    np.testing.assert_allclose(remainder, np.remainder(numerators, divisors), rtol=1e-6, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    numerators=st.lists(st.integers(-(2**31), 2**31 - 1), min_size=SIZE, max_size=SIZE),
    divisor=st.integers(-1000, 1000).filter(lambda value: value != 0),
)
def test_floordiv_by_a_constant_matches_python(numerators: list[int], divisor: int) -> None:
    source, result_q, result_r = (
        Buffer("A", (SIZE,), "int64"),
        Buffer("Q", (SIZE,), "int64"),
        Buffer("R", (SIZE,), "int64"),
    )
    k = Var("k")
    body_q = Store(result_q, k, Binary("floordiv", Load(source, k), IntImm(divisor)))
    body_r = Store(result_r, k, Binary("floormod", Load(source, k), IntImm(divisor)))
    func = PrimFunc(
        f"fdiv_const_{divisor}".replace("-", "m"),
        (source, result_q, result_r),
        For(k, IntImm(SIZE), "vectorized", seq(body_q, body_r)),
        num_outputs=2,
    )
    data = np.array(numerators, np.int64)
    quotient, remainder = run(func, data)
    assert quotient.tolist() == [value // divisor for value in numerators]
    assert remainder.tolist() == [value % divisor for value in numerators]


def test_floordiv_of_non_negative_index_uses_cheap_unsigned_division() -> None:
    # B[k] = A[k // 4] + A[k % 4]: k is a loop variable, so no sign fix-up is needed.
    source, result = Buffer("A", (SIZE,)), Buffer("B", (SIZE,))
    k = Var("k")
    body = Store(result, k, Load(source, k // 4) + Load(source, k % 4))
    func = PrimFunc("nonneg_div", (source, result), For(k, IntImm(SIZE), "serial", body))
    data = random_array((SIZE,))
    np.testing.assert_array_equal(
        run(func, data), data[np.arange(SIZE) // 4] + data[np.arange(SIZE) % 4]
    )
    unoptimised = str(build_module(func, host_target()))
    assert "udiv" in unoptimised and "urem" in unoptimised
    assert "sdiv" not in unoptimised and "srem" not in unoptimised


@pytest.mark.parametrize("kind", ["serial", "vectorized"])
def test_select_min_max_and_comparisons(kind: str) -> None:
    lhs, rhs, result = Buffer("A", (SIZE,)), Buffer("B", (SIZE,)), Buffer("C", (SIZE,))
    k = Var("k")
    a, b = Load(lhs, k), Load(rhs, k)
    both_positive = logical_and(a > FloatImm(0.0), b > FloatImm(0.0))
    either_small = logical_or(a < FloatImm(-1.0), logical_not(b <= FloatImm(1.0)))
    value = select(both_positive, minimum(a, b), select(either_small, maximum(a, b), a - b))
    func = PrimFunc(
        f"select_{kind}", (lhs, rhs, result), For(k, IntImm(SIZE), kind, Store(result, k, value))
    )
    x, y = random_array((SIZE,)), random_array((SIZE,), seed=1)
    expected = np.where(
        (x > 0) & (y > 0), np.minimum(x, y), np.where((x < -1) | ~(y <= 1), np.maximum(x, y), x - y)
    )
    np.testing.assert_array_equal(run(func, x, y), expected)


@pytest.mark.parametrize("kind", ["serial", "vectorized"])
def test_float_min_max_propagate_nan_like_numpy(kind: str) -> None:
    """min / max of a NaN are NaN whichever side it is on, against a constant too (relu),
    and a max reduction over a NaN is NaN: not the max of the elements after it (compiled
    and interpreted)."""
    x, y = random_array((SIZE,)), random_array((SIZE,), seed=1)
    x[[3, 17, 40]] = np.nan
    y[[5, 17, 41]] = np.nan
    lhs, rhs, result = Buffer("A", (SIZE,)), Buffer("B", (SIZE,)), Buffer("C", (SIZE,))
    k = Var("k")
    a, b = Load(lhs, k), Load(rhs, k)
    for name, value, expected in (
        ("max", maximum(a, b), np.maximum(x, y)),
        ("min", minimum(a, b), np.minimum(x, y)),
        ("relu", maximum(a, FloatImm(0.0)), np.maximum(x, 0.0)),
        ("clip", minimum(FloatImm(0.5), maximum(FloatImm(-0.5), a)), np.clip(x, -0.5, 0.5)),
    ):
        store = Store(result, k, value)
        func = PrimFunc(f"nan_{name}_{kind}", (lhs, rhs, result), For(k, IntImm(SIZE), kind, store))
        np.testing.assert_array_equal(run(func, x, y), expected, err_msg=name)
        interpreted = np.zeros(SIZE, np.float32)  # the loop IR interpreter agrees
        interpret(func, [x, y, interpreted])
        np.testing.assert_array_equal(interpreted, expected, err_msg=name)
    total = Buffer("T", (1,))
    zero = IntImm(0)
    running = Store(total, zero, maximum(Load(total, zero), Load(lhs, k)))
    start = Store(total, zero, FloatImm(-np.inf))
    func = PrimFunc(
        "nan_max_reduce", (lhs, total), seq(start, For(k, IntImm(SIZE), "serial", running))
    )
    assert np.isnan(run(func, x)[0])
    x[[3, 17, 40]] = 0.0
    assert run(func, x)[0] == np.max(x)


CASTS = [
    ("float32", "int32"), ("int32", "float32"), ("float32", "float64"), ("float64", "float32"),
    ("int64", "int8"), ("int8", "int64"), ("uint8", "int32"), ("uint8", "float32"),
    ("float32", "uint8"), ("float32", "bool"), ("bool", "float32"), ("int32", "bool"),
    ("bool", "int64"), ("float32", "float16"), ("float16", "float32"),
]  # fmt: skip


@pytest.mark.parametrize(("source", "dest"), CASTS)
@pytest.mark.parametrize("kind", ["serial", "vectorized"])
def test_casts_follow_numpy_astype(source: str, dest: str, kind: str) -> None:
    source_buffer, result = Buffer("A", (SIZE,), source), Buffer("B", (SIZE,), dest)
    k = Var("k")
    body = Store(result, k, Cast(dest, Load(source_buffer, k)))
    func = PrimFunc(
        f"cast_{source}_{dest}_{kind}", (source_buffer, result), For(k, IntImm(SIZE), kind, body)
    )
    data = random_array((SIZE,), source)
    if source.startswith("float"):
        data *= 4
    if dest == "uint8":
        data = np.abs(data)  # negative floats to unsigned is undefined in C and numpy alike
    data[:3] = [0, 1, 0] if source != "bool" else data[:3]
    np.testing.assert_array_equal(run(func, data), data.astype(dest))


def _double_to_half_cases() -> np.ndarray:
    """Doubles whose float16 rounding is easy to get wrong: just past a float16 tie, which
    rounds twice to the wrong side through float32; exact ties; subnormals; overflow; the
    special values."""
    one_ulp = float(np.finfo(np.float16).eps)  # at 1.0
    tie = 1.0 + one_ulp / 2
    cases = [
        tie, np.nextafter(tie, 2.0), np.nextafter(tie, 0.0), -np.nextafter(tie, 2.0),
        tie + 2**-40, 1.0 + 3 * one_ulp / 2, 6.0e-8, 2.98e-8, 3.0e-8, -5.96e-8,
        65504.0, 65519.99, 65520.0, 1e300, -1e300, 1e-300, 0.0, -0.0,
        np.inf, -np.inf, np.nan, 3.14159265358979, -2.718281828459045,
    ]  # fmt: skip
    rng = np.random.default_rng(7)
    spread = rng.standard_normal(SIZE - len(cases)) * 10.0 ** rng.integers(-9, 6, SIZE - len(cases))
    return np.concatenate([np.array(cases), spread]).astype(np.float64)


@pytest.mark.parametrize("kind", ["serial", "vectorized"])
def test_double_to_half_rounds_once(kind: str) -> None:
    """Regression: this cast killed the process (LLVM's runtime-library call for it)."""
    source_buffer, result = Buffer("A", (SIZE,), "float64"), Buffer("B", (SIZE,), "float16")
    k = Var("k")
    body = Store(result, k, Cast("float16", Load(source_buffer, k)))
    func = PrimFunc(
        f"double_to_half_{kind}", (source_buffer, result), For(k, IntImm(SIZE), kind, body)
    )
    data = _double_to_half_cases()
    with np.errstate(over="ignore"):
        expected = data.astype(np.float16)
    np.testing.assert_array_equal(run(func, data), expected)


def test_bool_buffers_load_and_store_as_bytes() -> None:
    mask, data, result, flags = (
        Buffer("M", (SIZE,), "bool"),
        Buffer("A", (SIZE,)),
        Buffer("B", (SIZE,)),
        Buffer("F", (SIZE,), "bool"),
    )
    k = Var("k")
    value = select(Load(mask, k), Load(data, k), FloatImm(0.0))
    body = seq(Store(result, k, value), Store(flags, k, ne(Load(data, k), FloatImm(0.0))))
    func = PrimFunc(
        "masked",
        (mask, data, result, flags),
        For(k, IntImm(SIZE), "vectorized", body),
        num_outputs=2,
    )
    bits, values = random_array((SIZE,), "bool"), random_array((SIZE,))
    values[::5] = 0
    out, nonzero = run(func, bits, values)
    np.testing.assert_array_equal(out, np.where(bits, values, 0))
    np.testing.assert_array_equal(nonzero, values != 0)


def test_casts_fold_for_constants_and_index_of_int32_vars() -> None:
    # A loop variable of int32 indexes a buffer (widened to i64 for addressing).
    source, result = Buffer("A", (SIZE,)), Buffer("B", (SIZE,))
    k = Var("k", "int32")
    body = Store(result, k, Load(source, (SIZE - 1) - k) + cast("float32", k))
    func = PrimFunc("reverse32", (source, result), For(k, IntImm(SIZE, "int32"), "serial", body))
    data = random_array((SIZE,))
    np.testing.assert_array_equal(run(func, data), data[::-1] + np.arange(SIZE, dtype=np.float32))
