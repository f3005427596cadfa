"""Hand-built loop IR kernels for the backend tests, and a helper that runs them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from codegen.llvm import compile_kernel
from codegen.llvm.target import CpuTarget
from ir.tir.expr import Buffer, IntImm, Load, PrimExpr, Var
from ir.tir.stmt import For, PrimFunc, Store

ROWS, COLS = 8, 64


def elementwise(
    name: str,
    fn: Callable[[PrimExpr], PrimExpr],
    outer: str = "serial",
    inner: str = "serial",
    shape: tuple[int, int] = (ROWS, COLS),
    dtype: str = "float32",
    out_dtype: str | None = None,
) -> PrimFunc:
    """`B[i, j] = fn(A[i, j])` over a 2-D buffer, with loop kinds `outer` and `inner`."""
    rows, cols = shape
    source = Buffer("A", shape, dtype)
    result = Buffer("B", shape, out_dtype or dtype)
    i, j = Var("i"), Var("j")
    index = i * cols + j
    body = Store(result, index, fn(Load(source, index)))
    loops = For(i, IntImm(rows), outer, For(j, IntImm(cols), inner, body))
    return PrimFunc(name, (source, result), loops)


def split_inner(
    name: str,
    fn: Callable[[PrimExpr], PrimExpr],
    lanes: int,
    outer: str = "serial",
    shape: tuple[int, int] = (ROWS, COLS),
) -> PrimFunc:
    """Like `elementwise`, with the column loop split into (cols / lanes) x lanes and
    the inner `lanes` loop vectorized."""
    rows, cols = shape
    source, result = Buffer("A", shape), Buffer("B", shape)
    i, jo, ji = Var("i"), Var("jo"), Var("ji")
    index = i * cols + jo * lanes + ji
    body = Store(result, index, fn(Load(source, index)))
    vector = For(ji, IntImm(lanes), "vectorized", body)
    loops = For(i, IntImm(rows), outer, For(jo, IntImm(cols // lanes), "serial", vector))
    return PrimFunc(name, (source, result), loops)


def run(func: PrimFunc, *inputs: np.ndarray[Any, Any], target: CpuTarget | None = None) -> Any:
    """Compile `func`, run it on `inputs` and fresh zeroed outputs; return the outputs
    (one array, or a list when there are several)."""
    kernel = compile_kernel(func, target)
    outputs = [np.zeros(buffer.shape, buffer.dtype) for buffer in func.outputs]
    kernel(*inputs, *outputs)
    return outputs[0] if len(outputs) == 1 else outputs


def random_array(shape: tuple[int, ...], dtype: str = "float32", seed: int = 0) -> Any:
    """A seeded array of normal samples (or small integers for integer dtypes)."""
    generator = np.random.default_rng(seed)
    if dtype.startswith("float"):
        return generator.standard_normal(shape).astype(dtype)
    if dtype == "bool":
        return generator.integers(0, 2, shape).astype(bool)
    return generator.integers(-50, 50, shape).astype(dtype)
