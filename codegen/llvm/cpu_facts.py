"""The facts of a CPU's cores (`CoreFacts`: caches and FMA pipes) for `CpuTarget.hardware`:
the caches from the host's sysfs where the target is the host, else from a table of the
CPUs LLVM names, which also gives the FMA pipes; a typical x86 server core's otherwise."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

from ir.schedule.hardware import KIB, CoreFacts

SYSFS_CACHES = Path("/sys/devices/system/cpu/cpu0/cache")
_L1_RANGE_BYTES = (8 * KIB, 512 * KIB)  # what a sysfs value must be to be believed
_L2_RANGE_BYTES = (64 * KIB, 64 * 1024 * KIB)
_LINE_RANGE_BYTES = (16, 512)


def _core(l1_kib: int, ways: int, l2_kib: int, fma: int = 2, latency: int = 4) -> CoreFacts:
    return CoreFacts(l1_kib * KIB, ways, l2_kib * KIB, fma_units=fma, fma_latency_cycles=latency)


# From the vendors' optimisation manuals. Intel's client cores with AVX-512 fuse their two
# 256-bit FMA pipes into one 512-bit pipe.
KNOWN_CPUS: dict[str, CoreFacts] = {
    "haswell": _core(32, 8, 256, latency=5),
    "broadwell": _core(32, 8, 256, latency=5),
    "skylake": _core(32, 8, 256),
    "skylake-avx512": _core(32, 8, 1024),
    "cascadelake": _core(32, 8, 1024),
    "cooperlake": _core(32, 8, 1024),
    "cannonlake": _core(32, 8, 256, fma=1),
    "icelake-client": _core(48, 12, 512, fma=1),
    "tigerlake": _core(48, 12, 1280, fma=1),
    "rocketlake": _core(48, 12, 512, fma=1),
    "icelake-server": _core(48, 12, 1280),
    "sapphirerapids": _core(48, 12, 2048),
    "emeraldrapids": _core(48, 12, 2048),
    "graniterapids": _core(48, 12, 2048),
    "graniterapids-d": _core(48, 12, 2048),
    "alderlake": _core(48, 12, 1280),
    "raptorlake": _core(48, 12, 2048),
    "meteorlake": _core(48, 12, 2048),
    "arrowlake": _core(48, 12, 3072),
    "znver1": _core(32, 8, 512, latency=5),
    "znver2": _core(32, 8, 512, latency=5),
    "znver3": _core(32, 8, 512),
    "znver4": _core(32, 8, 1024),
    "znver5": _core(48, 12, 1024),
}


def core_facts(mcpu: str, on_host: bool) -> CoreFacts:
    """The core of CPU `mcpu`: its table entry (a typical server core's if it has none),
    with the caches this host's sysfs reports when `on_host` (the target is this host)."""
    facts = KNOWN_CPUS.get(mcpu, CoreFacts())
    caches = host_caches() if on_host else None
    if caches is None:
        return facts
    return replace(
        facts,
        l1_bytes=caches.l1_bytes,
        l1_ways=caches.l1_ways,
        l2_bytes=caches.l2_bytes,
        cache_line_bytes=caches.cache_line_bytes,
    )


@functools.cache
def host_caches() -> CoreFacts | None:
    """This host's caches as its sysfs reports them (see `read_sysfs_caches`)."""
    return read_sysfs_caches(SYSFS_CACHES)


def read_sysfs_caches(directory: Path) -> CoreFacts | None:
    """The L1 data cache and L2 of the core whose sysfs cache directory is `directory`
    (`index*/` with `level`, `type`, `size`, `ways_of_associativity`,
    `coherency_line_size`), FMA pipes left typical; None when it is missing, unreadable
    or reports sizes no x86 core has (some VMs do)."""
    levels: dict[int, tuple[int, int, int]] = {}
    try:
        for index in sorted(directory.glob("index*")):
            if (index / "type").read_text().strip() not in ("Data", "Unified"):
                continue
            levels.setdefault(
                int((index / "level").read_text()),
                (
                    _size_bytes((index / "size").read_text()),
                    int((index / "ways_of_associativity").read_text()),
                    int((index / "coherency_line_size").read_text()),
                ),
            )
    except (OSError, ValueError):
        return None
    if 1 not in levels or 2 not in levels:
        return None
    (l1, ways, line), (l2, _, _) = levels[1], levels[2]
    believable = (
        _L1_RANGE_BYTES[0] <= l1 <= _L1_RANGE_BYTES[1]
        and _L2_RANGE_BYTES[0] <= l2 <= _L2_RANGE_BYTES[1]
        and _LINE_RANGE_BYTES[0] <= line <= _LINE_RANGE_BYTES[1]
        and 0 < ways <= l1 // line
    )
    return CoreFacts(l1, ways, l2, cache_line_bytes=line) if believable else None


def _size_bytes(text: str) -> int:
    """A sysfs cache size ("48K", "1024K", "2M") in bytes."""
    text = text.strip()
    scale = {"K": KIB, "M": KIB * KIB, "G": KIB**3}.get(text[-1:].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale
