"""What schedules and the cost model need to know about the machine: vector lanes,
registers and cores, and one core's caches and FMA pipes."""

from __future__ import annotations

from dataclasses import dataclass, field

KIB = 1024


@dataclass(frozen=True, slots=True)
class CoreFacts:
    """One core's L1 data cache (bytes, ways, line bytes) and L2 (bytes), and its FMA
    pipes (how many at the widest vectors, their latency in cycles). The defaults are a
    typical x86 server core's: 32 KiB 8-way L1, 1 MiB L2, two 4-cycle FMA pipes."""

    l1_bytes: int = 32 * KIB
    l1_ways: int = 8
    l2_bytes: int = 1024 * KIB
    cache_line_bytes: int = 64
    fma_units: int = 2
    fma_latency_cycles: int = 4

    @property
    def l1_sets(self) -> int:
        """The L1 data cache's sets."""
        return max(1, self.l1_bytes // (self.cache_line_bytes * max(1, self.l1_ways)))

    @property
    def fma_chains(self) -> int:
        """Independent accumulators a register tile should keep: enough to fill every
        FMA pipe for the FMA's latency, and two more to hide the loads."""
        return self.fma_units * self.fma_latency_cycles + 2


@dataclass(frozen=True, slots=True)
class HardwareParams:
    """Vector width in bytes, vector register count and core count (the code generator's
    target provides these), and the facts of one core. `vector_registers` 0 means x86's:
    32 with AVX-512's 64-byte vectors, else 16."""

    vector_bytes: int = 64
    num_cores: int = 2
    vector_registers: int = 0
    core: CoreFacts = field(default_factory=CoreFacts)

    @property
    def registers(self) -> int:
        """How many vector registers the target has."""
        if self.vector_registers:
            return self.vector_registers
        return 32 if self.vector_bytes >= 64 else 16

    def lanes(self, dtype: str) -> int:
        """SIMD lanes for elements of `dtype`."""
        import numpy as np

        return max(1, self.vector_bytes // np.dtype(dtype).itemsize)
