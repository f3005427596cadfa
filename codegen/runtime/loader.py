"""Load and run an autotune artifact (`<sha256>.tar.gz`) with numpy arrays.

This module imports nothing from autotune: numpy, ctypes and the standard library are all
it needs, so it can be copied next to an artifact or into a fresh virtual environment.

    from loader import load_artifact
    with load_artifact("3f2a....tar.gz") as model:
        outputs = model.run({"data_0": image})      # {output name: numpy array}

An artifact holds the model's library (model.so: kernels and the C ABI) and its weights
(weights.bin) side by side. Loading checks everything before any code runs: the CRC-32 and
length of every gzip member, the manifest's format and ABI version, the library's sha256
and the weights' size against the manifest, and the library's own metadata against the
manifest. Large weights are packed page-aligned (see PAGE_BYTES): they are then mapped
from the artifact file, segment after segment, into one contiguous read-only range, shared
with the page cache and with every process running the same file, and their CRCs are
checked by threads as the segments are mapped. Otherwise the CRC runs on a second thread
while the tarball is read, and stored blocks go from the file straight into one 64-byte
aligned buffer. A corrupt or truncated artifact raises ArtifactError saying so. (The whole
file's sha256, which names it, is what `autotune fetch` checks on a download; at 1-2 GB/s
it would dominate loading a large model.) Replace an artifact file by renaming a new one
over it, never by rewriting it in place: a process that maps it would fault. `run` refuses
an input of the wrong shape or dtype, naming the input and the shape it expects. With
`cache_dir`, a checked library and weights are kept there, and later loads only read the
manifest and map the kept files; without it, on Linux, the library is written to an
in-memory file (memfd) and mapped from there.

Also a command: `python loader.py ART.tar.gz --input NAME=FILE.npy ... [--output OUT.npz]`.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import hashlib
import io
import json
import mmap
import os
import queue
import re
import shutil
import sys
import tarfile
import tempfile
import threading
import time
import weakref
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ARTIFACT_FORMAT = "autotune-artifact"
FORMAT_VERSION = 2
ABI_VERSION = 2
MANIFEST_FILE = "manifest.json"
_CHUNK_BYTES = 1 << 20
_CRC_BATCH_BYTES = 8 << 20
_STORED_HEADER_BYTES = 5  # a stored deflate block's header, at a byte boundary
WEIGHTS_ALIGN_BYTES = 64
_HASH_NAME = re.compile(r"^([0-9a-f]{64})\.tar\.gz$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class ArtifactError(Exception):
    """An artifact cannot be loaded: missing, corrupt, truncated or incompatible."""


class ArtifactInputError(ArtifactError, ValueError):
    """A run input is missing, unknown, or has the wrong shape or dtype."""


@dataclass(frozen=True)
class TensorInfo:
    """A model input or output: name, shape and numpy dtype name."""

    name: str
    shape: tuple[int, ...]
    dtype: str


def _tensor_infos(manifest: Mapping[str, Any], key: str) -> list[TensorInfo]:
    try:
        return [
            TensorInfo(str(item["name"]), tuple(int(d) for d in item["shape"]), str(item["dtype"]))
            for item in manifest[key]
        ]
    except (KeyError, TypeError, ValueError) as err:
        raise ArtifactError(f"manifest.json: malformed {key!r}: {err}") from None


def _dtype_text(dtype: np.dtype[Any]) -> str:
    """numpy's name of a dtype, with the byte order when it is not the native one."""
    return dtype.name if dtype.isnative else dtype.str


class _InOrder:
    """Hands chunks, in order, to `consume` on a helper thread.

    hashlib and zlib release the GIL on large buffers, so digesting overlaps with reading
    and writing on the calling thread (a cold load of a large artifact is bound by these).
    Chunks go over in batches of about 1 MiB: a queue hand-off per 64 KiB stored block
    made the threads wait on each other for the GIL (seconds for a 550 MB artifact)."""

    def __init__(self, consume: Callable[[bytes | memoryview], object]) -> None:
        self._consume = consume
        self._chunks: queue.Queue[list[bytes | memoryview] | None] = queue.Queue(maxsize=16)
        self._batch: list[bytes | memoryview] = []
        self._batch_bytes = 0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (batch := self._chunks.get()) is not None:
            for chunk in batch:
                self._consume(chunk)

    def put(self, data: bytes | memoryview) -> None:
        """Digest `data` after every chunk put before it."""
        if data:
            self._batch.append(data)
            self._batch_bytes += len(data)
            if self._batch_bytes >= _CHUNK_BYTES:
                self._chunks.put(self._batch)
                self._batch, self._batch_bytes = [], 0

    def close(self) -> None:
        """Stop the helper thread once it has digested everything put."""
        if self._thread.is_alive():
            if self._batch:
                self._chunks.put(self._batch)
                self._batch, self._batch_bytes = [], 0
            self._chunks.put(None)
            self._thread.join()


