"""Arrays that sit right next to an inaccessible page, so a kernel's out-of-bounds access faults.

A kernel that reads one element past the end of an input (or before its start) usually
goes unnoticed: the neighbouring bytes belong to some other allocation. `guarded_copy`
places the array flush against a PROT_NONE page, so such an access is a segmentation
fault instead; run code that may fault in a subprocess.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
from typing import Any

import numpy as np

PAGE_BYTES = mmap.PAGESIZE
_PROT_NONE = 0
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def _protect(address: int, size: int) -> None:
    if _libc.mprotect(ctypes.c_void_p(address), ctypes.c_size_t(size), _PROT_NONE) != 0:
        raise OSError(ctypes.get_errno(), "mprotect failed")


def guarded_copy(array: np.ndarray[Any, Any], side: str = "after") -> np.ndarray[Any, Any]:
    """A writable C-contiguous copy of `array` that ends (side="after") or starts
    (side="before") at a page boundary next to a page that faults on any access."""
    source = np.array(array, order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
    nbytes = max(source.nbytes, 1)
    data_pages = -(-nbytes // PAGE_BYTES)
    region = mmap.mmap(-1, (data_pages + 2) * PAGE_BYTES)
    base = ctypes.addressof(ctypes.c_char.from_buffer(region))
    _protect(base, PAGE_BYTES)
    _protect(base + (data_pages + 1) * PAGE_BYTES, PAGE_BYTES)
    if side == "after":
        offset = (data_pages + 1) * PAGE_BYTES - source.nbytes
    elif side == "before":
        offset = PAGE_BYTES
    else:
        raise ValueError(f"side must be 'after' or 'before', got {side!r}")
    # The array's base keeps the mapping alive (the mapping is never unprotected or reused).
    guarded = np.frombuffer(region, source.dtype, source.size, offset).reshape(source.shape)
    guarded[...] = source
    return guarded
