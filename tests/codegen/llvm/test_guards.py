"""Selects and `&&` / `||` evaluate a side only where it is taken when it could fault:
padding reads out of bounds, divisions by zero. The arrays here sit right after a
PROT_NONE page, so a read before their start crashes instead of passing unnoticed."""

from __future__ import annotations

import ctypes
import mmap

import numpy as np
import pytest

from codegen.llvm import compile_kernel, host_target
from codegen.llvm.emit import build_module
from ir.tir.expr import (
    Binary,
    Buffer,
    FloatImm,
    IntImm,
    Load,
    Var,
    logical_and,
    logical_or,
    ne,
    select,
)
from ir.tir.interpret import interpret
from ir.tir.stmt import For, PrimFunc, Store

PAD = 3


def after_guard_page(values: np.ndarray) -> np.ndarray:
    """A copy of `values` at the very start of a page whose preceding page is unreadable."""
    page = mmap.PAGESIZE
    region = mmap.mmap(-1, 2 * page, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    start = ctypes.addressof(ctypes.c_char.from_buffer(region))
    libc = ctypes.CDLL(None, use_errno=True)
    no_access = 0  # PROT_NONE
    assert libc.mprotect(ctypes.c_void_p(start), ctypes.c_size_t(page), no_access) == 0
    array = np.frombuffer(region, values.dtype, values.size, offset=page).reshape(values.shape)
    array[...] = values
    return array


def padded_copy(kind: str, size: int) -> PrimFunc:
    """B[j] = A[j - PAD] if j >= PAD else 0: reads before A's start unless guarded."""
    source, result = Buffer("A", (size - PAD,)), Buffer("B", (size,))
    j = Var("j")
    value = select(j >= PAD, Load(source, j - PAD) * FloatImm(2.0), FloatImm(-1.0))
    return PrimFunc(
        f"pad_{kind}_{size}", (source, result), For(j, IntImm(size), kind, Store(result, j, value))
    )


@pytest.mark.parametrize("kind", ["serial", "vectorized", "unrolled", "parallel"])
@pytest.mark.parametrize("size", [16, 19])
def test_padding_select_never_reads_before_the_buffer(kind: str, size: int) -> None:
    func = padded_copy(kind, size)
    data = after_guard_page(np.arange(1, size - PAD + 1, dtype=np.float32))
    out = np.zeros(size, np.float32)
    compile_kernel(func)(data, out)
    np.testing.assert_array_equal(out, np.concatenate([[-1.0] * PAD, data * 2]))


def test_vector_padding_uses_a_masked_load() -> None:
    assert "llvm.masked.load" in compile_kernel(padded_copy("vectorized", 16)).stages["llvm"]


@pytest.mark.parametrize("kind", ["serial", "vectorized"])
def test_short_circuit_and_or_guard_their_right_side(kind: str) -> None:
    # flags[j] = (j >= PAD && A[j - PAD] > 0) || (j < PAD || A[j - PAD] < -10)
    size = 16
    source, flags = Buffer("A", (size - PAD,)), Buffer("F", (size,), "bool")
    j = Var("j")
    positive = logical_and(j >= PAD, Load(source, j - PAD) > FloatImm(0.0))
    tiny = logical_or(j < PAD, Load(source, j - PAD) < FloatImm(-10.0))
    func = PrimFunc(
        f"short_circuit_{kind}",
        (source, flags),
        For(j, IntImm(size), kind, Store(flags, j, logical_or(positive, tiny))),
    )
    values = np.random.default_rng(2).uniform(-20, 20, size - PAD).astype(np.float32)
    data = after_guard_page(values)
    got, expected = np.zeros(size, bool), np.zeros(size, bool)
    compile_kernel(func)(data, got)
    interpret(func, [values, expected])
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("kind", ["serial", "vectorized"])
@pytest.mark.parametrize("op", ["div", "floordiv", "floormod"])
def test_division_by_zero_in_the_untaken_side_does_not_trap(kind: str, op: str) -> None:
    # C[k] = select(B[k] != 0, A[k] op B[k], -1): B holds zeros, which must not be divided by.
    size = 32
    lhs, rhs, out = (
        Buffer("A", (size,), "int32"),
        Buffer("B", (size,), "int32"),
        Buffer("C", (size,), "int32"),
    )
    k = Var("k")
    quotient = Binary(op, Load(lhs, k), Load(rhs, k))
    value = select(ne(Load(rhs, k), IntImm(0, "int32")), quotient, IntImm(-1, "int32"))
    func = PrimFunc(
        f"safe_{op}_{kind}", (lhs, rhs, out), For(k, IntImm(size), kind, Store(out, k, value))
    )
    generator = np.random.default_rng(4)
    numerators = generator.integers(-50, 50, size).astype(np.int32)
    divisors = generator.integers(-3, 4, size).astype(np.int32)
    divisors[:3] = 0
    got, expected = np.zeros(size, np.int32), np.zeros(size, np.int32)
    compile_kernel(func)(numerators, divisors, got)
    interpret(func, [numerators, divisors, expected])
    np.testing.assert_array_equal(got, expected)


def test_select_reading_what_its_condition_read_stays_branch_free() -> None:
    # Leaky ReLU: both sides read A[j], which the condition has read anyway.
    source, result = Buffer("A", (16,)), Buffer("B", (16,))
    j = Var("j")
    value = Load(source, j)
    func = PrimFunc(
        "plain_select",
        (source, result),
        For(
            j,
            IntImm(16),
            "serial",
            Store(result, j, select(value > FloatImm(0.0), value, value * FloatImm(0.1))),
        ),
    )
    text = str(build_module(func, host_target()))
    assert "select.true" not in text


@pytest.mark.parametrize("outer", ["serial", "parallel"])
def test_2d_padding_with_floordiv_in_the_guarded_index(outer: str) -> None:
    # Regression: under a lane mask, the divisor guard turned the scalar index of lane 0
    # into a vector, and a contiguous load became a gather of that one element.
    channels, size, padded = 4, 5, 7
    source, result = Buffer("A", (channels, size, size)), Buffer("P", (channels, padded, padded))
    row, col = Var("row"), Var("col")
    inside = logical_and(
        logical_and(row % padded >= 1, row % padded < padded - 1),
        logical_and(col >= 1, col < padded - 1),
    )
    index = (row // padded) * size * size + (row % padded) * size + col - (size + 1)
    value = select(inside, Load(source, index), FloatImm(0.0))
    loops = For(
        row,
        IntImm(channels * padded),
        outer,
        For(col, IntImm(padded), "vectorized", Store(result, row * padded + col, value)),
    )
    func = PrimFunc(f"pad2d_{outer}", (source, result), loops)
    values = np.random.default_rng(5).standard_normal((channels, size, size)).astype(np.float32)
    got = np.zeros((channels, padded, padded), np.float32)
    compile_kernel(func)(after_guard_page(values), got)
    np.testing.assert_array_equal(got, np.pad(values, ((0, 0), (1, 1), (1, 1))))


@pytest.mark.parametrize("divisor", [0, 3])
def test_shared_divisor_under_a_lane_mask_does_not_trap(divisor: int) -> None:
    # C[k] = select(k >= 4 && S[0] != 0, A[k] // S[0], -1): S[0] is one scalar for all lanes.
    size = 16
    lhs, shared, out = (
        Buffer("A", (size,), "int32"),
        Buffer("S", (1,), "int32"),
        Buffer("C", (size,), "int32"),
    )
    k = Var("k")
    scale = Load(shared, IntImm(0))
    wanted = logical_and(k >= 4, ne(scale, IntImm(0, "int32")))
    value = select(wanted, Binary("floordiv", Load(lhs, k), scale), IntImm(-1, "int32"))
    func = PrimFunc(
        f"shared_divisor_{divisor}",
        (lhs, shared, out),
        For(k, IntImm(size), "vectorized", Store(out, k, value)),
    )
    numerators = np.arange(-8, 8, dtype=np.int32)
    divisors = np.array([divisor], np.int32)
    got, expected = np.zeros(size, np.int32), np.zeros(size, np.int32)
    compile_kernel(func)(numerators, divisors, got)
    interpret(func, [numerators, divisors, expected])
    np.testing.assert_array_equal(got, expected)
