"""The FMA loop behind the profile's compute roof: what it computes, and its rate."""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest

from codegen.llvm import host_target
from codegen.llvm.fma_peak import SYMBOL, fma_loop_ir, fma_peak_gflops
from codegen.llvm.jit import jit_llvm_ir


@pytest.mark.parametrize(
    ("lanes", "accumulators", "iterations"), [(8, 12, 3), (16, 28, 5), (4, 1, 1)]
)
def test_the_fma_loop_runs_every_chain_the_given_iterations(
    lanes: int, accumulators: int, iterations: int
) -> None:
    """Each chain starts at x + j and takes acc * x + y per iteration; `out` gets the sum
    of the chains (checked against numpy, with operands that round alike)."""
    target = host_target()
    engine, address = jit_llvm_ir(fma_loop_ir(lanes, accumulators), target, SYMBOL)
    loop = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p)(address)
    x, y = np.float32(0.5), np.float32(0.25)
    operands = np.array([x] * lanes + [y] * lanes, np.float32)
    out = np.zeros(lanes, np.float32)
    loop(iterations, operands.ctypes.data, out.ctypes.data)
    expected = np.float32(0.0)
    for j in range(accumulators):
        acc = np.float32(x + np.float32(j))
        for _ in range(iterations):
            acc = np.float32(acc * x + y)  # exact: halving and adding quarters
        expected = np.float32(expected + acc)
    np.testing.assert_array_equal(out, np.full(lanes, expected, np.float32))
    del engine


def test_the_fma_peak_is_a_finite_rate_of_this_host() -> None:
    """Every core runs the loop; the rate is positive and finite (GFLOPS)."""
    rate = fma_peak_gflops(host_target())
    assert rate > 0.0 and math.isfinite(rate)
