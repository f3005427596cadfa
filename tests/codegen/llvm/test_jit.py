"""The compile entry point: argument checks, the kernel cache, stages and object code."""

from __future__ import annotations

import ctypes
import gc
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from codegen.errors import KernelArgumentError
from codegen.llvm import CompiledKernel, compile_kernel, host_target, parse_cpu_target
from codegen.llvm.jit import clear_kernel_cache
from ir.tir.expr import FloatImm, intrinsic
from ir.tir.printer import format_func
from tests.codegen.llvm.kernels import COLS, ROWS, elementwise, random_array


def _kernel(name: str = "jit_relu") -> CompiledKernel:
    return compile_kernel(elementwise(name, lambda x: x * FloatImm(2.0), "parallel", "vectorized"))


def test_kernel_writes_outputs_in_place_without_copies() -> None:
    kernel = _kernel()
    data = random_array((ROWS, COLS))
    out = np.zeros((ROWS, COLS), np.float32)
    kernel(data, out)
    np.testing.assert_array_equal(out, data * 2)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            np.zeros((ROWS, COLS + 1), np.float32),
            r"argument 0 \(A\) expects float32\[8, 64\]; got float32\[8, 65\]",
        ),
        (
            np.zeros((ROWS, COLS), np.float64),
            r"argument 0 \(A\) expects float32\[8, 64\]; got float64\[8, 64\]",
        ),
        (np.zeros((COLS, ROWS), np.float32).T, r"argument 0 \(A\) expects a C-contiguous array"),
        ([[0.0] * COLS] * ROWS, r"argument 0 \(A\) expects a numpy array"),
    ],
)
def test_wrong_arguments_name_the_parameter(source: object, message: str) -> None:
    kernel = _kernel()
    with pytest.raises(KernelArgumentError, match=message):
        kernel(source, np.zeros((ROWS, COLS), np.float32))  # type: ignore[arg-type]


def test_wrong_argument_count_lists_the_parameters() -> None:
    with pytest.raises(KernelArgumentError, match=r"takes 2 arrays \(A, B\); got 1"):
        _kernel()(np.zeros((ROWS, COLS), np.float32))


def test_read_only_output_is_rejected() -> None:
    out = np.zeros((ROWS, COLS), np.float32)
    out.setflags(write=False)
    with pytest.raises(KernelArgumentError, match=r"argument 1 \(B\) is read-only"):
        _kernel()(np.zeros((ROWS, COLS), np.float32), out)


def test_cache_returns_the_same_kernel_for_the_same_ir_and_target() -> None:
    first = _kernel("cached")
    assert _kernel("cached") is first
    assert compile_kernel(first.func, parse_cpu_target(str(host_target()))) is first
    assert _kernel("cached_other_name") is not first
    other_cores = parse_cpu_target(f"llvm -mcpu={host_target().mcpu} -num-cores=1")
    assert compile_kernel(first.func, other_cores) is not first


def test_stages_hold_loops_llvm_and_assembly() -> None:
    kernel = _kernel("staged")
    stages = kernel.stages
    assert set(stages) == {"loops", "llvm", "asm"}
    assert stages["loops"] == format_func(kernel.func)
    assert "define void @staged(ptr noalias nonnull" in stages["llvm"]
    assert "staged:" in stages["asm"]


def test_object_code_is_an_elf_object() -> None:
    code = compile_kernel(elementwise("objfile", lambda x: intrinsic("tanh", x))).object_code()
    assert code[:4] == b"\x7fELF"
    assert b"objfile" in code and b"objfile_packed" in code


def test_packed_entry_takes_an_array_of_pointers() -> None:
    kernel = _kernel("packed_call")
    data, out = random_array((ROWS, COLS)), np.zeros((ROWS, COLS), np.float32)
    address = kernel._engine.get_function_address("packed_call_packed")
    packed = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
    pointers = (ctypes.c_void_p * 2)(data.ctypes.data, out.ctypes.data)
    packed(ctypes.addressof(pointers))
    np.testing.assert_array_equal(out, data * 2)


def test_the_same_array_twice_is_rejected() -> None:
    data = np.zeros((ROWS, COLS), np.float32)
    with pytest.raises(
        KernelArgumentError, match=r"arguments 0 \(A\) and 1 \(B\) are the same memory"
    ):
        _kernel()(data, data)


def test_empty_buffers_can_be_passed() -> None:
    kernel = compile_kernel(elementwise("empty_rows", lambda x: x + FloatImm(1.0), shape=(0, 4)))
    kernel(np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32))


def test_freed_kernels_leave_later_compiles_working() -> None:
    # Regression: MCJIT frees the target machine it is given; a shared one crashed the
    # process on the next compile once a kernel had been evicted and collected.
    first = _kernel("freed_first")
    clear_kernel_cache()
    del first
    gc.collect()
    kernel = _kernel("freed_second")
    data, out = random_array((ROWS, COLS)), np.zeros((ROWS, COLS), np.float32)
    kernel(data, out)
    np.testing.assert_array_equal(out, data * 2)
    assert kernel.stages["asm"] and kernel.object_code()


def test_process_exits_cleanly_right_after_a_parallel_kernel() -> None:
    # Regression: at exit LLVM dlclosed libgomp while its threads were still spinning
    # (always, with OMP_WAIT_POLICY=active), and the process died with SIGSEGV.
    script = textwrap.dedent(
        """
        import numpy as np
        from codegen.llvm import compile_kernel
        from ir.tir.expr import FloatImm
        from tests.codegen.llvm.kernels import elementwise

        func = elementwise("exit_check", lambda x: x + FloatImm(1.0), "parallel", "serial")
        kernel = compile_kernel(func)
        data, out = np.ones((8, 64), np.float32), np.zeros((8, 64), np.float32)
        for _ in range(100):
            kernel(data, out)
        assert (out == 2).all()
        """
    )
    root = Path(__file__).resolve().parents[3]
    environment = {**os.environ, "OMP_WAIT_POLICY": "active"}
    completed = subprocess.run(
        [sys.executable, "-c", script], cwd=root, env=environment, capture_output=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr.decode()
