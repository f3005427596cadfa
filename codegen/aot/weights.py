"""The weights blob: every constant a kernel reads, after layout rewrites, in one buffer.

Identical arrays (same dtype, shape and bytes) are stored once. Each array starts at a
64-byte aligned offset, so vector loads of weights are aligned.
"""

from __future__ import annotations

import hashlib

import numpy as np

from codegen.aot.memory import align_up


class WeightsBlob:
    """Arrays appended in order; `add` returns the array's byte offset."""

    def __init__(self) -> None:
        self._chunks: list[bytes] = []
        self._offsets: dict[str, int] = {}
        self.nbytes = 0

    def add(self, array: np.ndarray) -> int:
        """Store `array` (C order, native byte order) unless an identical one is stored;
        return its offset."""
        data = np.ascontiguousarray(array)
        raw = data.tobytes()
        digest = hashlib.sha256(f"{data.dtype.str}{data.shape}".encode() + raw).hexdigest()
        known = self._offsets.get(digest)
        if known is not None:
            return known
        offset = align_up(self.nbytes)
        if offset > self.nbytes:
            self._chunks.append(bytes(offset - self.nbytes))
        self._chunks.append(raw)
        self.nbytes = offset + len(raw)
        self._offsets[digest] = offset
        return offset

    def to_bytes(self) -> bytes:
        """The blob, padded to a multiple of 64 bytes (at least 64)."""
        padded = max(align_up(self.nbytes), 64)
        return b"".join(self._chunks) + bytes(padded - self.nbytes)
