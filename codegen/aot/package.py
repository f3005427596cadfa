"""Pack an artifact: manifest.json, model.so, model.h and weights.bin in a deterministic
.tar.gz.

Members are sorted and carry fixed metadata (mtime 0, owner 0, fixed modes); the gzip
header has no name and no timestamp. The same files therefore always give the same
bytes, and the tarball is named by their sha256.

Trained weights barely compress (float32 mantissas are noise: ~7% at best), while
deflating and inflating them costs seconds per hundred MB; the compression level is
therefore chosen from samples of the content: deflate when it pays, store otherwise.
The choice is a function of the bytes, so it stays deterministic.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tarfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

GZIP_LEVEL = 6
STORE_ABOVE_RATIO = 0.8  # samples that deflate to more than this are stored
_SAMPLES = 16
_SAMPLE_BYTES = 64 * 1024
_MODES = {"model.so": 0o755}


def manifest_bytes(manifest: Mapping[str, Any]) -> bytes:
    """The manifest as canonical JSON text (sorted keys, two-space indent, final newline)."""
    return (json.dumps(manifest, sort_keys=True, indent=2, allow_nan=False) + "\n").encode()


def compression_level(data: bytes) -> int:
    """The gzip level for `data` (an artifact's largest file): GZIP_LEVEL when evenly
    spaced samples of it deflate well, else 0 (stored)."""
    if len(data) <= _SAMPLES * _SAMPLE_BYTES:
        sample = data
    else:
        stride = len(data) // _SAMPLES
        sample = b"".join(data[i * stride : i * stride + _SAMPLE_BYTES] for i in range(_SAMPLES))
    if not sample:
        return GZIP_LEVEL
    ratio = len(zlib.compress(sample, GZIP_LEVEL)) / len(sample)
    return GZIP_LEVEL if ratio <= STORE_ABOVE_RATIO else 0


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


def write_tarball(files: Mapping[str, bytes], stream: BinaryIO) -> None:
    """Write the .tar.gz of `files` (name -> content) to `stream`, deterministically."""
    level = compression_level(max(files.values(), key=len, default=b""))
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=stream, mtime=0, compresslevel=level) as gz,
        tarfile.open(fileobj=gz, mode="w|", format=tarfile.USTAR_FORMAT) as tar,
    ):
        for name in sorted(files):
            data = files[name]
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            info.mode = _MODES.get(name, 0o644)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))


def pack_tarball(files: Mapping[str, bytes]) -> bytes:
    """The .tar.gz bytes of `files` (name -> content), deterministic."""
    buffer = io.BytesIO()
    write_tarball(files, buffer)
    return buffer.getvalue()


def write_artifact(out_dir: Path, files: Mapping[str, bytes]) -> tuple[Path, str, int]:
    """Pack `files` into `out_dir/<sha256>.tar.gz` (atomically: written aside, then renamed);
    returns the path, the sha256 and the size in bytes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    partial = out_dir / f".artifact-{os.getpid()}-{id(files)}.partial"
    try:
        with partial.open("wb") as handle:
            writer = _HashingWriter(handle)
            write_tarball(files, writer)  # type: ignore[arg-type]
        digest = writer.sha256.hexdigest()
        path = out_dir / f"{digest}.tar.gz"
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path, digest, writer.size_bytes
