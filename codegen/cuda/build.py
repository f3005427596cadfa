"""Loop IR to a CUDA module: kernel planning, the limits check, CUDA C and launch metadata.

`build_cuda(func, target)` runs the named stages:

    plan      codegen.cuda.kernels.plan_kernels (launches, barriers, register slices)
    verify    check_limits against the target's device limits (GpuLimitError)
    cuda      codegen.cuda.emit.module_source

and returns a `CudaModule` with the source, the launch metadata (JSON-ready) and each
stage's text (`stages["loops"]`, `stages["cuda"]`, `stages["metadata"]`). Compiling the
source to PTX or a cubin is `codegen.cuda.nvcc` (offline) or `codegen.cuda.runtime`
(pycuda, on a GPU).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from codegen.cuda.emit import module_source
from codegen.cuda.kernels import DeviceKernel, KernelPlan, plan_kernels
from codegen.cuda.target import CudaTarget
from codegen.errors import CodegenError
from ir.schedule.gpu import GpuParams
from ir.tir.expr import Buffer
from ir.tir.printer import format_func
from ir.tir.stmt import PrimFunc

METADATA_VERSION = 1
REGISTER_OVERHEAD = 24  # registers a kernel needs besides its local arrays (indices, addresses)


class GpuLimitError(CodegenError):
    """A kernel exceeds the device's limits (threads, shared memory, registers, grid)."""


@dataclass(frozen=True)
class CudaModule:
    """CUDA C for one lowered function, its launch plan and every stage's text."""

    name: str
    source: str
    metadata: dict[str, Any]
    stages: dict[str, str] = field(default_factory=dict)

    @property
    def metadata_json(self) -> str:
        """The launch metadata as canonical JSON."""
        return json.dumps(self.metadata, sort_keys=True, indent=1)


def registers_estimate(kernel: DeviceKernel) -> int:
    """Registers per thread: the local arrays (4 bytes a register) plus a fixed overhead."""
    return -(-kernel.local_bytes // 4) + REGISTER_OVERHEAD


def kernel_violations(kernel: DeviceKernel, limits: GpuParams) -> list[str]:
    """Why `kernel` cannot run on a device with `limits` (empty when it can)."""
    reasons = []
    launch = kernel.launch
    if launch.threads > limits.max_threads_per_block:
        reasons.append(
            f"{kernel.name}: {launch.threads} threads per block exceed the limit "
            f"{limits.max_threads_per_block}"
        )
    for axis, (size, limit) in enumerate(zip(launch.block, limits.max_thread_extents, strict=True)):
        if size > limit:
            reasons.append(f"{kernel.name}: block dimension {'xyz'[axis]} = {size} > {limit}")
    for axis, (size, limit) in enumerate(zip(launch.grid, limits.max_grid_extents, strict=True)):
        if size > limit:
            reasons.append(f"{kernel.name}: grid dimension {'xyz'[axis]} = {size} > {limit}")
    if kernel.shared_bytes > limits.max_shared_memory_per_block:
        reasons.append(
            f"{kernel.name}: {kernel.shared_bytes} bytes of shared memory exceed the limit "
            f"{limits.max_shared_memory_per_block}"
        )
    registers = registers_estimate(kernel)
    if registers > limits.max_registers_per_thread:
        reasons.append(
            f"{kernel.name}: about {registers} registers per thread (local arrays of "
            f"{kernel.local_bytes} bytes) exceed the limit {limits.max_registers_per_thread}"
        )
    elif registers * launch.threads > limits.max_registers_per_block:
        reasons.append(
            f"{kernel.name}: about {registers} registers x {launch.threads} threads exceed "
            f"{limits.max_registers_per_block} registers per block"
        )
    return reasons


def check_limits(plan: KernelPlan, limits: GpuParams) -> None:
    """Raise GpuLimitError listing every limit a kernel of `plan` exceeds."""
    reasons = [reason for kernel in plan.kernels for reason in kernel_violations(kernel, limits)]
    if reasons:
        raise GpuLimitError("; ".join(reasons))


def _buffer_json(buffer: Buffer) -> dict[str, Any]:
    return {"name": buffer.name, "shape": list(buffer.shape), "dtype": buffer.dtype}


def launch_metadata(plan: KernelPlan, target: CudaTarget) -> dict[str, Any]:
    """The launch plan: buffers (inputs, outputs, workspace) and, per kernel in launch
    order, its grid, block, static shared bytes, register estimate and parameters."""
    func = plan.func
    return {
        "version": METADATA_VERSION,
        "name": func.name,
        "target": str(target),
        "inputs": [_buffer_json(b) for b in func.inputs],
        "outputs": [_buffer_json(b) for b in func.outputs],
        "workspace": [_buffer_json(b) for b in plan.workspace],
        "kernels": [
            {
                "name": kernel.name,
                "grid": list(kernel.launch.grid),
                "block": list(kernel.launch.block),
                "shared_bytes": kernel.shared_bytes,
                "registers_estimate": registers_estimate(kernel),
                "params": [buffer.name for buffer in kernel.params],
            }
            for kernel in plan.kernels
        ],
    }


def build_cuda(func: PrimFunc, target: CudaTarget | None = None, check: bool = True) -> CudaModule:
    """Generate CUDA C and launch metadata for a lowered function (module docstring).

    With `check`, a kernel over the target's limits raises GpuLimitError before any
    source is printed.
    """
    cuda_target = target or CudaTarget()
    plan = plan_kernels(func)
    if check:
        check_limits(plan, cuda_target.limits)
    outputs = {buffer.name for buffer in func.outputs}
    source = module_source(list(plan.kernels), outputs)
    metadata = launch_metadata(plan, cuda_target)
    module = CudaModule(func.name, source, metadata)
    module.stages.update(
        {"loops": format_func(func), "cuda": source, "metadata": module.metadata_json}
    )
    return module
