"""Run and time CUDA modules on a GPU through pycuda (`pip install .[gpu]`).

pycuda is imported only when a module is loaded, so CPU installs never need it. A module
is compiled to a cubin with nvcc (`codegen.cuda.nvcc`) for the device's compute
capability, loaded with `module_from_buffer`, and run by launching its kernels in order
with the grid, block and parameters of its launch metadata; workspace buffers are
allocated per run.

Timing follows the measurement protocol: `number` runs per repeat, with `number` grown
until one repeat lasts at least `min_repeat_ms`, then `repeat` repeats, each timed with
CUDA events around the launches; the cost of a repeat is its time divided by `number`.

Checked on an H200: `bench/gpu_check.py` and the tests marked `gpu`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.cuda.build import CudaModule
from codegen.cuda.device import GpuRuntimeError, pycuda_driver
from codegen.cuda.nvcc import compile_source
from codegen.errors import KernelArgumentError

MAX_NUMBER = 1 << 20  # runs per repeat never exceed this, however fast the kernel

__all__ = ["MAX_NUMBER", "GpuRuntimeError", "LoadedModule", "TimingConfig", "next_number"]


@dataclass(frozen=True, slots=True)
class TimingConfig:
    """How a measurement repeats: `number` runs per repeat (grown to `min_repeat_ms`)."""

    number: int = 1
    repeat: int = 3
    min_repeat_ms: float = 150.0


def next_number(number: int, elapsed_ms: float, min_repeat_ms: float) -> int:
    """Runs per repeat for the next calibration step: enough to reach `min_repeat_ms`
    at the measured rate (with 20% headroom), at least doubling, at most MAX_NUMBER."""
    if elapsed_ms <= 0:
        return min(MAX_NUMBER, number * 10)
    wanted = int(number * min_repeat_ms * 1.2 / elapsed_ms) + 1
    return min(MAX_NUMBER, max(number * 2, wanted))


def _pycuda() -> tuple[Any, Any]:
    driver = pycuda_driver()  # GpuRuntimeError saying how to install pycuda
    import pycuda.gpuarray as gpuarray

    return driver, gpuarray


class LoadedModule:
    """A CudaModule compiled and loaded on one GPU; call `run` or `time` with numpy arrays.

    The cubin is compiled for `arch` (e.g. the target's `sm_90`; default: the device's own
    compute capability), or read from `cubin_cache` (a `codegen.cuda.nvcc` cache folder)
    when it was compiled there before."""

    def __init__(
        self,
        module: CudaModule,
        device_index: int = 0,
        arch: str | None = None,
        cubin_cache: str | None = None,
    ) -> None:
        driver, gpuarray = _pycuda()
        self.driver, self.gpuarray = driver, gpuarray
        self.module = module
        try:
            device = driver.Device(device_index)
            major, minor = device.compute_capability()
        except driver.Error as err:
            raise GpuRuntimeError(f"no CUDA device {device_index}: {err}") from None
        arch = arch or f"sm_{major}{minor}"
        cubin = compile_source(module.source, arch, "cubin", cache_dir=cubin_cache)
        try:
            self.context = device.retain_primary_context()
            self.context.push()
        except driver.Error as err:
            raise GpuRuntimeError(f"no context on CUDA device {device_index}: {err}") from None
        try:
            self.cu_module = driver.module_from_buffer(cubin)
            self.functions = [
                self.cu_module.get_function(kernel["name"]) for kernel in module.metadata["kernels"]
            ]
        except driver.Error as err:
            self.context.pop()
            raise GpuRuntimeError(f"loading {module.name} on GPU {device_index}: {err}") from None

    def close(self) -> None:
        """Release the device context."""
        # A context a kernel faulted in may refuse; its process retires (measure_child).
        with contextlib.suppress(self.driver.Error):
            self.context.pop()

    def _device_buffers(self, inputs: Sequence[np.ndarray]) -> tuple[dict[str, Any], list[Any]]:
        metadata = self.module.metadata
        if len(inputs) != len(metadata["inputs"]):
            raise KernelArgumentError(
                f"{self.module.name} takes {len(metadata['inputs'])} inputs, got {len(inputs)}"
            )
        buffers: dict[str, Any] = {}
        for spec, array in zip(metadata["inputs"], inputs, strict=True):
            if list(array.shape) != spec["shape"] or array.dtype.name != spec["dtype"]:
                raise KernelArgumentError(
                    f"{self.module.name}: input {spec['name']} expects {spec['shape']} "
                    f"{spec['dtype']}, got {list(array.shape)} {array.dtype.name}"
                )
            buffers[spec["name"]] = self.gpuarray.to_gpu(_as_bytes(array))
        outputs = []
        for spec in [*metadata["outputs"], *metadata["workspace"]]:
            nbytes = int(np.prod(spec["shape"], dtype=np.int64)) * np.dtype(spec["dtype"]).itemsize
            buffers[spec["name"]] = self.gpuarray.empty((nbytes,), np.uint8)
        for spec in metadata["outputs"]:
            outputs.append(buffers[spec["name"]])
        return buffers, outputs

    def _launch_all(self, buffers: dict[str, Any]) -> None:
        for function, kernel in zip(self.functions, self.module.metadata["kernels"], strict=True):
            function(
                *(buffers[name].gpudata for name in kernel["params"]),
                block=tuple(kernel["block"]),
                grid=tuple(kernel["grid"]),
            )

    def run(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run every kernel once on `inputs`; the outputs as numpy arrays."""
        buffers, outputs = self._device_buffers(inputs)
        try:
            self._launch_all(buffers)
            self.driver.Context.synchronize()
        except self.driver.Error as err:
            raise GpuRuntimeError(f"{self.module.name} failed on the device: {err}") from None
        specs = self.module.metadata["outputs"]
        return [
            output.get().view(np.dtype(spec["dtype"])).reshape(spec["shape"])
            for output, spec in zip(outputs, specs, strict=True)
        ]

    def time(self, inputs: Sequence[np.ndarray], config: TimingConfig) -> list[float]:
        """Seconds per run of every repeat, timed with CUDA events (module docstring)."""
        buffers, _ = self._device_buffers(inputs)
        start, end = self.driver.Event(), self.driver.Event()

        def timed(number: int) -> float:
            start.record()
            for _ in range(number):
                self._launch_all(buffers)
            end.record()
            end.synchronize()
            return float(start.time_till(end))

        try:
            self._launch_all(buffers)  # warm-up: module load, caches
            number = max(1, config.number)
            elapsed_ms = timed(number)
            while elapsed_ms < config.min_repeat_ms and number < MAX_NUMBER:
                number = next_number(number, elapsed_ms, config.min_repeat_ms)
                elapsed_ms = timed(number)
            costs = [elapsed_ms / 1e3 / number]
            costs += [timed(number) / 1e3 / number for _ in range(config.repeat - 1)]
        except self.driver.Error as err:
            raise GpuRuntimeError(f"{self.module.name} failed on the device: {err}") from None
        return costs


def _as_bytes(array: np.ndarray) -> np.ndarray:
    """The bytes of `array` in C order, flat. Every buffer crosses to the device as bytes,
    so that dtypes pycuda's arrays do not know (ml_dtypes' int4, bfloat16, ...) need
    nothing from it."""
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)
