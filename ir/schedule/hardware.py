"""What schedules need to know about the machine: vector lanes and cores."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HardwareParams:
    """Vector width in bytes, vector register count and core count (the code generator's
    target provides these). `vector_registers` 0 means x86's: 32 with AVX-512's 64-byte
    vectors, else 16."""

    vector_bytes: int = 64
    num_cores: int = 2
    vector_registers: int = 0

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
