"""The local GPU as pycuda sees it: whether one can be used, and what it is.

pycuda is an optional dependency (`pip install autotune[gpu]`), imported only when a
device is asked about. Every failure is a GpuRuntimeError with a message meant for the
person at the command line: pycuda missing, no driver, no device, or no such device.

Its device queries were checked on an H200 (tests/workers/test_device.py, marked `gpu`).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir.errors import AutotuneError

if TYPE_CHECKING:
    from codegen.cuda.target import CudaTarget

PYCUDA_MISSING = (
    "pycuda is not installed: pip install autotune[gpu] (from a checkout: pip install '.[gpu]')"
)


class GpuRuntimeError(AutotuneError):
    """pycuda or a GPU is missing, or a kernel failed on the device."""


def pycuda_installed() -> bool:
    """Whether pycuda can be imported (without importing it)."""
    return importlib.util.find_spec("pycuda") is not None


def pycuda_driver() -> Any:
    """`pycuda.driver`, initialised; GpuRuntimeError when pycuda or the driver is missing."""
    if not pycuda_installed():
        raise GpuRuntimeError(PYCUDA_MISSING)
    try:
        import pycuda.driver as driver
    except ImportError as err:  # installed but broken, e.g. built against another CUDA
        raise GpuRuntimeError(f"pycuda does not import ({err}); {PYCUDA_MISSING}") from None
    try:
        driver.init()
    except Exception as err:  # pycuda raises its own error types, or RuntimeError
        raise GpuRuntimeError(f"no CUDA device: the CUDA driver does not start ({err})") from None
    return driver


@dataclass(frozen=True)
class GpuDevice:
    """One GPU: what a worker reports and what kernels are compiled for."""

    index: int
    name: str
    compute_capability: tuple[int, int]
    memory_bytes: int
    clock_khz: int
    memory_clock_khz: int
    multiprocessors: int
    max_threads_per_block: int
    max_shared_memory_per_block: int

    @property
    def arch(self) -> str:
        """The nvcc architecture of the device: (9, 0) -> sm_90."""
        major, minor = self.compute_capability
        return f"sm_{major}{minor}"

    @property
    def target(self) -> str:
        """The exact target string records of this device are keyed by."""
        return f"cuda -arch={self.arch}"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (the GPU part of a worker's `device` object)."""
        major, minor = self.compute_capability
        return {
            "index": self.index,
            "name": self.name,
            "compute_capability": f"{major}.{minor}",
            "arch": self.arch,
            "memory_bytes": self.memory_bytes,
            "clock_khz": self.clock_khz,
            "memory_clock_khz": self.memory_clock_khz,
            "multiprocessors": self.multiprocessors,
            "max_threads_per_block": self.max_threads_per_block,
            "max_shared_memory_per_block": self.max_shared_memory_per_block,
        }


def gpu_device(index: int = 0) -> GpuDevice:
    """Describe GPU `index`; GpuRuntimeError when pycuda, the driver or the device is missing."""
    driver = pycuda_driver()
    try:
        count = int(driver.Device.count())
    except Exception as err:
        raise GpuRuntimeError(f"no CUDA device: {err}") from None
    if count == 0:
        raise GpuRuntimeError("no CUDA device: the driver sees no GPU")
    if not 0 <= index < count:
        raise GpuRuntimeError(
            f"no CUDA device {index}: this machine has {count} (0 to {count - 1})"
        )
    try:
        device = driver.Device(index)
        attribute = driver.device_attribute

        def attr(name: str) -> int:
            return int(device.get_attribute(getattr(attribute, name)))

        major, minor = device.compute_capability()
        return GpuDevice(
            index=index,
            name=str(device.name()),
            compute_capability=(int(major), int(minor)),
            memory_bytes=int(device.total_memory()),
            clock_khz=attr("CLOCK_RATE"),
            memory_clock_khz=attr("MEMORY_CLOCK_RATE"),
            multiprocessors=attr("MULTIPROCESSOR_COUNT"),
            max_threads_per_block=attr("MAX_THREADS_PER_BLOCK"),
            max_shared_memory_per_block=attr("MAX_SHARED_MEMORY_PER_BLOCK"),
        )
    except Exception as err:
        raise GpuRuntimeError(f"cannot query CUDA device {index}: {err}") from None


def check_target_device(target: CudaTarget, index: int = 0) -> GpuDevice:
    """GPU `index`, when kernels for `target` can run there; GpuRuntimeError saying what is
    missing (pycuda, a driver, the GPU) or that the GPU is of another architecture (and
    which target to use instead)."""
    wanted = target.arch
    device = gpu_device(index)
    if wanted.rstrip("a") != device.arch:
        raise GpuRuntimeError(
            f"GPU {device.index} ({device.name}) is {device.arch}, not {wanted}; "
            f"use --target {device.target!r} on this machine"
        )
    return device


def parse_device(text: str) -> int:
    """The index of a device name `cuda` or `cuda:N`; ValueError otherwise."""
    kind, sep, index = text.partition(":")
    if kind != "cuda" or (sep and not index.isdigit()):
        raise ValueError(f"not a CUDA device: {text!r}; expected cuda or cuda:N, e.g. cuda:0")
    return int(index) if sep else 0


@contextlib.contextmanager
def device_lock(index: int) -> Iterator[None]:
    """Hold the machine-wide lock of GPU `index` (a lock file in the temporary directory):
    one measurement at a time per device, across processes."""
    path = Path(tempfile.gettempdir()) / f"autotune-cuda{index}.lock"
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
