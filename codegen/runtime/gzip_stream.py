"""An artifact's .tar.gz read in one pass, every gzip member's CRC-32 and length checked,
its stored blocks handed out without copies and page-aligned weights mapped from the file
(`mapped_segments`); hashing and CRCs run on helper threads."""

from __future__ import annotations

import collections
import hashlib
import io
import os
import queue
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from .aligned import aligned_bytes
from .mapped_segments import (
    CAN_MAP,
    SEGMENT_BYTES,
    STORED_HEADER_BYTES,
    find_segments,
    map_and_check,
)

_CHUNK_BYTES = 1 << 20
_CRC_BATCH_BYTES = 8 << 20


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


class TruncatedError(Exception):
    """The tarball ends inside a header or a member's data."""


class InflatedStream:
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
                raise TruncatedError(f"the gzip stream ends inside {what}")
        taken = self._buffer[self._offset : self._offset + size]
        self._offset += size
        return taken

    def _skip_string(self, what: str) -> None:
        """Skip a zero-terminated header field."""
        while (end := self._buffer.find(0, self._offset)) < 0:
            if not self._read_raw():
                raise TruncatedError(f"the gzip stream ends inside {what}")
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
        if not CAN_MAP or size <= 0 or not self._at_member_boundary():
            return None
        fd = self._raw.fileno()
        found = find_segments(fd, self._raw.tell() - self._available(), size)
        if found is None:
            return None
        offsets, crcs = found
        array = map_and_check(fd, offsets, crcs, size)
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
            raise TruncatedError("the gzip stream ends inside a stored block")
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
                raise TruncatedError("the gzip stream ends early")
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
                raise TruncatedError("the tarball ends early")
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
        lookahead = bytearray(STORED_HEADER_BYTES)
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
                    raise TruncatedError("the tarball ends early")
                part = self._pending[: len(out) - position]
                out[position : position + len(part)] = part
                self._pending = self._pending[len(part) :]
                position += len(part)
                continue
            size = min(self._stored_left, len(out) - position)
            got = os.readv(self._raw.fileno(), [out[position : position + size], lookahead])
            if got <= 0:
                raise TruncatedError("the gzip stream ends inside a stored block")
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


def copy_to_file(chunks: Iterable[memoryview], file: str) -> str:
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


def read_blob(stream: InflatedStream, size: int, hashed: bool) -> tuple[np.ndarray, str | None]:
    """The next `size` bytes of `stream`, mapped from the file where they are laid out for
    it, else read into memory; and their sha256 if `hashed`."""
    mapped = stream.map_aligned(size)
    if mapped is None:
        return _read_into_memory(stream, size, hashed)
    return mapped, hashlib.sha256(mapped.data).hexdigest() if hashed else None


def _read_into_memory(
    stream: InflatedStream, size: int, hashed: bool
) -> tuple[np.ndarray, str | None]:
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
