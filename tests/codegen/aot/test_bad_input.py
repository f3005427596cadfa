"""Bad artifacts fail to load with a clear message; bad inputs are refused naming the input
and the shape it expects; nothing runs on a corrupt library."""

from __future__ import annotations

import gzip
import io
import shutil
import tarfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from codegen.runtime.loader import ArtifactError, ArtifactInputError, load_artifact
from tests.codegen.aot.conftest import CompiledCase


def _members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        result = {}
        for member in tar:
            extracted = tar.extractfile(member)
            assert extracted is not None
            result[member.name] = extracted.read()
        return result


def _repack(files: dict[str, bytes], path: Path, level: int = 9) -> Path:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(raw.getvalue(), level))
    return path


def test_a_truncated_artifact_fails_to_load(squeezenet: CompiledCase, tmp_path: Path) -> None:
    data = squeezenet.artifact.path.read_bytes()
    truncated = tmp_path / "model.tar.gz"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(ArtifactError, match="corrupt or truncated"):
        load_artifact(truncated)


def test_a_flipped_bit_in_the_compressed_data_fails(
    squeezenet: CompiledCase, tmp_path: Path
) -> None:
    data = bytearray(squeezenet.artifact.path.read_bytes())
    data[len(data) // 2] ^= 0x01
    for name in (squeezenet.artifact.path.name, "renamed.tar.gz"):
        copy = tmp_path / name
        copy.write_bytes(bytes(data))
        with pytest.raises(ArtifactError, match="corrupt"):
            load_artifact(copy)


def test_a_library_that_does_not_match_its_manifest_is_never_loaded(
    squeezenet: CompiledCase, tmp_path: Path
) -> None:
    files = _members(squeezenet.artifact.path)
    library = bytearray(files["model.so"])
    library[len(library) // 3] ^= 0xFF
    files["model.so"] = bytes(library)
    with pytest.raises(ArtifactError, match=r"model\.so does not match the sha256 in its manifest"):
        load_artifact(_repack(files, tmp_path / "tampered.tar.gz"))


def test_weights_that_do_not_match_their_manifest_are_refused(
    squeezenet: CompiledCase, tmp_path: Path
) -> None:
    files = _members(squeezenet.artifact.path)
    del files["weights.bin"]
    with pytest.raises(ArtifactError, match=r"is missing its weights weights\.bin"):
        load_artifact(_repack(files, tmp_path / "no-weights.tar.gz"))
    files = _members(squeezenet.artifact.path)
    files["weights.bin"] = files["weights.bin"][:-64]
    with pytest.raises(ArtifactError, match=r"weights\.bin holds \d+ bytes, its manifest says"):
        load_artifact(_repack(files, tmp_path / "short-weights.tar.gz"))
    # Kept in a cache, the weights are hashed: changed bytes of the right size are refused.
    files = _members(squeezenet.artifact.path)
    weights = bytearray(files["weights.bin"])
    weights[len(weights) // 2] ^= 0x01
    files["weights.bin"] = bytes(weights)
    tampered = _repack(files, tmp_path / "tampered-weights.tar.gz")
    with pytest.raises(ArtifactError, match=r"weights\.bin does not match the sha256"):
        load_artifact(tampered, cache_dir=str(tmp_path / "cache"))


def test_the_c_abi_refuses_missing_or_misaligned_weights(squeezenet: CompiledCase) -> None:
    with load_artifact(squeezenet.artifact.path) as model:
        library = model._lib
        assert library.autotune_create(None) is None
        weights = np.zeros(library.autotune_weights_bytes() + 64, np.uint8)
        misaligned = weights.ctypes.data + (1 if weights.ctypes.data % 64 == 0 else 0)
        assert library.autotune_create(misaligned) is None


def test_not_an_artifact(squeezenet: CompiledCase, tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.tar.gz"
    garbage.write_bytes(b"not a tarball at all")
    with pytest.raises(ArtifactError, match="corrupt or truncated"):
        load_artifact(garbage)
    files = _members(squeezenet.artifact.path)
    del files["manifest.json"]
    with pytest.raises(ArtifactError, match=r"has no manifest\.json"):
        load_artifact(_repack(files, tmp_path / "no-manifest.tar.gz"))
    with pytest.raises(ArtifactError, match="cannot read artifact"):
        load_artifact(tmp_path / "missing.tar.gz")


def test_an_incompatible_manifest_is_refused(squeezenet: CompiledCase, tmp_path: Path) -> None:
    files = _members(squeezenet.artifact.path)
    files["manifest.json"] = files["manifest.json"].replace(
        b'"abi_version": 3', b'"abi_version": 99'
    )
    with pytest.raises(ArtifactError, match="ABI version 99"):
        load_artifact(_repack(files, tmp_path / "future.tar.gz"))


def test_wrong_inputs_are_refused_naming_the_input(squeezenet: CompiledCase) -> None:
    ((name, value),) = squeezenet.inputs.items()
    expected = f"input {name!r}: expected shape {list(value.shape)} float32"
    with load_artifact(squeezenet.artifact.path) as model:
        with pytest.raises(ArtifactInputError, match=expected.replace("[", r"\[")):
            model.run({name: value[..., :-1]})
        last = value.ndim - 1
        wanted = value.shape[-1]
        with pytest.raises(
            ArtifactInputError, match=rf"\(dim {last} is {wanted - 1}, not {wanted}\)$"
        ):
            model.run({name: value[..., :-1]})
        with pytest.raises(ArtifactInputError, match=rf"\(rank 1, not {value.ndim}\)$"):
            model.run({name: value.reshape(-1)})
        with pytest.raises(ArtifactInputError, match=r"got shape .* float64"):
            model.run({name: value.astype(np.float64)})
        with pytest.raises(ArtifactInputError, match=f"missing input {name!r}"):
            model.run({})
        with pytest.raises(ArtifactInputError, match=r"unknown input\(s\) \['other'\]"):
            model.run({name: value, "other": value})
        # A strided view of the right shape is fine: the loader makes it contiguous.
        wide = np.repeat(value, 2, axis=-1)[..., ::2]
        np.testing.assert_array_equal(
            model.run({name: wide})[model.outputs[0].name],
            model.run({name: value})[model.outputs[0].name],
        )


def test_a_closed_artifact_does_not_run(squeezenet: CompiledCase, tmp_path: Path) -> None:
    copy = tmp_path / "copy.tar.gz"
    shutil.copy(squeezenet.artifact.path, copy)
    model = load_artifact(copy)
    model.close()
    with pytest.raises(ArtifactError, match="is closed"):
        model.run(squeezenet.inputs)


def _tar_bytes(path: Path) -> bytes:
    with gzip.open(path) as stream:
        return stream.read()


def test_any_valid_gzip_framing_loads(squeezenet: CompiledCase, tmp_path: Path) -> None:
    """The loader parses gzip itself: optional header fields (name, comment, extra, header
    CRC) and a stream split into several members (as `cat a.gz b.gz` makes) all load."""
    tar = _tar_bytes(squeezenet.artifact.path)
    expected = squeezenet.model.graph.output[0].name
    header = bytearray(b"\x1f\x8b\x08\x1e\0\0\0\0\0\xff")  # FEXTRA | FNAME | FCOMMENT | FHCRC
    header += b"\x04\0abcd" + b"model.tar\0" + b"a comment\0"
    header += (zlib.crc32(bytes(header)) & 0xFFFF).to_bytes(2, "little")
    deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflate.compress(tar) + deflate.flush()
    trailer = zlib.crc32(tar).to_bytes(4, "little") + len(tar).to_bytes(4, "little")
    framed = tmp_path / "framed.tar.gz"
    framed.write_bytes(bytes(header) + body + trailer)
    split = tmp_path / "split.tar.gz"
    half = len(tar) // 2
    split.write_bytes(gzip.compress(tar[:half], 0) + gzip.compress(tar[half:], 9) + b"\0" * 512)
    for path in (framed, split):
        with load_artifact(path) as model:
            outputs = model.run(squeezenet.inputs)
        assert outputs[expected].shape == tuple(
            d.dim_value for d in squeezenet.model.graph.output[0].type.tensor_type.shape.dim
        )


def test_a_wrong_gzip_trailer_fails(squeezenet: CompiledCase, tmp_path: Path) -> None:
    """A trailer whose CRC-32 or length does not match the data: refused when the name
    carries no hash (the CRC is then the stream's own check), and when it does (the
    name's sha256 no longer matches)."""
    data = squeezenet.artifact.path.read_bytes()
    for offset, pattern in ((-8, "CRC-32 does not match"), (-4, "length does not match")):
        damaged = bytearray(data)
        damaged[offset] ^= 0x01
        renamed = tmp_path / "renamed.tar.gz"
        renamed.write_bytes(bytes(damaged))
        with pytest.raises(ArtifactError, match=f"corrupt or truncated.*{pattern}"):
            load_artifact(renamed)
        hash_named = tmp_path / squeezenet.artifact.path.name
        hash_named.write_bytes(bytes(damaged))
        with pytest.raises(ArtifactError, match="corrupt"):
            load_artifact(hash_named)


def _stored_blocks(data: bytes) -> bytes:
    """`data` as non-final stored deflate blocks."""
    out = bytearray()
    for start in range(0, len(data), 65535):
        block = data[start : start + 65535]
        out += (
            b"\0" + len(block).to_bytes(2, "little") + (len(block) ^ 0xFFFF).to_bytes(2, "little")
        )
        out += block
    return bytes(out)


def test_stored_blocks_followed_by_compressed_ones_load(
    squeezenet: CompiledCase, tmp_path: Path
) -> None:
    """Stored blocks are read without zlib; a compressed block after them (as `gzip -1`
    writes for mixed content) may refer back into the stored bytes, and still inflates."""
    tar = _tar_bytes(squeezenet.artifact.path)
    split = len(tar) // 3
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS, zdict=tar[split - 32768 : split])
    body = _stored_blocks(tar[:split]) + deflate.compress(tar[split:]) + deflate.flush()
    trailer = zlib.crc32(tar).to_bytes(4, "little") + len(tar).to_bytes(4, "little")
    mixed = tmp_path / "mixed.tar.gz"
    mixed.write_bytes(b"\x1f\x8b\x08\0\0\0\0\0\0\xff" + body + trailer)
    assert gzip.decompress(mixed.read_bytes()) == tar
    with load_artifact(mixed) as model, load_artifact(squeezenet.artifact.path) as reference:
        name = model.outputs[0].name
        np.testing.assert_array_equal(
            model.run(squeezenet.inputs)[name], reference.run(squeezenet.inputs)[name]
        )
    damaged = bytearray(mixed.read_bytes())
    damaged[10 + 3] ^= 0xFF  # the first stored block's NLEN no longer matches its LEN
    mixed.write_bytes(bytes(damaged))
    with pytest.raises(ArtifactError, match=r"corrupt or truncated.*stored block"):
        load_artifact(mixed)


@pytest.mark.timeout(60)
def test_a_highly_compressed_artifact_loads(squeezenet: CompiledCase, tmp_path: Path) -> None:
    """A small file that inflates to many times its size (here: megabytes of zeros in a
    member the loader skips) is inflated in bounded pieces and its end is found."""
    files = _members(squeezenet.artifact.path)
    files["zeros.bin"] = bytes(16 << 20)
    with load_artifact(_repack(files, tmp_path / "compressible.tar.gz")) as model:
        assert model.run(squeezenet.inputs)[model.outputs[0].name].shape