class _BackgroundSha256:
    """A sha256 computed on a helper thread from chunks handed over in order."""

    def __init__(self) -> None:
        self._sha256 = hashlib.sha256()
        self._worker = _InOrder(self._sha256.update)

    def update(self, data: bytes | memoryview) -> None:
        """Hash `data` after every chunk handed over before it."""
        self._worker.put(data)

    def hexdigest(self) -> str:
        """The digest of everything handed over (waits for the helper thread)."""
        self._worker.close()
        return self._sha256.hexdigest()

    def close(self) -> None:
        """Stop the helper thread once it has hashed what it holds."""
        self._worker.close()


class _BackgroundCrc32:
    """A CRC-32 computed on a helper thread from chunks handed over in order."""

    def __init__(self) -> None:
        self._crc = 0
        self._worker = _InOrder(self._add)

    def _add(self, chunk: bytes | memoryview) -> None:
        self._crc = zlib.crc32(chunk, self._crc)

    def update(self, data: bytes | memoryview) -> None:
        """Add `data` after every chunk handed over before it."""
        self._worker.put(data)

    def value(self) -> int:
        """The CRC-32 of everything handed over (waits for the helper thread)."""
        self._worker.close()
        return self._crc

    def close(self) -> None:
        """Stop the helper thread once it has added what it holds."""
        self._worker.close()


# Page-aligned weights (codegen/aot/package.py): gzip members of one stored block each,
# SEGMENT_BYTES per member, every block's bytes at a file offset that is a multiple of
# PAGE_BYTES, each header padded by an FEXTRA subfield "AW".
PAGE_BYTES = 4096
SEGMENT_BYTES = 15 * PAGE_BYTES
_SEGMENT_STRIDE = SEGMENT_BYTES + PAGE_BYTES  # from one segment's bytes to the next one's
_ALIGNED_HEADER = b"\x1f\x8b\x08\x04\0\0\0\0\0\xff"  # FEXTRA, no time, unknown OS
_ALIGNED_PREFIX_BYTES = len(_ALIGNED_HEADER) + 2 + 4  # + XLEN + the subfield's id and length
_STORED_FINAL = 0x01
_CAN_MAP = (
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


def _segments(fd: int, start: int, size: int) -> tuple[np.ndarray, np.ndarray] | None:
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
    first = start + len(_ALIGNED_HEADER) + 2 + xlen + _STORED_HEADER_BYTES
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
        + (PAGE_BYTES - 8 - _ALIGNED_PREFIX_BYTES + 4 - _STORED_HEADER_BYTES).to_bytes(2, "little")
        + b"AW"
        + (PAGE_BYTES - 8 - _ALIGNED_PREFIX_BYTES - _STORED_HEADER_BYTES).to_bytes(2, "little")
    )
    joints = len(template) + 8
    between = np.frombuffer(
        b"".join([os.pread(fd, joints, offset - PAGE_BYTES) for offset in offsets[1:].tolist()])
        + os.pread(fd, 8, end - 8),
        np.uint8,
    )
    stored = np.frombuffer(
        b"".join(
            [os.pread(fd, _STORED_HEADER_BYTES, o - _STORED_HEADER_BYTES) for o in offsets.tolist()]
        ),
        np.uint8,
    )
    if len(between) != joints * (count - 1) + 8 or len(stored) != _STORED_HEADER_BYTES * count:
        return None
    trailers = (
        np.concatenate([between[:-8].reshape(count - 1, joints)[:, :8].reshape(-1), between[-8:]])
        .view("<u4")
        .reshape(count, 2)
    )
    headers = between[:-8].reshape(count - 1, joints)[:, 8:]
    stored = stored.reshape(count, _STORED_HEADER_BYTES)
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


def _map_and_check(fd: int, offsets: np.ndarray, crcs: np.ndarray, size: int) -> np.ndarray | None:
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


class _TruncatedError(Exception):
    """The tarball ends inside a header or a member's data."""


