"""Large weights are laid out page-aligned in the tarball and mapped from the file, not
copied: every segment's bytes start on a page, any gzip reader still reads the stream, the
loader checks every segment's CRC-32, and a layout it does not recognise is read the usual
way."""

from __future__ import annotations

import gc
import gzip
import io
import itertools
import os
import struct
import sys
import tarfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from codegen.aot.package import PAGE_BYTES, SEGMENT_BYTES, pack_tarball
from codegen.runtime.loader import Artifact, ArtifactError, load_artifact
from tests.codegen.aot.conftest import CompiledCase

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="weights are mapped on Linux only"
)


def _files(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar}  # type: ignore[union-attr]


def _aligned(case: CompiledCase, path: Path) -> Path:
    """The case's artifact repacked with its weights page-aligned, however small."""
    data = pack_tarball(
        _files(case.artifact.path), page_aligned=("weights.bin",), aligned_min_bytes=0
    )
    path.write_bytes(data)
    return path


def _segment_offsets(data: bytes) -> list[int]:
    """File offsets of the stored bytes of every "AW" member, by walking the members."""
    offsets = []
    position = data.find(b"\x1f\x8b\x08\x04")
    while data[position : position + 4] == b"\x1f\x8b\x08\x04":
        xlen = struct.unpack_from("<H", data, position + 10)[0]
        assert data[position + 12 : position + 14] == b"AW"
        block = position + 12 + xlen
        length = struct.unpack_from("<H", data, block + 1)[0]
        offsets.append(block + 5)
        position = block + 5 + length + 8
    return offsets


def _mapped_files() -> set[str]:
    with open("/proc/self/maps") as maps:
        return {line.split(maxsplit=5)[-1].strip() for line in maps if "/" in line}


def _logits(model: Artifact, case: CompiledCase) -> np.ndarray:
    return model.run(case.inputs)[model.outputs[0].name]


def test_segments_start_on_pages_and_any_reader_reads_them(
    squeezenet: CompiledCase, tmp_path: Path
) -> None:
    files = _files(squeezenet.artifact.path)
    data = _aligned(squeezenet, tmp_path / "aligned.tar.gz").read_bytes()
    offsets = _segment_offsets(data)
    weights = files["weights.bin"]
    assert len(offsets) == -(-len(weights) // SEGMENT_BYTES) > 1
    assert all(offset % PAGE_BYTES == 0 for offset in offsets)
    # Between two segments' bytes: one page (the trailer, the next header and its padding).
    assert {b - a for a, b in itertools.pairwise(offsets)} == {SEGMENT_BYTES + PAGE_BYTES}
    assert data[offsets[0] : offsets[0] + SEGMENT_BYTES] == weights[:SEGMENT_BYTES]
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        assert {m.name: tar.extractfile(m).read() for m in tar} == files  # type: ignore[union-attr]
    assert gzip.decompress(data) == gzip.decompress(squeezenet.artifact.path.read_bytes())
    # Deterministic, like every packing.
    assert pack_tarball(files, ("weights.bin",), 0) == data


def test_aligned_weights_are_mapped_from_the_artifact(
    squeezenet: CompiledCase, tmp_path: Path
) -> None:
    aligned = _aligned(squeezenet, tmp_path / "aligned.tar.gz")
    with load_artifact(squeezenet.artifact.path) as plain:
        expected = _logits(plain, squeezenet)
    model = load_artifact(aligned)
    assert str(aligned) in _mapped_files()
    np.testing.assert_array_equal(_logits(model, squeezenet), expected)
    model.close()
    gc.collect()
    assert str(aligned) not in _mapped_files(), "closing the model unmaps its weights"


def test_a_flipped_bit_in_a_mapped_segment_is_refused(
    squeezenet: CompiledCase, tmp_path: Path
) -> None:
    aligned = _aligned(squeezenet, tmp_path / "aligned.tar.gz")
    data = bytearray(aligned.read_bytes())
    offsets = _segment_offsets(bytes(data))
    data[offsets[1] + 1234] ^= 0x10
    aligned.write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match=r"corrupt.*CRC-32 does not match"):
        load_artifact(aligned)
    data = bytearray(data)
    data[offsets[1] + 1234] ^= 0x10
    data[offsets[2] + SEGMENT_BYTES] ^= 0x01  # the second segment's trailer CRC
    aligned.write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match=r"corrupt.*CRC-32 does not match"):
        load_artifact(aligned)


def test_a_truncated_aligned_artifact_is_refused(squeezenet: CompiledCase, tmp_path: Path) -> None:
    aligned = _aligned(squeezenet, tmp_path / "aligned.tar.gz")
    data = aligned.read_bytes()
    offsets = _segment_offsets(data)
    for cut in (offsets[-1] + 100, offsets[len(offsets) // 2]):
        aligned.write_bytes(data[:cut])
        with pytest.raises(ArtifactError, match="corrupt or truncated"):
            load_artifact(aligned)


def test_a_layout_the_loader_does_not_recognise_is_read_the_usual_way(
    squeezenet: CompiledCase, tmp_path: Path
) -> None:
    """A member in the middle with another subfield id (still a valid gzip stream) means the
    weights are not mapped: they are read and checked as any gzip data."""
    aligned = _aligned(squeezenet, tmp_path / "aligned.tar.gz")
    data = bytearray(aligned.read_bytes())
    offsets = _segment_offsets(bytes(data))
    subfield = offsets[3] - PAGE_BYTES + 8 + 12  # that member's header: 10 bytes, XLEN, then id
    assert data[subfield : subfield + 2] == b"AW"
    data[subfield + 1 : subfield + 2] = b"X"
    aligned.write_bytes(bytes(data))
    assert gzip.decompress(bytes(data)) == gzip.decompress(squeezenet.artifact.path.read_bytes())
    with load_artifact(squeezenet.artifact.path) as plain:
        expected = _logits(plain, squeezenet)
    with load_artifact(aligned) as model:
        assert str(aligned) not in _mapped_files()
        np.testing.assert_array_equal(_logits(model, squeezenet), expected)


def test_the_cache_keeps_mapped_weights(squeezenet: CompiledCase, tmp_path: Path) -> None:
    aligned = _aligned(squeezenet, tmp_path / "aligned.tar.gz")
    cache = tmp_path / "cache"
    with load_artifact(squeezenet.artifact.path) as plain:
        expected = _logits(plain, squeezenet)
    for _ in range(2):
        with load_artifact(aligned, cache_dir=str(cache)) as model:
            np.testing.assert_array_equal(_logits(model, squeezenet), expected)
    (entry,) = cache.iterdir()
    assert (entry / "weights.bin").read_bytes() == _files(aligned)["weights.bin"]


def test_small_or_compressible_weights_stay_compact() -> None:
    noise = os.urandom(3 * SEGMENT_BYTES)
    zeros = bytes(3 * SEGMENT_BYTES)
    for weights, aligned in ((noise, True), (zeros, False)):
        data = pack_tarball({"weights.bin": weights}, ("weights.bin",), 0)
        assert (b"AW" in data[:64]) is False  # the first member holds the tar header
        assert (_segment_offsets(data) != []) is aligned
    compact = pack_tarball({"weights.bin": noise}, ("weights.bin",))
    assert _segment_offsets(compact) == []
    assert zlib.decompress(compact, 31)[512 : 512 + len(noise)] == noise
