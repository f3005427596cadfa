"""The CPU backend: loop IR to LLVM IR (llvmlite), optimised and JIT-compiled.

`compile_kernel(func, target)` returns a `CompiledKernel` called with numpy arrays;
targets are strings like `llvm -mcpu=icelake-server -num-cores=2`.
"""

from codegen.llvm.jit import CompiledKernel, compile_kernel
from codegen.llvm.target import CpuTarget, check_known_cpu, host_target, parse_cpu_target

__all__ = [
    "CompiledKernel",
    "CpuTarget",
    "check_known_cpu",
    "compile_kernel",
    "host_target",
    "parse_cpu_target",
]
