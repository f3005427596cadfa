"""Loads whose index steps by a small constant per lane (2, 3, 4, or negative: reversed
reads) become contiguous vector loads and a shuffle, not gathers, and never read an
element no lane asked for. The inputs here are sized exactly and sit flush against an
unreadable page, on either side, so a load reaching past the lanes' span faults."""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import platform
from typing import Any

import numpy as np
import pytest

from codegen.llvm import compile_kernel, parse_cpu_target
from codegen.llvm.target import CpuTarget
from ir.tir.expr import Buffer, IntImm, Load, PrimExpr, Var, const, logical_and, ne, select
from ir.tir.stmt import For, PrimFunc, Store
from tests.codegen.llvm.kernels import random_array

STEPS = [2, 3, 4, -1, -3]
BLOCKS = 3  # vector steps per kernel: the first and last touch the input's two ends
FALLBACK = 7  # what masked-off lanes hold
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def guarded(values: np.ndarray[Any, Any], side: str) -> np.ndarray[Any, Any]:
    """A copy of 1-D `values` that ends (side="after") or starts (side="before") flush
    against a page that faults on any access."""
    page = mmap.PAGESIZE
    data_pages = -(-max(values.nbytes, 1) // page)
    region = mmap.mmap(-1, (data_pages + 2) * page)
    base = ctypes.addressof(ctypes.c_char.from_buffer(region))
    for start in (base, base + (data_pages + 1) * page):
        assert _libc.mprotect(ctypes.c_void_p(start), ctypes.c_size_t(page), 0) == 0
    offset = (data_pages + 1) * page - values.nbytes if side == "after" else page
    array = np.frombuffer(region, values.dtype, values.size, offset)
    array[...] = values
    return array


def strided_read(
    step: int, lanes: int, dtype: str, masked: bool
) -> tuple[PrimFunc, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """`B[x] = A[step * x + base]` over BLOCKS vector steps of `lanes`; the kernel, an
    exactly sized input for it and numpy's answer.

    Unmasked, A holds exactly the elements read: the first and last blocks read its
    two ends. Masked, `B[x] = select(in bounds and x % 3 != 1, A[...], 7)` over an A
    that ends (or, for negative steps, starts) in the middle of the last block's span,
    so the lanes off the mask would read outside it.
    """
    count = lanes * BLOCKS
    cut = lanes // 2 if masked else 0  # lanes of the last block whose element is missing
    extent = (count - 1 - cut) * abs(step) + 1
    base = 0 if step > 0 else extent - 1
    indices = np.arange(count) * step + base
    wanted = (indices >= 0) & (indices < extent)
    if masked:
        wanted &= np.arange(count) % 3 != 1
    source, result = Buffer("A", (extent,), dtype), Buffer("B", (count,), dtype)
    outer, inner = Var("xo"), Var("xi")
    x = outer * lanes + inner
    index = x * step + base
    value: PrimExpr = Load(source, index)
    if masked:
        in_bounds = logical_and(index >= 0, index < extent)
        value = select(logical_and(in_bounds, ne(x % 3, 1)), value, const(FALLBACK, dtype))
    body = For(
        outer,
        IntImm(BLOCKS),
        "serial",
        For(inner, IntImm(lanes), "vectorized", Store(result, x, value)),
    )
    name = f"strided_{dtype}_s{step}_l{lanes}_{'masked' if masked else 'plain'}".replace("-", "m")
    data = random_array((extent,), dtype, seed=lanes + abs(step))
    expected = np.where(wanted, data[np.clip(indices, 0, extent - 1)], np.array(FALLBACK, dtype))
    return PrimFunc(name, (source, result), body), data, expected


def check(
    func: PrimFunc,
    data: np.ndarray[Any, Any],
    expected: np.ndarray[Any, Any],
    target: CpuTarget | None = None,
) -> str:
    """Run `func` on `data` placed against a faulting page on each side in turn, compare
    with `expected`, and return the optimised LLVM IR."""
    kernel = compile_kernel(func, target)
    for side in ("after", "before"):
        got = np.zeros_like(expected)
        kernel(guarded(data, side), got)
        np.testing.assert_array_equal(got, expected, err_msg=f"input flush {side} a guard page")
    return kernel.stages["llvm"]


@pytest.mark.parametrize("masked", [False, True], ids=["plain", "masked"])
@pytest.mark.parametrize("lanes", [4, 8, 16, 32])
@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_strided_load_matches_numpy_without_reading_outside_the_span(
    dtype: str, step: int, lanes: int, masked: bool
) -> None:
    func, data, expected = strided_read(step, lanes, dtype, masked)
    llvm_text = check(func, data, expected)
    assert "llvm.masked.gather" not in llvm_text
    assert "shufflevector" in llvm_text
    assert ("llvm.masked.load" in llvm_text) == masked


@pytest.mark.parametrize("masked", [False, True], ids=["plain", "masked"])
@pytest.mark.parametrize("dtype", ["float16", "float64", "int16", "uint8", "int64"])
def test_strided_load_other_dtypes(dtype: str, masked: bool) -> None:
    for step in (2, -1, 3):
        func, data, expected = strided_read(step, 16, dtype, masked)
        assert "llvm.masked.gather" not in check(func, data, expected)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 target")
@pytest.mark.parametrize("masked", [False, True], ids=["plain", "masked"])
@pytest.mark.parametrize("step", [3, -2])
def test_strided_load_on_narrow_vector_registers(step: int, masked: bool) -> None:
    # 128-bit registers hold 4 floats: the span is read in many small chunks.
    target = parse_cpu_target("llvm -mcpu=x86-64 -num-cores=1")
    func, data, expected = strided_read(step, 16, "float32", masked)
    check(func, data, expected, target)


def test_pooling_pairs_read_every_element_once() -> None:
    # B[x] = A[2x] + A[2x + 1]: a width-2, stride-2 pooling window over an exact A.
    count, lanes = 256, 16
    source, result = Buffer("A", (2 * count,)), Buffer("B", (count,))
    outer, inner = Var("xo"), Var("xi")
    x = outer * lanes + inner
    value = Load(source, x * 2) + Load(source, x * 2 + 1)
    body = For(
        outer,
        IntImm(count // lanes),
        "serial",
        For(inner, IntImm(lanes), "vectorized", Store(result, x, value)),
    )
    data = random_array((2 * count,))
    llvm_text = check(PrimFunc("pool_pairs", (source, result), body), data, data[0::2] + data[1::2])
    assert "gather" not in llvm_text


def test_strided_read_modify_write_stores_lane_by_lane() -> None:
    # B[2x] = B[2x] + A[x]: a strided load of B and a strided store back to it.
    count = 32
    source, result = Buffer("A", (count,)), Buffer("B", (2 * count,))
    x = Var("x")
    body = Store(result, x * 2, Load(result, x * 2) + Load(source, x))
    func = PrimFunc("strided_update", (source, result), For(x, IntImm(count), "vectorized", body))
    data, start = random_array((count,)), random_array((2 * count,), seed=1)
    got = start.copy()
    compile_kernel(func)(data, got)
    expected = start.copy()
    expected[0::2] += data
    np.testing.assert_array_equal(got, expected)


def test_larger_steps_still_gather() -> None:
    source, result = Buffer("A", (5 * 15 + 1,)), Buffer("B", (16,))
    x = Var("x")
    func = PrimFunc(
        "stride5",
        (source, result),
        For(x, IntImm(16), "vectorized", Store(result, x, Load(source, x * 5))),
    )
    data = random_array((5 * 15 + 1,))
    assert "llvm.masked.gather" in check(func, data, data[0::5])
