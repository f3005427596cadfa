"""Whether this machine can run the GPU tests, asked once per test process."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

import pytest

from codegen.cuda.device import GpuRuntimeError, gpu_device

Test = TypeVar("Test", bound=Callable[..., object])


@functools.cache
def gpu_arch() -> str | None:
    """The architecture of GPU 0 (`sm_90`), or None without pycuda, a driver or a GPU."""
    try:
        return gpu_device(0).arch
    except GpuRuntimeError:
        return None


def needs_gpu(arch: str | None = None) -> Callable[[Test], Test]:
    """Mark a test `gpu` and skip it without a GPU (of architecture `arch`, if given)."""
    found = gpu_arch()
    missing = found is None or (arch is not None and found != arch)
    what = f"an {arch} CUDA GPU" if arch else "a CUDA GPU"

    def mark(test: Test) -> Test:
        skipped: Test = pytest.mark.skipif(missing, reason=f"needs pycuda and {what}")(test)
        marked: Test = pytest.mark.gpu(skipped)
        return marked

    return mark
