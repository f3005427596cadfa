"""A tuning candidate on a GPU, as the measurement child (`codegen.measure_child`) runs it.

`GpuKernel(func, target, device_index, cubin_cache)` builds the CUDA module of a lowered
function (limits checked), compiles it with nvcc for the target's architecture (or finds
its cubin in `cubin_cache`, where the parent compiled the batch's) and loads it through
pycuda. Called like a CPU kernel, `kernel(*inputs, *outputs)`, it runs every launch once
and copies the results into the output arrays; `time` measures it with CUDA events under
the measurement options (`number`, `repeat`, `min_repeat_ms`: number=0 grows the runs per
repeat until one repeat lasts `min_repeat_ms`).

Checked on an H200 through the measurement protocol (`bench/gpu_check.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from codegen.cuda.build import build_cuda
from codegen.cuda.runtime import LoadedModule, TimingConfig
from codegen.cuda.target import CudaTarget
from codegen.errors import KernelArgumentError
from ir.tir.stmt import PrimFunc


class GpuKernel:
    """A lowered function compiled and loaded on one GPU (module docstring)."""

    def __init__(
        self,
        func: PrimFunc,
        target: CudaTarget,
        device_index: int = 0,
        cubin_cache: str | None = None,
    ) -> None:
        self.name = func.name
        self.num_inputs = len(func.inputs)
        self.module = build_cuda(func, target)
        self.loaded = LoadedModule(self.module, device_index, target.arch, cubin_cache)

    def __call__(self, *arrays: np.ndarray) -> None:
        """Run once on the inputs, writing the outputs into the given output arrays."""
        inputs, outputs = arrays[: self.num_inputs], arrays[self.num_inputs :]
        results = self.loaded.run(inputs)
        if len(results) != len(outputs):
            raise KernelArgumentError(
                f"{self.name} has {len(results)} outputs, {len(outputs)} arrays were given"
            )
        for output, result in zip(outputs, results, strict=True):
            np.copyto(output, result)

    def time(
        self, inputs: Sequence[np.ndarray], number: int, repeat: int, min_repeat_ms: float
    ) -> list[float]:
        """Seconds per run of each repeat, timed with CUDA events (number=0: calibrated)."""
        config = TimingConfig(
            number=max(1, number),
            repeat=repeat,
            min_repeat_ms=min_repeat_ms if number == 0 else 0.0,  # a fixed number stays fixed
        )
        return self.loaded.time(inputs, config)

    def close(self) -> None:
        """Release the device context."""
        self.loaded.close()
