"""Page-aligned weights mapped from an artifact file instead of copied out of it.

The packer (codegen/aot/package.py) writes large weights as gzip members of one stored
block each, SEGMENT_BYTES per member, every block's bytes at a file offset that is a
multiple of PAGE_BYTES. `find_segments` checks a file is laid out so; `map_and_check`
maps the segments one after another into one contiguous read-only range and checks each
segment's CRC-32 on threads as it is mapped.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import queue
import sys
import threading
import weakref
import zlib

import numpy as np

STORED_HEADER_BYTES = 5  # a stored deflate block's header, at a byte boundary
PAGE_BYTES = 4096
SEGMENT_BYTES = 15 * PAGE_BYTES
_SEGMENT_STRIDE = SEGMENT_BYTES + PAGE_BYTES  # from one segment's bytes to the next one's
_ALIGNED_HEADER = b"\x1f\x8b\x08\x04\0\0\0\0\0\xff"  # FEXTRA, no time, unknown OS
_ALIGNED_PREFIX_BYTES = len(_ALIGNED_HEADER) + 2 + 4  # + XLEN + the subfield's id and length
_STORED_FINAL = 0x01
CAN_MAP = (
    sys.platform.startswith("linux")
    and mmap.PAGESIZE == PAGE_BYTES
    and ctypes.sizeof(ctypes.c_long) == 8
    and ctypes.sizeof(ctypes.c_void_p) == 8
)
_CRC_THREADS = max(1, min(4, os.cpu_count() or 1))


class _Libc:
    """mmap and munmap from the C library (Python's mmap cannot map at a chosen address)."""

    MAP_FIXED = 0x10
    FAILED = ctypes.c_void_p(-1).value

    def __init__(self) -> None:
        self._lib = ctypes.CDLL(None, use_errno=True)
        self.mmap = self._lib.mmap
        self.mmap.restype = ctypes.c_void_p
        self.mmap.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_long,
        ]
        self.munmap = self._lib.munmap
        self.munmap.restype = ctypes.c_int
        self.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


_LIBC: _Libc | None = None


def _libc() -> _Libc:
    global _LIBC
    if _LIBC is None:
        _LIBC = _Libc()
    return _LIBC