class _InflatedStream:
    """The decompressed bytes of a .tar.gz read in one pass.

    Unlike tarfile's stream mode this hands out chunks as they come (no joining and
    re-slicing), which keeps a cold load of a large artifact close to the speed of reading
    it. The gzip framing is parsed here. Stored deflate blocks (what the packer writes for
    incompressible weights) are handed out as views of the file's bytes, or read from the
    file straight into the caller's buffer (`readinto`); from the first compressed block on,
    zlib inflates the rest of the member (given the last 32 KiB of output as its window).
    Every member's CRC-32 (computed on a helper thread) and length are checked against its
    trailer."""

    def __init__(self, raw: io.FileIO) -> None:
        self._raw = raw
        self._buffer = b""  # read from the file; bytes before `_offset` are consumed
        self._offset = 0
        self._in_member = False
        self._stored_left = 0  # bytes left in the current stored block
        self._final_block = False
        self._inflater: Any = None  # zlib, once the member has a compressed block
        self._window: collections.deque[memoryview] = collections.deque()
        self._window_bytes = 0
        self._crc: _BackgroundCrc32 | None = None  # the current member's, when checked
        self._size = 0
        self._pending = memoryview(b"")
        self._deferred_crc: tuple[memoryview, int, int] | None = None

    # -- the compressed bytes ------------------------------------------------------------

    def _available(self) -> int:
        return len(self._buffer) - self._offset

    def _read_raw(self) -> bool:
        """Append the next chunk of the file to the unconsumed bytes; False at its end."""
        chunk = self._raw.read(_CHUNK_BYTES)
        if not chunk:
            return False
        rest = self._buffer[self._offset :] if self._available() else b""
        self._buffer, self._offset = rest + chunk if rest else chunk, 0
        return True

    def _take(self, size: int, what: str) -> bytes:
        """Exactly the next `size` compressed-stream bytes (gzip and block framing)."""
        while self._available() < size:
            if not self._read_raw():
                raise _TruncatedError(f"the gzip stream ends inside {what}")
        taken = self._buffer[self._offset : self._offset + size]
        self._offset += size
        return taken

    def _skip_string(self, what: str) -> None:
        """Skip a zero-terminated header field."""
        while (end := self._buffer.find(0, self._offset)) < 0:
            if not self._read_raw():
                raise _TruncatedError(f"the gzip stream ends inside {what}")
        self._offset = end + 1

    # -- page-aligned weights ------------------------------------------------------------

    def _at_member_boundary(self) -> bool:
        """Whether the next unread byte starts a gzip member, once the framing of a member
        whose data is all read (its last block's end, its trailer) is consumed."""
        while not self._pending and self._in_member:
            if self._inflater is not None:
                out = self._inflated_chunk()
                if out is not None:  # more data: hand it out as usual
                    self._size += len(out)
                    self._flush_crc()
                    if self._crc is not None:
                        self._crc.update(out)
                    self._pending = out
                    return False
                self._end_member()
            elif self._stored_left:
                return False
            elif self._final_block:
                self._end_member()
            else:
                self._next_block()
        return not self._pending and not self._in_member

    def map_aligned(self, size: int) -> np.ndarray | None:
        """The next `size` bytes mapped from the file, read-only, when they are laid out as
        page-aligned segments (see PAGE_BYTES) and every segment's CRC-32 matches; None, with
        nothing consumed, when they are not or the system refuses the mappings."""
        if not _CAN_MAP or size <= 0 or not self._at_member_boundary():
            return None
        fd = self._raw.fileno()
        found = _segments(fd, self._raw.tell() - self._available(), size)
        if found is None:
            return None
        offsets, crcs = found
        array = _map_and_check(fd, offsets, crcs, size)
        if array is None:
            return None
        end = int(offsets[-1]) + size - SEGMENT_BYTES * (len(offsets) - 1) + 8
        self._raw.seek(end)
        self._buffer, self._offset = b"", 0
        return array

    # -- gzip members --------------------------------------------------------------------

    def _start_member(self) -> bool:
        """Parse a gzip member header (RFC 1952); False when only zero padding is left."""
        while not self._buffer[self._offset :].strip(b"\0"):
            self._buffer, self._offset = b"", 0
            if not self._read_raw():
                return False
        header = self._take(10, "a gzip header")
        if header[:3] != b"\x1f\x8b\x08":
            raise zlib.error("not a gzip stream (bad magic number or method)")
        flags = header[3]
        if flags & 0x04:  # FEXTRA
            extra = self._take(2, "a gzip header")
            self._take(extra[0] | extra[1] << 8, "a gzip header")
        if flags & 0x08:  # FNAME
            self._skip_string("a gzip header")
        if flags & 0x10:  # FCOMMENT
            self._skip_string("a gzip header")
        if flags & 0x02:  # FHCRC
            self._take(2, "a gzip header")
        self._in_member, self._inflater = True, None
        self._stored_left, self._final_block = 0, False
        self._window.clear()
        self._window_bytes = self._size = 0
        self.close()
        self._crc = _BackgroundCrc32()
        return True

    def _end_member(self) -> None:
        """Check the finished member's trailer (CRC-32 and length)."""
        self._flush_crc()
        trailer = self._take(8, "the gzip trailer")
        crc = int.from_bytes(trailer[:4], "little")
        size = int.from_bytes(trailer[4:], "little")
        self._in_member, self._inflater = False, None
        if size != self._size & 0xFFFFFFFF:
            raise zlib.error("the gzip trailer's length does not match the data")
        if self._crc is not None and crc != self._crc.value():
            raise zlib.error("the gzip trailer's CRC-32 does not match the data")

    # -- deflate blocks ------------------------------------------------------------------

    def _next_block(self) -> None:
        """At a byte boundary between blocks: enter the next stored block, or hand the rest
        of the member to zlib at its first compressed block."""
        header = self._take(1, "a deflate block")[0]
        if (header >> 1) & 3 != 0:  # fixed or dynamic Huffman: zlib from here on
            self._offset -= 1
            window = b"".join(self._window)[-32768:]
            self._inflater = zlib.decompressobj(-zlib.MAX_WBITS, zdict=window)
            self._window.clear()
            return
        length = self._take(4, "a stored block header")
        size = length[0] | length[1] << 8
        if size ^ (length[2] | length[3] << 8) != 0xFFFF:
            raise zlib.error("invalid stored block lengths")
        self._stored_left, self._final_block = size, bool(header & 1)

    def _stored_chunk(self) -> memoryview:
        """The next bytes of the current stored block, as a view of the file's bytes."""
        if not self._available() and not self._read_raw():
            raise _TruncatedError("the gzip stream ends inside a stored block")
        count = min(self._stored_left, self._available())
        out = memoryview(self._buffer)[self._offset : self._offset + count]
        self._offset += count
        self._stored_left -= count
        self._remember(out)
        return out

    def _remember(self, stored: memoryview) -> None:
        """Keep the last 32 KiB of stored output, in case a compressed block follows."""
        self._window.append(stored)
        self._window_bytes += len(stored)
        while self._window_bytes - len(self._window[0]) >= 32768:
            self._window_bytes -= len(self._window.popleft())

    def _inflated_chunk(self) -> memoryview | None:
        """The next bytes zlib inflates; None once its member's deflate data ends."""
        inflater = self._inflater
        if inflater.eof:  # (its unconsumed_tail may still hold what unused_data holds)
            unused = inflater.unused_data
            self._buffer, self._offset = unused + self._buffer[self._offset :], 0
            return None
        tail = inflater.unconsumed_tail
        if not tail:
            if not self._available() and not self._read_raw():
                raise _TruncatedError("the gzip stream ends early")
            tail = memoryview(self._buffer)[self._offset :]
            self._buffer, self._offset = b"", 0
        # bounded output: a small, highly compressed tarball cannot balloon in memory
        return memoryview(inflater.decompress(tail, _CHUNK_BYTES))

    def _fill(self, leave_unread_stored: bool = False) -> bool:
        """More bytes into `_pending`; False at the end of the compressed stream. With
        `leave_unread_stored`, stop (pending nothing) at stored bytes not read from the file
        yet, which the caller reads itself."""
        while not self._pending:
            if not self._in_member:
                if not self._start_member():
                    return False
                continue
            if self._inflater is not None:
                out = self._inflated_chunk()
                if out is None:
                    self._end_member()
                    continue
            elif self._stored_left:
                if leave_unread_stored and not self._available():
                    break
                out = self._stored_chunk()
            elif self._final_block:
                self._end_member()
                continue
            else:
                self._next_block()
                continue
            self._size += len(out)
            self._flush_crc()
            if self._crc is not None:
                self._crc.update(out)
            self._pending = out
        return True

    def chunks(self, size: int) -> Iterator[memoryview]:
        """The next `size` bytes, as the inflated chunks they arrive in."""
        while size > 0:
            if not self._fill():
                raise _TruncatedError("the tarball ends early")
            part = self._pending[:size]
            self._pending = self._pending[len(part) :]
            size -= len(part)
            yield part

    def read(self, size: int) -> bytes:
        """Exactly the next `size` bytes."""
        return b"".join(self.chunks(size))

    def readinto(self, out: memoryview) -> None:
        """Fill `out` with the next len(out) bytes. Where a stored block's bytes are not
        read yet, they go from the file straight into `out` (one read per block, which also
        fetches the next block's header), so a large member is copied once."""
        position = 0
        lookahead = bytearray(_STORED_HEADER_BYTES)
        while position < len(out):
            direct = (
                not self._pending
                and self._in_member
                and self._inflater is None
                and self._stored_left > 0
                and not self._available()
            )
            if not direct:
                if not self._fill(leave_unread_stored=True):
                    raise _TruncatedError("the tarball ends early")
                part = self._pending[: len(out) - position]
                out[position : position + len(part)] = part
                self._pending = self._pending[len(part) :]
                position += len(part)
                continue
            size = min(self._stored_left, len(out) - position)
            got = os.readv(self._raw.fileno(), [out[position : position + size], lookahead])
            if got <= 0:
                raise _TruncatedError("the gzip stream ends inside a stored block")
            taken = min(got, size)
            extra = got - taken
            self._buffer, self._offset = (bytes(lookahead[:extra]) if extra else b""), 0
            self._stored_left -= taken
            self._size += taken
            self._remember(out[position : position + taken])
            self._defer_crc(out, position, position + taken)
            position += taken
        self._flush_crc()

    def _defer_crc(self, out: memoryview, start: int, end: int) -> None:
        """Add `out[start:end]` to the CRC later, with the bytes read next to it (one
        hand-off per few MB, not per block)."""
        deferred = self._deferred_crc
        if deferred is not None and deferred[0] is out and deferred[2] == start:
            self._deferred_crc = (out, deferred[1], end)
        else:
            self._flush_crc()
            self._deferred_crc = (out, start, end)
        if end - self._deferred_crc[1] >= _CRC_BATCH_BYTES:
            self._flush_crc()

    def _flush_crc(self) -> None:
        """Hand the deferred bytes to the CRC (before anything read after them)."""
        if self._deferred_crc is not None:
            out, start, end = self._deferred_crc
            self._deferred_crc = None
            if self._crc is not None:
                self._crc.update(out[start:end])

    def skip(self, size: int) -> None:
        """Pass over the next `size` bytes."""
        for _ in self.chunks(size):
            pass

    def close(self) -> None:
        """Stop the CRC's helper thread (a load that fails leaves none behind)."""
        if self._crc is not None:
            self._crc.close()

    def drain(self) -> None:
        """Read (and check) the rest of the gzip stream."""
        while self._fill():
            self._pending = memoryview(b"")


