"""Device detection: the exact target string and the description the fleet view shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.llvm import host_target, parse_target
from workers.client import WorkerError
from workers.device import cpu_model_name, detect_device, memory_bytes


def test_the_cpu_device_reports_the_hosts_exact_target() -> None:
    device = detect_device("cpu")
    assert device.target == str(host_target())
    assert str(parse_target(device.target)) == device.target  # the service can parse it
    assert device.cores == host_target().num_cores
    assert device.logical_cpus >= device.cores >= 1
    assert device.memory_bytes > 0 and device.model
    assert set(device.to_json()) == {
        "kind", "model", "cores", "logical_cpus", "memory_bytes", "hostname", "platform"
    }  # fmt: skip


def test_cpu_model_and_memory_are_read_from_proc(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Example CPU 9000 @ 3.0GHz\nflags\t: fpu\n")
    assert cpu_model_name(cpuinfo) == "Example CPU 9000 @ 3.0GHz"
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       16384 kB\nMemFree:        1024 kB\n")
    assert memory_bytes(meminfo) == 16384 * 1024
    assert memory_bytes(tmp_path / "missing") > 0  # falls back to sysconf


@pytest.mark.parametrize("device", ["cuda:0", "gpu", ""])
def test_devices_other_than_the_cpu_are_refused_with_a_clear_message(device: str) -> None:
    with pytest.raises(WorkerError, match=r"not supported yet.*--device cpu"):
        detect_device(device)
