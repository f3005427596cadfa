"""Where a measured kernel's arguments lie in memory.

A memory-bound kernel's speed depends on where its buffers start within a 4 KiB page:
loads and stores whose addresses agree in their low 12 bits falsely depend on each other
(4K aliasing), and buffers at the same page offset share cache sets. On dwconv_32x112
(Zen 5) the same kernel ran between 132 and 167 GFLOPS over twelve placements of its
input and output, and two candidates swapped ranks from one placement to the next. A
tuner that times every candidate at a single placement picks the kernels that suit that
placement, which is not the one they later run at.

So a measurement times its repeats over `PLACEMENTS` fixed placements in rotation: in
placement p, argument i starts `page_offset(p, i)` bytes past a page boundary (a multiple
of 64, so 64-byte aligned as the artifact's buffers are). The offsets are the same for
every candidate and every process, so candidates are compared at the same placements.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

PAGE_BYTES = 4096
ALIGN_BYTES = 64
PLACEMENTS = 3


def page_offset(placement: int, argument: int) -> int:
    """Bytes past a page boundary at which argument `argument` starts in `placement`."""
    digest = hashlib.sha256(f"placement {placement} argument {argument}".encode()).digest()
    return (int.from_bytes(digest[:4], "little") % (PAGE_BYTES // ALIGN_BYTES)) * ALIGN_BYTES


def placed_copy(array: np.ndarray, offset: int) -> np.ndarray:
    """A C-contiguous copy of `array` whose data starts `offset` bytes past a page
    boundary."""
    if not 0 <= offset < PAGE_BYTES or offset % ALIGN_BYTES:
        raise ValueError(
            f"a page offset is a multiple of {ALIGN_BYTES} below {PAGE_BYTES}, not {offset}"
        )
    array = np.asarray(array)
    raw = np.empty(array.nbytes + 2 * PAGE_BYTES, np.uint8)
    start = -raw.ctypes.data % PAGE_BYTES + offset
    copy: np.ndarray = raw[start : start + array.nbytes].view(array.dtype).reshape(array.shape)
    copy[...] = array
    return copy


def placed_arguments(args: Sequence[np.ndarray], placement: int) -> list[np.ndarray]:
    """Copies of `args` laid out as placement `placement` lays them out."""
    return [placed_copy(array, page_offset(placement, index)) for index, array in enumerate(args)]