@dataclass
class _Contents:
    """What a pass over an artifact found: the manifest's bytes; per shared library (a
    plain file name ending in .so) the file it was written to and its sha256; per blob (a
    plain file name ending in .bin) its bytes, 64-byte aligned, and their sha256 when
    asked for."""

    manifest: bytes | None = None
    libraries: dict[str, tuple[str, str]] = field(default_factory=dict)
    blobs: dict[str, tuple[np.ndarray, str | None]] = field(default_factory=dict)


def _extract(path: Path, place: Callable[[str], str], hash_blobs: bool) -> _Contents:
    """Stream the tarball once: the manifest, each library written to the file
    `place(name)` gives, and each blob read into memory (see _Contents)."""
    contents = _Contents()
    try:
        with open(path, "rb", buffering=0) as raw:
            stream = _InflatedStream(raw)
            try:
                while True:
                    header = stream.read(tarfile.BLOCKSIZE)
                    if header.count(0) == tarfile.BLOCKSIZE:
                        break  # the end-of-archive marker
                    member = tarfile.TarInfo.frombuf(header, "utf-8", "surrogateescape")
                    padding = -member.size % tarfile.BLOCKSIZE
                    plain = member.isfile() and member.name == os.path.basename(member.name)
                    if plain and member.name == MANIFEST_FILE:
                        contents.manifest = stream.read(member.size)
                    elif plain and member.name.endswith(".so"):
                        file = place(member.name)
                        digest = _copy(stream.chunks(member.size), file)
                        contents.libraries[member.name] = (file, digest)
                    elif plain and member.name.endswith(".bin"):
                        contents.blobs[member.name] = _blob(stream, member.size, hash_blobs)
                    else:
                        padding += member.size
                    stream.skip(padding)
                stream.drain()
            finally:
                stream.close()  # no CRC thread outlives a failed load
    except FileNotFoundError as err:
        raise ArtifactError(f"cannot read artifact {path}: {err}") from None
    except (_TruncatedError, tarfile.TarError, zlib.error, OSError) as err:
        raise ArtifactError(
            f"artifact {path} is corrupt or truncated (not a readable .tar.gz): {err}"
        ) from None
    return contents


