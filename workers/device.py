"""What a worker measures on: its exact target string and a description of the device.

The target is `codegen.llvm.host_target()` printed (`llvm -mcpu=<cpu> -num-cores=<n>`),
the key the service leases batches and stores records under. The description (CPU
model, cores, memory) is for people reading the fleet view; nothing keys on it.
"""

from __future__ import annotations

import os
import platform
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen.llvm import host_target
from workers.client import WorkerError

SUPPORTED_DEVICES = ("cpu",)


@dataclass(frozen=True)
class DeviceInfo:
    """The target string a worker reports and what it runs on."""

    target: str
    kind: str  # "cpu" (later: "cuda")
    model: str  # e.g. "AMD EPYC 9654 96-Core Processor"
    cores: int  # cores this process may use (its affinity), as in the target
    logical_cpus: int  # every CPU of the machine
    memory_bytes: int
    hostname: str
    platform: str

    def to_json(self) -> dict[str, Any]:
        """The `device` object of the register call."""
        return {
            "kind": self.kind,
            "model": self.model,
            "cores": self.cores,
            "logical_cpus": self.logical_cpus,
            "memory_bytes": self.memory_bytes,
            "hostname": self.hostname,
            "platform": self.platform,
        }


def detect_device(device: str = "cpu") -> DeviceInfo:
    """Describe this machine's `device`; only "cpu" is supported so far (raises WorkerError)."""
    if device not in SUPPORTED_DEVICES:
        raise WorkerError(
            f"--device {device!r} is not supported yet: this worker measures on the CPU only "
            "(use --device cpu; GPU workers come with the CUDA backend)"
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
