"""Device detection: the exact target string and the description the fleet view shows."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from codegen.cuda.target import parse_cuda_target
from codegen.llvm import host_target, parse_cpu_target
from tests.support.gpu import needs_gpu
from workers.client import WorkerError
from workers.device import cpu_model_name, detect_device, memory_bytes


def test_the_cpu_device_reports_the_hosts_exact_target() -> None:
    device = detect_device("cpu")
    assert device.target == str(host_target())
    assert str(parse_cpu_target(device.target)) == device.target  # the service can parse it
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


@pytest.mark.parametrize("device", ["gpu", "", "tpu:0"])
def test_unknown_devices_are_refused_with_a_clear_message(device: str) -> None:
    with pytest.raises(WorkerError, match=r"not supported: use --device cpu, or --device cuda:N"):
        detect_device(device)


def test_a_malformed_gpu_device_is_refused() -> None:
    with pytest.raises(WorkerError, match=r"expected cuda or cuda:N"):
        detect_device("cuda:x")


def test_a_gpu_device_without_pycuda_says_how_to_install_it() -> None:
    if importlib.util.find_spec("pycuda") is not None:
        pytest.skip("pycuda is installed")
    with pytest.raises(WorkerError, match=r"pycuda is not installed: pip install autotune\[gpu\]"):
        detect_device("cuda:0")


@needs_gpu()
def test_the_gpu_device_reports_its_exact_target_and_properties() -> None:
    device = detect_device("cuda:0")
    assert re.fullmatch(r"cuda -arch=sm_\d{2,3}", device.target)
    assert str(parse_cuda_target(device.target)) == device.target  # the service can parse it
    assert device.kind == "cuda" and device.model and device.memory_bytes > 0
    gpu = device.to_json()["gpu"]
    assert gpu["index"] == 0 and gpu["arch"] == device.target.split("=")[1]
    assert gpu["clock_khz"] > 0 and gpu["memory_clock_khz"] > 0
    assert re.fullmatch(r"\d+\.\d", gpu["compute_capability"])