def _copy(chunks: Iterable[memoryview], file: str) -> str:
    """Write `chunks` to `file`; the sha256 of what was written."""
    digest = _BackgroundSha256()
    try:
        with open(file, "wb", buffering=0) as handle:
            for chunk in chunks:
                digest.update(chunk)
                handle.write(chunk)
    finally:
        digest.close()
    return digest.hexdigest()


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


def _blob(stream: _InflatedStream, size: int, hashed: bool) -> tuple[np.ndarray, str | None]:
    """The next `size` bytes of `stream`, mapped from the file where they are laid out for
    it, else read into memory; and their sha256 if `hashed`."""
    mapped = stream.map_aligned(size)
    if mapped is None:
        return _read_blob(stream, size, hashed)
    return mapped, hashlib.sha256(mapped.data).hexdigest() if hashed else None


def _read_blob(stream: _InflatedStream, size: int, hashed: bool) -> tuple[np.ndarray, str | None]:
    """The next `size` bytes of `stream` in an aligned array, and their sha256 if `hashed`."""
    blob = aligned_bytes(size)
    view = blob.data
    if not hashed:
        stream.readinto(view)
        return blob, None
    digest = _BackgroundSha256()
    try:
        for start in range(0, size, _CRC_BATCH_BYTES):
            part = view[start : start + _CRC_BATCH_BYTES]
            stream.readinto(part)
            digest.update(part)
    finally:
        digest.close()
    return blob, digest.hexdigest()


