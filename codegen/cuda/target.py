"""CUDA targets: `cuda -arch=sm_90 [-max_threads_per_block=N] [-max_shared_memory_per_block=B]`.

A CudaTarget names the GPU architecture kernels are compiled for and the device limits
schedules are checked against (defaults: any sm_70+ NVIDIA GPU; a worker that knows its
device passes the exact limits). `str(target)` is the canonical target string records are
keyed by; limits equal to the defaults are not printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codegen.errors import TargetError
from ir.schedule.gpu import GpuParams

_KNOWN_OPTIONS = (
    "-arch",
    "-max_threads_per_block",
    "-max_shared_memory_per_block",
    "-max_registers_per_block",
)
DEFAULT_ARCH = "sm_90"


@dataclass(frozen=True, slots=True)
class CudaTarget:
    """An NVIDIA GPU architecture and its limits; `str(target)` is its target string."""

    arch: str = DEFAULT_ARCH
    limits: GpuParams = field(default_factory=GpuParams)
    kind: str = "cuda"

    def __str__(self) -> str:
        text = f"cuda -arch={self.arch}"
        defaults = GpuParams()
        if self.limits.max_threads_per_block != defaults.max_threads_per_block:
            text += f" -max_threads_per_block={self.limits.max_threads_per_block}"
        if self.limits.max_shared_memory_per_block != defaults.max_shared_memory_per_block:
            text += f" -max_shared_memory_per_block={self.limits.max_shared_memory_per_block}"
        if self.limits.max_registers_per_block != defaults.max_registers_per_block:
            text += f" -max_registers_per_block={self.limits.max_registers_per_block}"
        return text

    @property
    def compute_capability(self) -> tuple[int, int]:
        """(major, minor) of the architecture: sm_90 -> (9, 0), sm_120 -> (12, 0)."""
        digits = self.arch[len("sm_") :].rstrip("a")
        return int(digits[:-1]), int(digits[-1])


def _positive(key: str, value: str, text: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise TargetError(f"{key} must be a positive integer in {text!r}; got {value!r}")
    return int(value)


def parse_cuda_target(text: str) -> CudaTarget:
    """Parse `cuda [-arch=sm_XX] [-max_threads_per_block=N] [-max_shared_memory_per_block=B]
    [-max_registers_per_block=R]`; TargetError names what is wrong."""
    words = text.split()
    if not words or words[0] != "cuda":
        raise TargetError(f"not a CUDA target: {text!r}; expected e.g. 'cuda -arch=sm_90'")
    options: dict[str, str] = {}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if key not in _KNOWN_OPTIONS:
            raise TargetError(
                f"unknown target option {key!r} in {text!r}; known: {', '.join(_KNOWN_OPTIONS)}"
            )
        if not sep or not value:
            raise TargetError(f"target option {key!r} in {text!r} needs a value ({key}=...)")
        if key in options:
            raise TargetError(f"target option {key!r} given twice in {text!r}")
        options[key] = value
    arch = options.get("-arch", DEFAULT_ARCH)
    if not re.fullmatch(r"sm_[1-9][0-9]{1,2}a?", arch):
        raise TargetError(f"-arch must look like sm_90 (sm_<major><minor>); got {arch!r}")
    defaults = GpuParams()
    limits = GpuParams(
        max_threads_per_block=_positive(
            "-max_threads_per_block",
            options.get("-max_threads_per_block", str(defaults.max_threads_per_block)),
            text,
        ),
        max_shared_memory_per_block=_positive(
            "-max_shared_memory_per_block",
            options.get("-max_shared_memory_per_block", str(defaults.max_shared_memory_per_block)),
            text,
        ),
        max_registers_per_block=_positive(
            "-max_registers_per_block",
            options.get("-max_registers_per_block", str(defaults.max_registers_per_block)),
            text,
        ),
    )
    return CudaTarget(arch, limits)


def resolve_cuda_target(text: str, device_index: int = 0) -> CudaTarget:
    """Parse a CUDA target the user typed: with `-arch` as `parse_cuda_target`; plain `cuda`
    (no `-arch`) means the architecture of local GPU `device_index`, asked through pycuda.
    TargetError asking for `-arch` when there is no GPU to ask."""
    parsed = parse_cuda_target(text)  # checks the syntax first
    if any(word.startswith("-arch=") for word in text.split()):
        return parsed
    from codegen.cuda.device import GpuRuntimeError, gpu_device

    try:
        arch = gpu_device(device_index).arch
    except GpuRuntimeError as err:
        raise TargetError(
            f"target {text.strip()!r} names no architecture and the local GPU cannot be asked "
            f"({err}); pass one, e.g. --target 'cuda -arch=sm_90'"
        ) from None
    return CudaTarget(arch, parsed.limits)
