"""A core's caches and FMA pipes: read from sysfs on the host, from the table for a CPU
named by the target, and what the schedules and the features make of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.llvm import host_target, parse_cpu_target
from codegen.llvm.cpu_facts import (
    KNOWN_CPUS,
    SYSFS_CACHES,
    core_facts,
    host_caches,
    read_sysfs_caches,
)
from ir.schedule.hardware import KIB, CoreFacts


def _sysfs(root: Path, caches: list[tuple[int, str, str, int, int]]) -> Path:
    """A sysfs cache directory: one index per (level, type, size, ways, line bytes)."""
    for number, (level, kind, size, ways, line) in enumerate(caches):
        index = root / f"index{number}"
        index.mkdir(parents=True)
        for name, value in (
            ("level", level),
            ("type", kind),
            ("size", size),
            ("ways_of_associativity", ways),
            ("coherency_line_size", line),
        ):
            (index / name).write_text(f"{value}\n")
    return root


ZEN3 = [
    (1, "Data", "32K", 8, 64),
    (1, "Instruction", "32K", 8, 64),
    (2, "Unified", "512K", 8, 64),
    (3, "Unified", "32768K", 16, 64),
]
SAPPHIRE_RAPIDS = [
    (1, "Data", "48K", 12, 64),
    (1, "Instruction", "32K", 8, 64),
    (2, "Unified", "2048K", 16, 64),
    (3, "Unified", "105M", 15, 64),
]


@pytest.mark.parametrize(
    ("caches", "expected"),
    [
        (ZEN3, CoreFacts(32 * KIB, 8, 512 * KIB)),
        (SAPPHIRE_RAPIDS, CoreFacts(48 * KIB, 12, 2048 * KIB)),
    ],
)
def test_sysfs_caches_are_read(
    tmp_path: Path, caches: list[tuple[int, str, str, int, int]], expected: CoreFacts
) -> None:
    facts = read_sysfs_caches(_sysfs(tmp_path, caches))
    assert facts == expected
    assert facts is not None and facts.l1_sets == 64


@pytest.mark.parametrize(
    "caches",
    [
        [],  # no cache directories (a container without sysfs)
        [(1, "Data", "32K", 8, 64)],  # no L2
        [(1, "Data", "0K", 8, 64), (2, "Unified", "512K", 8, 64)],  # a VM's zero
        [(1, "Data", "32K", 8, 64), (2, "Unified", "16G", 8, 64)],  # an absurd L2
        [(1, "Data", "32K", 0, 64), (2, "Unified", "512K", 8, 64)],  # no ways
        [(1, "Data", "32 kB", 8, 64), (2, "Unified", "512K", 8, 64)],  # unreadable
    ],
)
def test_unbelievable_sysfs_caches_are_ignored(
    tmp_path: Path, caches: list[tuple[int, str, str, int, int]]
) -> None:
    assert read_sysfs_caches(_sysfs(tmp_path / "cache", caches)) is None
    assert read_sysfs_caches(tmp_path / "missing") is None


def test_the_host_target_has_the_hosts_caches() -> None:
    """The host's sysfs caches where it reports believable ones, else its CPU's table
    entry (or a typical core's)."""
    host = host_target()
    core = host.hardware.core
    caches = host_caches() or KNOWN_CPUS.get(host.mcpu, CoreFacts())
    assert (core.l1_bytes, core.l1_ways, core.l2_bytes) == (
        caches.l1_bytes,
        caches.l1_ways,
        caches.l2_bytes,
    )
    if SYSFS_CACHES.is_dir() and host_caches() is not None:
        assert read_sysfs_caches(SYSFS_CACHES) == host_caches()


@pytest.mark.parametrize(
    ("text", "l1_kib", "l2_kib", "chains"),
    [
        ("llvm -mcpu=znver3", 32, 512, 10),
        ("llvm -mcpu=znver5", 48, 1024, 10),
        ("llvm -mcpu=sapphirerapids", 48, 2048, 10),
        ("llvm -mcpu=haswell", 32, 256, 12),  # 5-cycle FMAs
        ("llvm -mcpu=icelake-client", 48, 512, 6),  # one 512-bit FMA pipe
        ("llvm -mcpu=icelake-client -mattr=-avx512f", 48, 512, 10),  # two 256-bit ones
        ("llvm -mcpu=generic", 32, 1024, 10),  # a typical server core
    ],
)
def test_a_named_cpu_gets_its_own_core(text: str, l1_kib: int, l2_kib: int, chains: int) -> None:
    """A CPU that is not the host gets its table entry (the host's own caches come from
    sysfs instead, its FMA pipes still from the table)."""
    target = parse_cpu_target(text)
    looked_up = core_facts(target.mcpu, on_host=False)
    assert (looked_up.l1_bytes, looked_up.l2_bytes) == (l1_kib * KIB, l2_kib * KIB)
    assert target.hardware.core.fma_chains == chains


def test_every_known_cpus_l1_is_whole_sets() -> None:
    for mcpu, core in KNOWN_CPUS.items():
        assert core.l1_sets * core.l1_ways * core.cache_line_bytes == core.l1_bytes, mcpu
