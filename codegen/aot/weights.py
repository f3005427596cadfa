"""The weights blob: every constant a kernel reads, after layout rewrites, in one buffer.

Identical arrays (same dtype, shape and bytes) are stored once. Each array starts at a
64-byte aligned offset, so vector loads of weights are aligned. Arrays are kept as they
are (no byte copies) until the blob is written out.
"""

from __future__ import annotations

import hashlib
from typing import BinaryIO

import numpy as np

from codegen.aot.memory import align_up

MIN_BLOB_BYTES = 64


def _bytes_of(data: np.ndarray) -> memoryview:
    """A C-contiguous array's bytes, as a flat view (empty arrays included, which a
    memoryview cast refuses)."""
    return data.reshape(-1).view(np.uint8).data


class WeightsBlob:
    """Arrays appended in order; `add` returns the array's byte offset."""

    def __init__(self) -> None:
        self._arrays: list[tuple[int, np.ndarray]] = []  # (offset, C-contiguous array)
        self._offsets: dict[str, int] = {}
        self.nbytes = 0

    def add(self, array: np.ndarray) -> int:
        """Store `array` (C order, native byte order) unless an identical one is stored;
        return its offset."""
        data = np.ascontiguousarray(array)
        digest = hashlib.sha256(f"{data.dtype.str}{data.shape}".encode())
        digest.update(_bytes_of(data))
        key = digest.hexdigest()
        known = self._offsets.get(key)
        if known is not None:
            return known
        offset = align_up(self.nbytes)
        self._arrays.append((offset, data))
        self.nbytes = offset + data.nbytes
        self._offsets[key] = offset
        return offset

    @property
    def padded_bytes(self) -> int:
        """The size written by `write`: a multiple of 64 bytes, at least 64."""
        return max(align_up(self.nbytes), MIN_BLOB_BYTES)

    def write(self, stream: BinaryIO) -> None:
        """Write the blob (zero padding between arrays and at the end) to `stream`."""
        position = 0
        for offset, data in self._arrays:
            stream.write(bytes(offset - position))
            stream.write(_bytes_of(data))
            position = offset + data.nbytes
        stream.write(bytes(self.padded_bytes - position))

    def take_aligned_array(self) -> np.ndarray:
        """The blob (see `write`) as a 64-byte aligned uint8 array, copied once; the blob
        lets go of its arrays (a model keeps its weights once, not twice) and holds none
        afterwards."""
        from codegen.runtime.aligned import aligned_empty

        blob = aligned_empty((self.padded_bytes,), np.uint8)
        blob[:] = 0
        for offset, data in self._arrays:
            blob[offset : offset + data.nbytes] = np.frombuffer(_bytes_of(data), np.uint8)
        self._arrays.clear()
        self._offsets.clear()
        return blob

    def to_bytes(self) -> bytes:
        """The blob as bytes (see `write`)."""
        import io

        buffer = io.BytesIO()
        self.write(buffer)
        return buffer.getvalue()
