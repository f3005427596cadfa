"""Pack an artifact: manifest.json, model.so, model.h and weights.bin in a deterministic
.tar.gz.

Members are sorted and carry fixed metadata (mtime 0, owner 0, fixed modes); gzip headers
have no name and no timestamp. The same files therefore always give the same bytes, and the
tarball is named by their sha256.

Trained weights barely compress (float32 mantissas are noise: ~7% at best), while
deflating and inflating them costs seconds per hundred MB; the compression level is
therefore chosen from samples of the content: deflate when it pays, store otherwise.
The choice is a function of the bytes, so it stays deterministic.

Large incompressible weights are laid out so that a loader can map them from the file
instead of copying them (`page_aligned`): their bytes go in gzip members of one stored
block each, SEGMENT_BYTES (15 pages, the most whole pages a stored block holds) per member,
each member's header padded (an FEXTRA subfield "AW" of zeros) so that its block's bytes
start at a file offset that is a multiple of PAGE_BYTES. Mapping the segments one after
another gives the weights contiguous in memory, shared with the page cache; the padding
costs one page per fifteen (6.7%). Any gzip reader still reads the stream as usual: the
segments are ordinary members of a multi-member stream.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import tarfile
import zlib
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any, BinaryIO

GZIP_LEVEL = 6
STORE_ABOVE_RATIO = 0.8  # samples that deflate to more than this are stored
PAGE_BYTES = 4096
SEGMENT_BYTES = 15 * PAGE_BYTES
ALIGNED_SUBFIELD = b"AW"
ALIGNED_MIN_BYTES = 32 << 20  # below this, copying the weights costs a few ms: keep it compact
_SAMPLES = 16
_SAMPLE_BYTES = 64 * 1024
_MODES = {"model.so": 0o755}
_GZIP_MAGIC = b"\x1f\x8b\x08"
_FEXTRA = 0x04
_OS_UNKNOWN = 255
# A member's header with an "AW" subfield: magic, flags, mtime 0, xfl 0, os, XLEN, SI1 SI2, LEN.
_ALIGNED_HEADER_BYTES = 10 + 2 + 4
_STORED_HEADER_BYTES = 5


def manifest_bytes(manifest: Mapping[str, Any]) -> bytes:
    """The manifest as canonical JSON text (sorted keys, two-space indent, final newline)."""
    return (json.dumps(manifest, sort_keys=True, indent=2, allow_nan=False) + "\n").encode()


def compression_level(data: bytes) -> int:
    """The gzip level for `data` (a member's largest file): GZIP_LEVEL when evenly spaced
    samples of it deflate well, else 0 (stored)."""
    if len(data) <= _SAMPLES * _SAMPLE_BYTES:
        sample = data
    else:
        stride = len(data) // _SAMPLES
        sample = b"".join(data[i * stride : i * stride + _SAMPLE_BYTES] for i in range(_SAMPLES))
    if not sample:
        return GZIP_LEVEL
    ratio = len(zlib.compress(sample, GZIP_LEVEL)) / len(sample)
    return GZIP_LEVEL if ratio <= STORE_ABOVE_RATIO else 0


def _gzip_header(flags: int) -> bytes:
    return _GZIP_MAGIC + bytes([flags]) + bytes(4) + bytes([0, _OS_UNKNOWN])


class _GzipWriter:
    """Writes gzip members to a stream, counting the offset of every byte written."""

    def __init__(self, write: Callable[[bytes | memoryview], object]) -> None:
        self._write = write
        self.offset = 0

    def _out(self, data: bytes | memoryview) -> None:
        if data:
            self._write(data)
            self.offset += len(data)

    def member(self, pieces: list[bytes | memoryview], level: int) -> None:
        """One member holding `pieces` one after another, deflated at `level`."""
        deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
        crc = size = 0
        self._out(_gzip_header(0))
        for piece in pieces:
            crc, size = zlib.crc32(piece, crc), size + len(piece)
            self._out(deflate.compress(piece))
        self._out(deflate.flush())
        self._out(struct.pack("<II", crc, size & 0xFFFFFFFF))

    def aligned_members(self, data: memoryview) -> None:
        """`data` as page-aligned stored segments (see the module's doc)."""
        for start in range(0, len(data), SEGMENT_BYTES):
            segment = data[start : start + SEGMENT_BYTES]
            pad = -(self.offset + _ALIGNED_HEADER_BYTES + _STORED_HEADER_BYTES) % PAGE_BYTES
            self._out(
                _gzip_header(_FEXTRA)
                + struct.pack("<H", 4 + pad)
                + ALIGNED_SUBFIELD
                + struct.pack("<H", pad)
                + bytes(pad)
                + b"\x01"  # the final block of its member, stored
                + struct.pack("<HH", len(segment), len(segment) ^ 0xFFFF)
            )
            self._out(segment)
            self._out(struct.pack("<II", zlib.crc32(segment), len(segment)))


class _HashingWriter:
    """A binary stream that hashes and counts what goes through it."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.sha256 = hashlib.sha256()
        self.size_bytes = 0

    def write(self, data: bytes) -> int:
        self.sha256.update(data)
        self.size_bytes += len(data)
        return self.stream.write(data)

    def flush(self) -> None:
        self.stream.flush()


def _tar_header(name: str, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = 0
    info.mode = _MODES.get(name, 0o644)
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape")


def _padding(size: int, multiple: int) -> bytes:
    return bytes(-size % multiple)


def write_tarball(
    files: Mapping[str, bytes],
    stream: BinaryIO,
    page_aligned: Collection[str] = (),
    aligned_min_bytes: int = ALIGNED_MIN_BYTES,
) -> None:
    """Write the .tar.gz of `files` (name -> content) to `stream` (at its start),
    deterministically. Files named in `page_aligned` that are incompressible and at least
    `aligned_min_bytes` long are laid out for mapping (see the module's doc)."""
    writer = _GzipWriter(stream.write)
    pieces: list[bytes | memoryview] = []  # the tar stream not yet written
    largest = b""
    tar_size = 0

    def flush() -> None:
        writer.member(pieces, compression_level(largest))
        pieces.clear()

    for name in sorted(files):
        data = files[name]
        pieces.append(_tar_header(name, len(data)))
        if name in page_aligned and len(data) >= aligned_min_bytes and not compression_level(data):
            flush()
            largest = b""
            writer.aligned_members(memoryview(data))
        else:
            pieces.append(data)
            largest = max(largest, data, key=len)
        pieces.append(_padding(len(data), tarfile.BLOCKSIZE))
        tar_size += tarfile.BLOCKSIZE + len(data) + len(pieces[-1])
    end = bytes(2 * tarfile.BLOCKSIZE)  # the end-of-archive marker, then whole records
    pieces += [end, _padding(tar_size + len(end), tarfile.RECORDSIZE)]
    flush()


def pack_tarball(
    files: Mapping[str, bytes],
    page_aligned: Collection[str] = (),
    aligned_min_bytes: int = ALIGNED_MIN_BYTES,
) -> bytes:
    """The .tar.gz bytes of `files` (name -> content), deterministic (see write_tarball)."""
    buffer = io.BytesIO()
    write_tarball(files, buffer, page_aligned, aligned_min_bytes)
    return buffer.getvalue()


def write_artifact(
    out_dir: Path, files: Mapping[str, bytes], page_aligned: Collection[str] = ()
) -> tuple[Path, str, int]:
    """Pack `files` into `out_dir/<sha256>.tar.gz` (atomically: written aside, then renamed);
    returns the path, the sha256 and the size in bytes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    partial = out_dir / f".artifact-{os.getpid()}-{id(files)}.partial"
    try:
        with partial.open("wb") as handle:
            writer = _HashingWriter(handle)
            write_tarball(files, writer, page_aligned)  # type: ignore[arg-type]
        digest = writer.sha256.hexdigest()
        path = out_dir / f"{digest}.tar.gz"
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path, digest, writer.size_bytes
