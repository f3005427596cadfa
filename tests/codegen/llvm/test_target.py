"""Target strings: detection of the host, parsing, printing and vector widths."""

from __future__ import annotations

import os

import pytest

from codegen.errors import TargetError
from codegen.llvm import host_target, parse_cpu_target


def test_host_target_prints_like_tvm() -> None:
    host = host_target()
    assert host.kind == "llvm"
    assert host.num_cores == len(os.sched_getaffinity(0))
    assert str(host) == f"llvm -mcpu={host.mcpu} -num-cores={host.num_cores}"
    assert host.features  # detected, not printed


def test_llvm_alone_means_the_host() -> None:
    assert parse_cpu_target("llvm") == host_target()
    assert parse_cpu_target(str(host_target())) == host_target()


def test_options_are_parsed() -> None:
    target = parse_cpu_target("llvm -mcpu=znver4 -num-cores=8 -mattr=-avx512f,+fma")
    assert (target.mcpu, target.num_cores, target.mattr) == ("znver4", 8, ("-avx512f", "+fma"))
    assert str(target) == "llvm -mcpu=znver4 -num-cores=8 -mattr=-avx512f,+fma"
    assert parse_cpu_target(str(target)) == target


@pytest.mark.parametrize(
    ("text", "bits"),
    [
        ("llvm -mcpu=icelake-server", 512),
        ("llvm -mcpu=haswell", 256),
        ("llvm -mcpu=generic", 128),
        ("llvm -mcpu=znver4 -mattr=-avx512f", 256),
        ("llvm -mcpu=generic -mattr=+avx2", 256),
        ("llvm -mcpu=skylake-avx512 -mattr=-avx2", 128),
    ],
)
def test_vector_bits(text: str, bits: int) -> None:
    assert parse_cpu_target(text).vector_bits == bits


def test_host_vector_bits_follow_detected_features() -> None:
    host = host_target()
    expected = 512 if "+avx512f" in host.features.split(",") else None
    if expected is not None:
        assert host.vector_bits == 512
        assert host.vector_lanes(4) == 16


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cuda -arch=sm_90", "unknown target kind 'cuda'"),
        ("llvm -mcpu=x -threads=4", "unknown target option '-threads'"),
        ("llvm -num-cores=zero", "-num-cores must be a positive integer"),
        ("llvm -num-cores=0", "-num-cores must be a positive integer"),
        ("llvm -mcpu", "needs a value"),
        ("llvm -mcpu=a -mcpu=b", "given twice"),
        ("llvm -mattr=avx2", "-mattr entries look like"),
        ("", "empty target string"),
    ],
)
def test_bad_target_strings_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        parse_cpu_target(text)
