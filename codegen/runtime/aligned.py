"""Numpy buffers whose data is 64-byte aligned: what kernels run on wherever autotune
allocates (an artifact's weights, workspace and outputs, a measurement's arguments)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

WEIGHTS_ALIGN_BYTES = 64


def aligned_bytes(size: int) -> np.ndarray:
    """An uninitialised uint8 array of `size` bytes whose data is 64-byte aligned."""
    buffer = np.empty(size + WEIGHTS_ALIGN_BYTES, np.uint8)
    start = -buffer.ctypes.data % WEIGHTS_ALIGN_BYTES
    return buffer[start : start + size]


def aligned_empty(shape: Sequence[int], dtype: Any) -> np.ndarray:
    """An uninitialised C-contiguous array whose data is 64-byte aligned (unless it has
    no elements).

    Kernels run on such buffers wherever autotune allocates them (the artifact's workspace
    and outputs, the measurement's arguments): numpy's own allocations are only 16-byte
    aligned, and a memory-bound kernel's speed can depend on the difference.
    """
    dtype = np.dtype(dtype)
    shape = tuple(int(extent) for extent in shape)
    size = dtype.itemsize
    for extent in shape:
        size *= extent
    array: np.ndarray = aligned_bytes(size).view(dtype).reshape(shape)
    return array


def aligned_copy(array: Any) -> np.ndarray:
    """A C-contiguous, 64-byte aligned copy of `array` (see `aligned_empty`)."""
    array = np.asarray(array)
    copy = aligned_empty(array.shape, array.dtype)
    copy[...] = array
    return copy
