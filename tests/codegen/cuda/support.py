"""Helpers of the CUDA tests: one-op primitive functions, interpreted runs, batched nvcc."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from codegen.cuda import CudaModule, build_cuda
from codegen.cuda.nvcc import compile_source, nvcc_path
from ir.graph.nodes import Call, Function, Var, call
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.reference import evaluate
from ir.tir.interpret import interpret
from ir.tir.stmt import PrimFunc


def _as_list(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [array for item in value for array in _as_list(item)]
    return [np.asarray(value)]


def one_op(
    op: str, inputs: Sequence[np.ndarray], attrs: dict[str, object]
) -> tuple[Function, list[np.ndarray], list[np.ndarray]]:
    """The primitive function of `op(x0, x1, ...)`, its arguments and the reference outputs."""
    params = [
        Var(f"x{index}", TensorType(value.shape, value.dtype.name))
        for index, value in enumerate(inputs)
    ]
    attributes: dict[str, Any] = dict(attrs)
    fn = infer_type(Function(tuple(params), call(op, *params, **attributes)))
    named = {f"x{index}": value for index, value in enumerate(inputs)}
    expected = _as_list(evaluate(fn, named))
    calls = [
        node
        for node in post_order(fuse_ops(fn).body)
        if isinstance(node, Call) and isinstance(node.op, Function)
    ]
    assert len(calls) == 1, f"{op}: expected one fused function"
    args = []
    for arg in calls[0].args:
        assert isinstance(arg, Var)
        args.append(named[arg.name])
    assert isinstance(calls[0].op, Function)
    return calls[0].op, args, expected


def run_interpreted(
    func: PrimFunc, inputs: Sequence[np.ndarray], reverse_threads: bool = False
) -> list[np.ndarray]:
    """Interpret a lowered kernel on copies of `inputs`; its outputs."""
    outputs = [np.zeros(buffer.shape, buffer.dtype) for buffer in func.outputs]
    arrays = [np.array(value, copy=True) for value in inputs]
    interpret(func, [*arrays, *outputs], reverse_threads=reverse_threads)
    return outputs


def require_nvcc() -> None:
    """Skip when nvcc is missing on a developer machine; fail when it is missing in CI."""
    if nvcc_path() is not None:
        return
    if os.environ.get("CI"):
        pytest.fail("nvcc is not on PATH in CI; the CUDA compile checks need the CUDA toolkit")
    pytest.skip("nvcc is not on PATH (install the CUDA toolkit to check generated CUDA)")


def build_named(func: PrimFunc, name: str) -> CudaModule:
    """build_cuda with the function (and so its kernels) renamed to `name`."""
    return build_cuda(dataclasses.replace(func, name=name))


def compile_batch(modules: Sequence[CudaModule], arch: str = "sm_90") -> bytes:
    """Compile several modules (with distinct names) as one translation unit to PTX."""
    return compile_source("\n".join(module.source for module in modules), arch, "ptx")
