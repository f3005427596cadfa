"""What a worker measures on: its exact target string and a description of the device.

On the CPU (`--device cpu`) the target is `codegen.llvm.host_target()` printed
(`llvm -mcpu=<cpu> -num-cores=<n>`); on a GPU (`--device cuda:N`) it is
`cuda -arch=sm_XX`, the architecture of GPU N asked through pycuda. The target is the key
the service leases batches and stores records under. The description (CPU model, cores,
memory; for a GPU its name, compute capability, memory and clocks) is for people reading
the fleet view; nothing keys on it.
"""

from __future__ import annotations

import os
import platform
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen.cuda.device import GpuRuntimeError, gpu_device, parse_device
from codegen.cuda.nvcc import nvcc_path
from codegen.llvm import host_target
from workers.client import WorkerError

SUPPORTED_DEVICES = ("cpu", "cuda:N")


@dataclass(frozen=True)
class DeviceInfo:
    """The target string a worker reports and what it runs on."""

    target: str
    kind: str  # "cpu" or "cuda"
    model: str  # e.g. "AMD EPYC 9654 96-Core Processor", or the GPU's name
    cores: int  # cores this process may use (its affinity), as in the target
    logical_cpus: int  # every CPU of the machine
    memory_bytes: int  # the machine's memory; a GPU's own memory for a GPU device
    hostname: str
    platform: str
    gpu: dict[str, Any] | None = None  # a GPU's index, compute capability, clocks, limits

    @property
    def device_index(self) -> int:
        """The GPU index candidates are measured on (0 for the CPU, where it is unused)."""
        return int(self.gpu["index"]) if self.gpu is not None else 0

    def to_json(self) -> dict[str, Any]:
        """The `device` object of the register call."""
        data: dict[str, Any] = {
            "kind": self.kind,
            "model": self.model,
            "cores": self.cores,
            "logical_cpus": self.logical_cpus,
            "memory_bytes": self.memory_bytes,
            "hostname": self.hostname,
            "platform": self.platform,
        }
        if self.gpu is not None:
            data["gpu"] = dict(self.gpu)
        return data


def detect_device(device: str = "cpu") -> DeviceInfo:
    """Describe this machine's `device`: `cpu`, or `cuda:N` (GPU N; `cuda` is `cuda:0`).
    WorkerError, saying what is missing, for an unknown device, or a GPU device without
    pycuda, a driver, the GPU or nvcc."""
    if device == "cuda" or device.startswith("cuda:"):
        return detect_gpu(device)
    if device != "cpu":
        raise WorkerError(
            f"--device {device!r} is not supported: use --device cpu, or --device cuda:N "
            "for GPU N (e.g. cuda:0)"
        )
    target = host_target()
    return DeviceInfo(
        target=str(target),
        kind="cpu",
        model=cpu_model_name() or target.mcpu,
        cores=target.num_cores,
        logical_cpus=os.cpu_count() or target.num_cores,
        memory_bytes=memory_bytes(),
        hostname=socket.gethostname(),
        platform=platform.platform(),
    )


def detect_gpu(device: str) -> DeviceInfo:
    """Describe GPU `cuda:N`: its exact target (`cuda -arch=sm_XX`) and properties."""
    try:
        index = parse_device(device)
    except ValueError as err:
        raise WorkerError(f"--device {device!r}: {err}") from None
    try:
        gpu = gpu_device(index)
    except GpuRuntimeError as err:
        raise WorkerError(f"--device {device}: {err}") from None
    if nvcc_path() is None:
        raise WorkerError(
            f"--device {device}: nvcc is not on PATH; a GPU worker compiles kernels with the "
            "CUDA toolkit's nvcc"
        )
    cores = host_target().num_cores
    return DeviceInfo(
        target=gpu.target,
        kind="cuda",
        model=gpu.name,
        cores=cores,
        logical_cpus=os.cpu_count() or cores,
        memory_bytes=gpu.memory_bytes,
        hostname=socket.gethostname(),
        platform=platform.platform(),
        gpu=gpu.to_json(),
    )


def cpu_model_name(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU's marketing name from /proc/cpuinfo ("" when not found)."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return platform.processor()
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("model name", "Model", "cpu model"):
            return value.strip()
    return platform.processor()


def memory_bytes(meminfo: Path = Path("/proc/meminfo")) -> int:
    """Total physical memory in bytes (0 when unknown)."""
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024  # the kernel reports kB
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 0
