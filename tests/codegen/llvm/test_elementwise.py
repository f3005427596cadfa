"""Elementwise kernels under every CPU loop kind, checked against numpy."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from codegen.llvm import compile_kernel, host_target, parse_cpu_target
from codegen.llvm.target import CpuTarget
from ir.tir.expr import (
    Buffer,
    FloatImm,
    IntImm,
    Load,
    PrimExpr,
    Var,
    intrinsic,
    maximum,
)
from ir.tir.stmt import For, PrimFunc, Store
from tests.codegen.llvm.kernels import COLS, ROWS, elementwise, random_array, run, split_inner

OPS: dict[str, tuple[Callable[[PrimExpr], PrimExpr], Callable[[Any], Any]]] = {
    "add": (lambda x: x + FloatImm(1.5), lambda a: a + np.float32(1.5)),
    "relu": (lambda x: maximum(x, FloatImm(0.0)), lambda a: np.maximum(a, 0)),
    "exp": (lambda x: intrinsic("exp", x), np.exp),
    "tanh": (lambda x: intrinsic("tanh", x), np.tanh),
    "erf": (
        lambda x: intrinsic("erf", x),
        lambda a: np.vectorize(__import__("math").erf)(a.astype(np.float64)),
    ),
    "sigmoid": (lambda x: intrinsic("sigmoid", x), lambda a: 1 / (1 + np.exp(-a))),
}
LOOP_KINDS = [
    ("serial", "serial"),
    ("serial", "unrolled"),
    ("serial", "vectorized"),
    ("parallel", "serial"),
    ("parallel", "vectorized"),
    ("unrolled", "vectorized"),
]


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize(("outer", "inner"), LOOP_KINDS)
def test_elementwise_matches_numpy(op: str, outer: str, inner: str) -> None:
    build, reference = OPS[op]
    func = elementwise(f"{op}_{outer}_{inner}", build, outer, inner)
    data = random_array((ROWS, COLS))
    np.testing.assert_allclose(run(func, data), reference(data), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("lanes", [4, 8, 16, 32])
@pytest.mark.parametrize("outer", ["serial", "parallel"])
def test_vector_lanes(lanes: int, outer: str) -> None:
    func = split_inner(f"exp_add_l{lanes}_{outer}", lambda x: intrinsic("exp", x) + x, lanes, outer)
    data = random_array((ROWS, COLS), seed=lanes)
    expected = np.exp(data) + data
    np.testing.assert_allclose(run(func, data), expected, rtol=2e-6, atol=1e-6)
    assert f"<{lanes} x float>" in compile_kernel(func).stages["llvm"]


def test_vectorized_loop_emits_contiguous_vector_load_and_store() -> None:
    func = split_inner("relu_v16", lambda x: maximum(x, FloatImm(0.0)), 16)
    llvm_text = compile_kernel(func).stages["llvm"]
    assert "load <16 x float>" in llvm_text
    assert "store <16 x float>" in llvm_text
    assert "gather" not in llvm_text


def test_strided_load_becomes_a_gather() -> None:
    # B[i, j] = A[j, i]: the vectorized j walks A with a stride of ROWS elements.
    source, result = Buffer("A", (COLS, ROWS)), Buffer("B", (ROWS, COLS))
    i, j = Var("i"), Var("j")
    body = Store(result, i * COLS + j, Load(source, j * ROWS + i) * FloatImm(2.0))
    func = PrimFunc(
        "transpose",
        (source, result),
        For(i, IntImm(ROWS), "serial", For(j, IntImm(COLS), "vectorized", body)),
    )
    data = random_array((COLS, ROWS))
    np.testing.assert_array_equal(run(func, data), data.T * 2)
    assert "llvm.masked.gather" in compile_kernel(func).stages["llvm"]


def test_strided_store_scatters_lane_by_lane() -> None:
    # B[j, i] = A[i, j] with j vectorized: the store index steps by ROWS per lane.
    source, result = Buffer("A", (ROWS, COLS)), Buffer("B", (COLS, ROWS))
    i, j = Var("i"), Var("j")
    body = Store(result, j * ROWS + i, Load(source, i * COLS + j) + FloatImm(1.0))
    func = PrimFunc(
        "transpose_store",
        (source, result),
        For(i, IntImm(ROWS), "serial", For(j, IntImm(16), "vectorized", body)),
    )
    data = random_array((ROWS, COLS))
    expected = np.zeros((COLS, ROWS), np.float32)
    expected[:16] = (data + 1).T[:16]
    np.testing.assert_array_equal(run(func, data), expected)


def test_scalar_load_is_broadcast_across_lanes() -> None:
    # B[i, j] = A[i, j] * S[i]: S does not depend on the vectorized j.
    source, scale, result = (
        Buffer("A", (ROWS, COLS)),
        Buffer("S", (ROWS,)),
        Buffer("B", (ROWS, COLS)),
    )
    i, j = Var("i"), Var("j")
    index = i * COLS + j
    body = Store(result, index, Load(source, index) * Load(scale, i))
    func = PrimFunc(
        "scale_rows",
        (source, scale, result),
        For(i, IntImm(ROWS), "serial", For(j, IntImm(COLS), "vectorized", body)),
    )
    data, factors = random_array((ROWS, COLS)), random_array((ROWS,), seed=1)
    np.testing.assert_array_equal(run(func, data, factors), data * factors[:, None])
    llvm_text = compile_kernel(func).stages["llvm"]
    assert "gather" not in llvm_text
    assert "load float" in llvm_text


def test_gather_through_an_index_buffer() -> None:
    # B[j] = A[I[j]]: the index itself is loaded per lane.
    source, indices, result = Buffer("A", (32,)), Buffer("I", (16,), "int64"), Buffer("B", (16,))
    j = Var("j")
    body = Store(result, j, Load(source, Load(indices, j)))
    func = PrimFunc("take", (source, indices, result), For(j, IntImm(16), "vectorized", body))
    data = random_array((32,))
    picks = np.random.default_rng(3).integers(0, 32, 16).astype(np.int64)
    np.testing.assert_array_equal(run(func, data, picks), data[picks])


@pytest.mark.parametrize("dtype", ["float64", "int32", "int8", "uint8"])
@pytest.mark.parametrize("inner", ["serial", "vectorized"])
def test_other_dtypes(dtype: str, inner: str) -> None:
    def build(x: PrimExpr) -> PrimExpr:
        return maximum(x * x, x + x)

    func = elementwise(f"square_{dtype}_{inner}", build, inner=inner, dtype=dtype)
    data = random_array((ROWS, COLS), dtype)
    np.testing.assert_array_equal(run(func, data), np.maximum(data * data, data + data))


@pytest.mark.parametrize("inner", ["serial", "vectorized"])
def test_float16_exp_and_tanh(inner: str) -> None:
    func = elementwise(
        f"half_{inner}",
        lambda x: intrinsic("tanh", x) + intrinsic("exp", x),
        inner=inner,
        dtype="float16",
    )
    data = random_array((ROWS, COLS), "float16")
    wide = data.astype(np.float32)
    expected = np.tanh(wide).astype(np.float16) + np.exp(wide).astype(np.float16)
    np.testing.assert_allclose(run(func, data).astype(np.float32), expected, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize(
    "name", ["log", "sqrt", "rsqrt", "fabs", "floor", "ceil", "round", "trunc"]
)
def test_unary_intrinsics(name: str) -> None:
    references = {
        "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda a: 1 / np.sqrt(a), "fabs": np.abs,
        "floor": np.floor, "ceil": np.ceil, "round": np.round, "trunc": np.trunc,
    }  # fmt: skip
    positive = name in ("log", "sqrt", "rsqrt")
    data = random_array((ROWS, COLS)) * 3
    data = np.abs(data) + np.float32(0.1) if positive else data
    data[0, :4] = [0.5, 1.5, -2.5, 2.5] if not positive else data[0, :4]  # ties: half to even
    func = elementwise(f"unary_{name}", lambda x: intrinsic(name, x), inner="vectorized")
    np.testing.assert_allclose(run(func, data), references[name](data), rtol=2e-6)


def test_pow_intrinsic() -> None:
    func = elementwise("pow", lambda x: intrinsic("pow", x, FloatImm(3.0)), inner="vectorized")
    data = np.abs(random_array((ROWS, COLS))) + np.float32(0.5)
    np.testing.assert_allclose(run(func, data), data**3, rtol=2e-6)


def _inline_math(
    op: str,
    lanes: int,
    low: float,
    high: float,
    specials: list[float],
    target: CpuTarget | None = None,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """`op` over 65,536 float32 values from `low` to `high` and `specials`, as vectors of
    `lanes` (1: scalars): the values and the results, after checking that no libm
    function is called (`expf`, `erff`, `tanhf`); compiled for `target` (the host's)."""
    values = np.concatenate(
        [np.linspace(low, high, 65536, dtype=np.float32), np.array(specials, np.float32)]
    )
    values = np.resize(values, -(-values.size // 64) * 64).reshape(1, -1)
    func = split_inner(
        f"{op}_range_l{lanes}", lambda x: intrinsic(op, x), lanes, shape=values.shape
    )
    assert f"{op}f" not in compile_kernel(func, target).stages["asm"]
    return values.ravel(), run(func, values, target=target).ravel()


EXP_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72283, 88.7229, 89.0, -87.34, -103.9]
EXP_SPECIALS += [-104.0, -150.0, 1e-40, -1e-40, 0.34657359, -0.34657359, 1.0, -1.0]


def _check_exp(values: np.ndarray[Any, Any], got: np.ndarray[Any, Any]) -> None:
    """Within 1 ulp of the correctly rounded value, denormal results within one denormal
    step, and the edges (overflow to inf, underflow to 0, infinities, NaN) exact."""
    with np.errstate(over="ignore"):
        exact = np.exp(values.astype(np.float64)).astype(np.float32)
    normal = np.isfinite(exact) & (exact >= np.finfo(np.float32).tiny)
    ulps = np.abs(got[normal].view(np.int32).astype(np.int64) - exact[normal].view(np.int32))
    assert ulps.max() <= 1
    tiny = np.isfinite(exact) & ~normal
    assert np.abs(got[tiny] - exact[tiny]).max() <= 2e-45
    edges = ~np.isfinite(exact) | (exact == 0)
    np.testing.assert_array_equal(got[edges], exact[edges])


@pytest.mark.parametrize("lanes", [1, 4, 16])
def test_vector_exp_is_within_an_ulp_of_the_correctly_rounded_one(lanes: int) -> None:
    """float32 scalars and vectors compute exp inline (not with libm), accurately over the
    whole range and exact at the edges."""
    _check_exp(*_inline_math("exp", lanes, -110, 95, EXP_SPECIALS))


def test_exp_without_avx512_scales_by_two_halves_as_accurately() -> None:
    """Without AVX-512 (no vscalefps) 2^n is built in two normal halves, as accurate."""
    target = parse_cpu_target("llvm -mattr=-avx512f")
    values, got = _inline_math("exp", 16, -110, 95, EXP_SPECIALS, target)
    _check_exp(values, got)
    func = split_inner("exp_scaled", lambda x: intrinsic("exp", x), 16)
    assert "vscalefps" not in compile_kernel(func, target).stages["asm"]


@pytest.mark.skipif(host_target().vector_bits < 512, reason="the host has no AVX-512")
def test_exp_scales_with_vscalefps_on_avx512() -> None:
    func = split_inner("exp_scalef", lambda x: intrinsic("exp", x), 16)
    assert "vscalefps" in compile_kernel(func).stages["asm"]


@pytest.mark.parametrize("lanes", [1, 4, 16])
def test_vector_erf_is_within_a_few_ulps_without_libm(lanes: int) -> None:
    """float32 vectors compute erf inline (not libm lane by lane): within 2e-7 of the
    exact value (and 3e-7 of it relatively), odd, and exact at the edges."""
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.49999997, 0.5, -0.5, 1e-30, -1e-8]
    values, got = _inline_math("erf", lanes, -7, 7, specials)
    exact = np.vectorize(math.erf)(values.astype(np.float64))
    finite = np.isfinite(values)
    error = np.abs(got.astype(np.float64) - exact)[finite]
    assert error.max() <= 2e-7
    assert (error / np.maximum(np.abs(exact[finite]), 1e-38)).max() <= 3e-7
    np.testing.assert_array_equal(got[~finite], exact[~finite])
    zeros = values == 0
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(values[zeros]))


@pytest.mark.parametrize("lanes", [1, 4, 16])
def test_vector_tanh_is_within_an_ulp_without_libm(lanes: int) -> None:
    """float32 vectors compute tanh inline: within 1 ulp of the correctly rounded value
    on both sides of the series' limit, odd (-0 stays -0), exact at the edges."""
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.625, 0.62499994, 1e-30, -1e-8, 45.0]
    values, got = _inline_math("tanh", lanes, -12, 12, specials)
    exact = np.tanh(values.astype(np.float64)).astype(np.float32)
    finite = np.isfinite(values)
    ulps = np.abs(got[finite].view(np.int32).astype(np.int64) - exact[finite].view(np.int32))
    assert ulps.max() <= 1  # (a sign error on a zero would be 2**31 ulps)
    np.testing.assert_array_equal(got[~finite], exact[~finite])