def _pages(size: int) -> int:
    return -(-size // PAGE_BYTES) * PAGE_BYTES


def find_segments(fd: int, start: int, size: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Where the page-aligned stored segments of `size` bytes starting with the gzip member at
    offset `start` of file `fd` lie: per segment the file offset of its bytes and their
    CRC-32 from its trailer; None when the file is not laid out so. (The few framing bytes
    by each segment are read with small preads: mapping the file to read them would map
    the pages around each, and unmapping those costs more than the reads.)"""
    prefix = os.pread(fd, _ALIGNED_PREFIX_BYTES, start)
    if len(prefix) < _ALIGNED_PREFIX_BYTES or prefix[:10] != _ALIGNED_HEADER:
        return None
    xlen, subfield, pad = int.from_bytes(prefix[10:12], "little"), prefix[12:14], prefix[14:16]
    if subfield != b"AW" or int.from_bytes(pad, "little") != xlen - 4:
        return None
    first = start + len(_ALIGNED_HEADER) + 2 + xlen + STORED_HEADER_BYTES
    if first % PAGE_BYTES:
        return None
    count = -(-size // SEGMENT_BYTES)
    offsets = first + _SEGMENT_STRIDE * np.arange(count, dtype=np.int64)
    lengths = np.full(count, SEGMENT_BYTES, np.int64)
    lengths[-1] = size - SEGMENT_BYTES * (count - 1)
    end = int(offsets[-1] + lengths[-1]) + 8
    if end > os.fstat(fd).st_size:
        return None
    # Between two segments' bytes: the trailer of the one, then the next one's header,
    # which is the same for every later member (its padding fills the rest of the page).
    template = (
        _ALIGNED_HEADER
        + (PAGE_BYTES - 8 - _ALIGNED_PREFIX_BYTES + 4 - STORED_HEADER_BYTES).to_bytes(2, "little")
        + b"AW"
        + (PAGE_BYTES - 8 - _ALIGNED_PREFIX_BYTES - STORED_HEADER_BYTES).to_bytes(2, "little")
    )
    joints = len(template) + 8
    between = np.frombuffer(
        b"".join([os.pread(fd, joints, offset - PAGE_BYTES) for offset in offsets[1:].tolist()])
        + os.pread(fd, 8, end - 8),
        np.uint8,
    )
    stored = np.frombuffer(
        b"".join(
            [os.pread(fd, STORED_HEADER_BYTES, o - STORED_HEADER_BYTES) for o in offsets.tolist()]
        ),
        np.uint8,
    )
    if len(between) != joints * (count - 1) + 8 or len(stored) != STORED_HEADER_BYTES * count:
        return None
    trailers = (
        np.concatenate([between[:-8].reshape(count - 1, joints)[:, :8].reshape(-1), between[-8:]])
        .view("<u4")
        .reshape(count, 2)
    )
    headers = between[:-8].reshape(count - 1, joints)[:, 8:]
    stored = stored.reshape(count, STORED_HEADER_BYTES)
    stored_lengths = stored[:, 1:3].copy().view("<u2")[:, 0].astype(np.int64)
    stored_complements = stored[:, 3:5].copy().view("<u2")[:, 0].astype(np.int64)
    if not (
        np.array_equal(headers, np.broadcast_to(np.frombuffer(template, np.uint8), headers.shape))
        and np.all(stored[:, 0] == _STORED_FINAL)
        and np.array_equal(stored_lengths, lengths)
        and np.array_equal(stored_complements, lengths ^ 0xFFFF)
        and np.array_equal(trailers[:, 1].astype(np.int64), lengths)
    ):
        return None
    return offsets, trailers[:, 0].copy()


_MAP_BATCH = 256  # segments mapped before their CRCs are handed to the checking threads


def map_and_check(fd: int, offsets: np.ndarray, crcs: np.ndarray, size: int) -> np.ndarray | None:
    """The segments at `offsets` of file `fd` mapped one after another, read-only, as one
    array of `size` bytes (unmapped when it is collected); None when the system refuses a
    mapping (e.g. too many of them). Threads check each segment's CRC-32 against `crcs` as
    soon as it is mapped (zlib reads the pages, faulting them in, without the GIL); a
    mismatch raises zlib.error."""
    libc = _libc()
    total = _pages(size)
    region = libc.mmap(None, total, mmap.PROT_READ, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if region is None or region == _Libc.FAILED:
        return None
    memory = memoryview((ctypes.c_char * size).from_address(region)).cast("B")
    array: np.ndarray = np.frombuffer(memory, np.uint8)
    array.flags.writeable = False
    # (Not at exit: a thread may still run the model while the interpreter shuts down.)
    weakref.finalize(array, libc.munmap, region, total).atexit = False
    expected = crcs.tolist()
    ranges: queue.Queue[tuple[int, int] | None] = queue.Queue()
    bad: list[int] = []

    def check() -> None:
        while (batch := ranges.get()) is not None:
            for index in range(*batch):
                segment = memory[index * SEGMENT_BYTES : (index + 1) * SEGMENT_BYTES]
                if zlib.crc32(segment) != expected[index]:
                    bad.append(index)

    threads = [threading.Thread(target=check, daemon=True) for _ in range(_CRC_THREADS)]
    for thread in threads:
        thread.start()
    flags = mmap.MAP_PRIVATE | _Libc.MAP_FIXED
    mapped = True
    try:
        for first in range(0, len(expected), _MAP_BATCH):
            stop = min(first + _MAP_BATCH, len(expected))
            for index, offset in enumerate(offsets[first:stop].tolist(), first):
                address = region + index * SEGMENT_BYTES
                length = min(SEGMENT_BYTES, total - index * SEGMENT_BYTES)
                if libc.mmap(address, length, mmap.PROT_READ, flags, fd, offset) != address:
                    mapped = False
                    break
            if not mapped:
                break
            ranges.put((first, stop))
    finally:
        for _ in threads:
            ranges.put(None)
        for thread in threads:
            thread.join()
    if not mapped:
        return None
    if bad:
        raise zlib.error(
            "the gzip trailer's CRC-32 does not match the data "
            f"(the member whose data starts at byte {int(offsets[min(bad)])})"
        )
    return array
