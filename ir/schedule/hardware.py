"""What schedules need to know about the machine: vector lanes and cores."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HardwareParams:
    """Vector width in bytes and core count (the code generator's target provides these)."""

    vector_bytes: int = 64
    num_cores: int = 2

    def lanes(self, dtype: str) -> int:
        """SIMD lanes for elements of `dtype`."""
        import numpy as np

        return max(1, self.vector_bytes // np.dtype(dtype).itemsize)
