"""A tiled matmul with a local accumulator and a vectorized inner loop."""

from __future__ import annotations

import numpy as np
import pytest

from codegen.llvm import compile_kernel
from ir.tir.expr import Buffer, FloatImm, IntImm, Load, Var
from ir.tir.stmt import Allocate, For, PrimFunc, Store, seq
from tests.codegen.llvm.kernels import random_array, run


def tiled_matmul(m: int, n: int, k: int, lanes: int, outer: str) -> PrimFunc:
    """C = A @ B; each (row, lanes-wide column tile) accumulates in a local buffer."""
    lhs, rhs, out = Buffer("A", (m, k)), Buffer("B", (k, n)), Buffer("C", (m, n))
    acc = Buffer("acc", (lanes,), "float32", "local")
    i, jo, r = Var("i"), Var("jo"), Var("r")
    ji_init, ji_update, ji_write = Var("ji0"), Var("ji1"), Var("ji2")
    column = jo * lanes
    init = For(ji_init, IntImm(lanes), "vectorized", Store(acc, ji_init, FloatImm(0.0)))
    update_value = Load(acc, ji_update) + Load(lhs, i * k + r) * Load(
        rhs, r * n + column + ji_update
    )
    update = For(
        r,
        IntImm(k),
        "serial",
        For(ji_update, IntImm(lanes), "vectorized", Store(acc, ji_update, update_value)),
    )
    write = For(
        ji_write,
        IntImm(lanes),
        "vectorized",
        Store(out, i * n + column + ji_write, Load(acc, ji_write)),
    )
    tile = Allocate(acc, seq(init, update, write))
    loops = For(i, IntImm(m), outer, For(jo, IntImm(n // lanes), "serial", tile))
    return PrimFunc(f"matmul_{m}x{n}x{k}_{lanes}_{outer}", (lhs, rhs, out), loops)


@pytest.mark.parametrize("outer", ["serial", "parallel"])
@pytest.mark.parametrize("lanes", [8, 16, 32])
def test_tiled_matmul_matches_numpy(outer: str, lanes: int) -> None:
    m, n, k = 24, 64, 40
    func = tiled_matmul(m, n, k, lanes, outer)
    lhs, rhs = random_array((m, k)), random_array((k, n), seed=1)
    expected = lhs.astype(np.float64) @ rhs.astype(np.float64)
    np.testing.assert_allclose(run(func, lhs, rhs), expected, rtol=1e-5, atol=1e-5)


def test_matmul_inner_loop_uses_fused_multiply_add() -> None:
    kernel = compile_kernel(tiled_matmul(16, 32, 16, 16, "serial"))
    assert "vfmadd" in kernel.stages["asm"]
    assert "fmul contract <16 x float>" in kernel.stages["llvm"] or "fma" in kernel.stages["llvm"]