def _check_manifest(path: Path, data: bytes | None) -> dict[str, Any]:
    if data is None:
        raise ArtifactError(f"artifact {path} has no {MANIFEST_FILE}; is it an autotune artifact?")
    try:
        manifest = json.loads(data)
    except (ValueError, UnicodeDecodeError) as err:
        raise ArtifactError(f"artifact {path}: {MANIFEST_FILE} is not valid JSON: {err}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != ARTIFACT_FORMAT:
        raise ArtifactError(f"artifact {path}: {MANIFEST_FILE} is not an autotune manifest")
    if manifest.get("device", "cpu") != "cpu":
        raise ArtifactError(
            f"artifact {path} is built for a {manifest['device']!r} device, not this CPU: "
            "load it with cuda_loader.load_cuda_artifact (needs pycuda) or `autotune run`"
        )
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ArtifactError(
            f"artifact {path} has format version {manifest.get('format_version')!r}; "
            f"this loader reads version {FORMAT_VERSION} (compile the model again, or run "
            "it with the loader that came with it)"
        )
    if manifest.get("abi_version") != ABI_VERSION:
        raise ArtifactError(
            f"artifact {path} has ABI version {manifest.get('abi_version')!r}; "
            f"this loader speaks version {ABI_VERSION}"
        )
    return manifest


def _described(path: Path, manifest: Mapping[str, Any], key: str) -> tuple[str, str, int]:
    """The file name, sha256 and size the manifest gives for its `key` entry."""
    entry = manifest.get(key)
    try:
        assert isinstance(entry, dict)
        name, digest, size = str(entry["file"]), str(entry["sha256"]), int(entry["size_bytes"])
    except (AssertionError, KeyError, TypeError, ValueError):
        raise ArtifactError(f"artifact {path}: the manifest does not describe its {key}") from None
    if name != os.path.basename(name) or not _HEX64.match(digest) or size < 0:
        raise ArtifactError(f"artifact {path}: the manifest does not describe its {key}")
    return name, digest, size


def _checked_library(path: Path, contents: _Contents, manifest: Mapping[str, Any]) -> str:
    """The file holding the manifest's library, once its hash is checked."""
    name, digest, _ = _described(path, manifest, "library")
    if name not in contents.libraries:
        raise ArtifactError(f"artifact {path} is missing its library {name}")
    file, actual = contents.libraries[name]
    if actual != digest:
        raise ArtifactError(
            f"artifact {path} is corrupt: {name} does not match the sha256 in its manifest"
        )
    return file


def _checked_weights(path: Path, contents: _Contents, manifest: Mapping[str, Any]) -> np.ndarray:
    """The manifest's weights, once their size (and hash, when it was computed) is checked.
    (Without a hash, the gzip CRC-32 of every member vouches for the bytes.)"""
    name, digest, size = _described(path, manifest, "weights")
    if name not in contents.blobs:
        raise ArtifactError(f"artifact {path} is missing its weights {name}")
    blob, actual = contents.blobs[name]
    if blob.nbytes != size:
        raise ArtifactError(
            f"artifact {path} is corrupt: {name} holds {blob.nbytes} bytes, "
            f"its manifest says {size}"
        )
    if actual is not None and actual != digest:
        raise ArtifactError(
            f"artifact {path} is corrupt: {name} does not match the sha256 in its manifest"
        )
    return blob


def _declare(lib: ctypes.CDLL) -> None:
    signatures: dict[str, tuple[Any, list[Any]]] = {
        "autotune_abi_version": (ctypes.c_int32, []),
        "autotune_workspace_bytes": (ctypes.c_int64, []),
        "autotune_weights_bytes": (ctypes.c_int64, []),
        "autotune_create": (ctypes.c_void_p, [ctypes.c_void_p]),
        "autotune_run": (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
        "autotune_destroy": (None, [ctypes.c_void_p]),
    }
    for side in ("input", "output"):
        signatures[f"autotune_num_{side}s"] = (ctypes.c_int32, [])
        signatures[f"autotune_{side}_name"] = (ctypes.c_char_p, [ctypes.c_int32])
        signatures[f"autotune_{side}_dtype"] = (ctypes.c_char_p, [ctypes.c_int32])
        signatures[f"autotune_{side}_ndim"] = (ctypes.c_int32, [ctypes.c_int32])
        signatures[f"autotune_{side}_shape"] = (
            ctypes.POINTER(ctypes.c_int64),
            [ctypes.c_int32],
        )
    for name, (restype, argtypes) in signatures.items():
        try:
            function = getattr(lib, name)
        except AttributeError:
            raise ArtifactError(f"the model library does not export {name}") from None
        function.restype = restype
        function.argtypes = argtypes


def _library_infos(lib: ctypes.CDLL, side: str) -> list[TensorInfo]:
    infos = []
    for index in range(getattr(lib, f"autotune_num_{side}s")()):
        ndim = getattr(lib, f"autotune_{side}_ndim")(index)
        shape = getattr(lib, f"autotune_{side}_shape")(index)
        infos.append(
            TensorInfo(
                getattr(lib, f"autotune_{side}_name")(index).decode(),
                tuple(int(shape[i]) for i in range(ndim)),
                getattr(lib, f"autotune_{side}_dtype")(index).decode(),
            )
        )
    return infos


@dataclass
class _Loaded:
    """A checked artifact: its manifest, its library (mapped) and its weights."""

    manifest: dict[str, Any]
    library: ctypes.CDLL
    weights: np.ndarray


def _open_library(path: Path, file: str) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(file)
    except OSError as err:
        raise ArtifactError(f"artifact {path}: the model library does not load: {err}") from None


def _load(path: Path, cache_dir: str | None) -> _Loaded:
    """Check the artifact, dlopen its library and read its weights.

    Without `cache_dir` the library goes to an in-memory file where the system has them,
    else to a private temporary directory, removed once the library is mapped. With it,
    the checked library and weights are kept in `cache_dir/<key>/` (the key: both their
    hashes); a later load of an artifact with the same library and weights reads only the
    manifest (the tarball's first member) and maps the kept files.
    """
    if cache_dir is not None:
        cached = _cached(path, Path(cache_dir))
        if cached is not None:
            return cached
    elif _IN_MEMORY_FILES:
        return _load_in_memory(path)
    if cache_dir is not None:
        os.makedirs(cache_dir, exist_ok=True)
    directory = tempfile.mkdtemp(prefix=".autotune-artifact-", dir=cache_dir)
    try:
        # The cache is keyed by the manifest's hashes, so what goes in is always hashed.
        contents = _extract(path, lambda name: os.path.join(directory, name), cache_dir is not None)
        manifest = _check_manifest(path, contents.manifest)
        library_path = _checked_library(path, contents, manifest)
        weights = _checked_weights(path, contents, manifest)
        if cache_dir is not None:
            weights_name, _, _ = _described(path, manifest, "weights")
            with open(os.path.join(directory, weights_name), "wb") as handle:
                handle.write(weights.data)
            kept = os.path.join(cache_dir, _cache_key(manifest))
            try:
                os.rename(directory, kept)
            except OSError:
                pass  # another process kept the same files first: use this copy
            else:
                directory = kept
                library_path = os.path.join(kept, os.path.basename(library_path))
        return _Loaded(manifest, _open_library(path, library_path), weights)
    finally:
        if cache_dir is None or os.path.basename(directory).startswith("."):
            shutil.rmtree(directory, ignore_errors=True)


def _cache_key(manifest: Mapping[str, Any]) -> str:
    """The cache entry of a checked manifest's library and weights."""
    both = f"{manifest['library']['sha256']}:{manifest['weights']['sha256']}"
    return hashlib.sha256(both.encode()).hexdigest()


# Linux: a library can be written to an anonymous in-memory file and mapped from there.
_IN_MEMORY_FILES = hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd")
# Their descriptors stay open for the life of the process: dlopen knows a library by its
# path (/proc/self/fd/N), so a number reused by a later load would get this library back.
_LIBRARY_DESCRIPTORS: list[int] = []


def _load_in_memory(path: Path) -> _Loaded:
    """`_load` without a cache: each library is written to an in-memory file, which, unlike
    a file on disk, never waits for other writes to reach the disk."""
    created: list[int] = []

    def place(name: str) -> str:
        created.append(os.memfd_create(name, os.MFD_CLOEXEC))
        return f"/proc/self/fd/{created[-1]}"

    try:
        contents = _extract(path, place, False)
        manifest = _check_manifest(path, contents.manifest)
        library_path = _checked_library(path, contents, manifest)
        weights = _checked_weights(path, contents, manifest)
        library = _open_library(path, library_path)
    except BaseException:
        for descriptor in created:
            os.close(descriptor)
        raise
    _LIBRARY_DESCRIPTORS.extend(created)
    return _Loaded(manifest, library, weights)


def _cached(path: Path, cache_dir: Path) -> _Loaded | None:
    """The checked manifest, library and weights of `path` when `cache_dir` keeps them."""
    manifest_data = None
    try:
        with tarfile.open(path, mode="r|gz") as tar:
            member = tar.next()  # the manifest comes first in every artifact we pack
            if member is not None and member.name == MANIFEST_FILE and member.isfile():
                stream = tar.extractfile(member)
                manifest_data = stream.read() if stream is not None else None
    except (tarfile.TarError, EOFError, zlib.error, OSError):
        return None  # the full load says what is wrong
    if manifest_data is None:
        return None
    manifest = _check_manifest(path, manifest_data)
    try:
        library_name, _, library_size = _described(path, manifest, "library")
        weights_name, _, weights_size = _described(path, manifest, "weights")
    except ArtifactError:
        return None
    entry = cache_dir / _cache_key(manifest)
    library_file, weights_file = entry / library_name, entry / weights_name
    try:
        if library_file.stat().st_size != library_size:
            return None
        with open(weights_file, "rb") as handle:
            if os.fstat(handle.fileno()).st_size != weights_size:
                return None
            # Mapped read-only and private: the kept file is never written again (a damaged
            # entry is replaced by rename, which leaves this mapping intact).
            mapped = (
                mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if weights_size else None
            )
        library = ctypes.CDLL(str(library_file))
    except (OSError, ValueError):
        return None
    weights = np.frombuffer(mapped, np.uint8) if mapped is not None else aligned_bytes(0)
    return _Loaded(manifest, library, weights)


class Artifact:
    """A loaded model: `inputs`, `outputs` (TensorInfo lists), `manifest`; call `run`.

    One model handle (with its workspace) serves every call; calls are serialised. Use one
    Artifact per thread to run in parallel.
    """

    def __init__(self, path: str | os.PathLike[str], cache_dir: str | None = None) -> None:
        started = time.perf_counter()
        self.path = Path(path)
        loaded = _load(self.path, cache_dir)
        self.manifest, self._lib, self._weights = loaded.manifest, loaded.library, loaded.weights
        self.inputs = _tensor_infos(self.manifest, "inputs")
        self.outputs = _tensor_infos(self.manifest, "outputs")
        _declare(self._lib)
        if self._lib.autotune_abi_version() != ABI_VERSION:
            raise ArtifactError(f"artifact {self.path}: the library speaks another ABI version")
        if (
            _library_infos(self._lib, "input") != self.inputs
            or _library_infos(self._lib, "output") != self.outputs
        ):
            raise ArtifactError(
                f"artifact {self.path}: the library's inputs/outputs differ from the manifest's"
            )
        if self._lib.autotune_weights_bytes() != self._weights.nbytes:
            raise ArtifactError(
                f"artifact {self.path}: the library expects {self._lib.autotune_weights_bytes()} "
                f"bytes of weights, the artifact holds {self._weights.nbytes}"
            )
        handle = self._lib.autotune_create(self._weights.ctypes.data)
        if not handle:
            raise ArtifactError(
                f"artifact {self.path}: cannot allocate the model's workspace "
                f"({self._lib.autotune_workspace_bytes()} bytes)"
            )
        self._handle: int | None = handle
        self._lock = threading.Lock()
        self.load_s = time.perf_counter() - started

    @property
    def workspace_bytes(self) -> int:
        """The size of the model's workspace (intermediate tensors), bytes."""
        return int(self._lib.autotune_workspace_bytes())

    def check_inputs(self, inputs: Mapping[str, Any]) -> list[np.ndarray]:
        """The inputs as C-contiguous arrays in the model's order; ArtifactInputError naming
        the input when one is missing, unknown, or of the wrong shape or dtype."""
        names = [info.name for info in self.inputs]
        unknown = sorted(set(inputs) - set(names))
        if unknown:
            raise ArtifactInputError(f"unknown input(s) {unknown}; the model's inputs are {names}")
        arrays = []
        for info in self.inputs:
            expected = f"shape {list(info.shape)} {info.dtype}"
            if info.name not in inputs:
                raise ArtifactInputError(f"missing input {info.name!r} (expected {expected})")
            value = inputs[info.name]
            if not isinstance(value, np.ndarray):
                value = np.asarray(value)
            if value.shape != info.shape or value.dtype != np.dtype(info.dtype):
                raise ArtifactInputError(
                    f"input {info.name!r}: expected {expected}, "
                    f"got shape {list(value.shape)} {_dtype_text(value.dtype)}"
                )
            arrays.append(np.ascontiguousarray(value))
        return arrays

    def run(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """Run the model on named input arrays; returns the outputs by name (new arrays)."""
        arrays = self.check_inputs(inputs)
        outputs = [aligned_empty(info.shape, info.dtype) for info in self.outputs]
        input_pointers = (ctypes.c_void_p * max(1, len(arrays)))(
            *(array.ctypes.data for array in arrays)
        )
        output_pointers = (ctypes.c_void_p * max(1, len(outputs)))(
            *(array.ctypes.data for array in outputs)
        )
        with self._lock:
            if self._handle is None:
                raise ArtifactError(f"artifact {self.path} is closed")
            status = self._lib.autotune_run(self._handle, input_pointers, output_pointers)
        if status != 0:
            raise ArtifactError(f"artifact {self.path}: autotune_run failed with status {status}")
        return {info.name: array for info, array in zip(self.outputs, outputs, strict=True)}

    def close(self) -> None:
        """Free the model's workspace and weights (the library stays mapped until the
        process exits)."""
        with self._lock:
            if self._handle is not None:
                self._lib.autotune_destroy(self._handle)
                self._handle = None
                self._weights = aligned_bytes(0)

    def __enter__(self) -> Artifact:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is not None:
            self._lib.autotune_destroy(handle)
            self._handle = None


def load_artifact(path: str | os.PathLike[str], cache_dir: str | None = None) -> Artifact:
    """Open the artifact at `path` (checked; ArtifactError when it cannot be used).

    `cache_dir`, when given, keeps each checked library there by its sha256, so loading the
    same artifact again skips extracting and hashing it (its manifest is still checked)."""
    return Artifact(path, cache_dir)


def _parse_inputs(values: Sequence[str]) -> dict[str, np.ndarray]:
    arrays = {}
    for text in values:
        name, sep, file = text.partition("=")
        if not sep or not name or not file:
            raise ArtifactInputError(f"--input {text!r}: expected NAME=FILE.npy")
        try:
            arrays[name] = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as err:
            raise ArtifactInputError(f"--input {name}: cannot read {file}: {err}") from None
    return arrays


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run an artifact on .npy inputs, print output shapes, save an .npz."""
    parser = argparse.ArgumentParser(description="Run an autotune artifact with numpy.")
    parser.add_argument("artifact")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy")
    parser.add_argument("--output", metavar="OUT.npz")
    args = parser.parse_args(argv)
    try:
        with load_artifact(args.artifact) as model:
            outputs = model.run(_parse_inputs(args.input))
    except ArtifactError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for name, array in outputs.items():
        print(f"{name}: {list(array.shape)} {array.dtype.name}")
    if args.output:
        arrays: dict[str, Any] = dict(outputs)
        np.savez(args.output, **arrays)
    return 0


if __name__ == "__main__":
    sys.exit(main())
