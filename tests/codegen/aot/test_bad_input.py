"""Bad artifacts fail to load with a clear message; bad inputs are refused naming the input
and the shape it expects; nothing runs on a corrupt library."""

from __future__ import annotations

import gzip
import io
import shutil
import tarfile
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


def _repack(files: dict[str, bytes], path: Path) -> Path:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(raw.getvalue()))
    return path


def test_a_truncated_artifact_fails_to_load(squeezenet: CompiledCase, tmp_path: Path) -> None:
    data = squeezenet.artifact.path.read_bytes()
    truncated = tmp_path / "model.tar.gz"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(ArtifactError, match="corrupt or truncated"):
        load_artifact(truncated)


def test_a_hash_named_artifact_whose_bytes_changed_fails(
    squeezenet: CompiledCase, tmp_path: Path
) -> None:
    copy = tmp_path / squeezenet.artifact.path.name
    data = bytearray(squeezenet.artifact.path.read_bytes())
    data[4] ^= 0x01  # the gzip header's mtime: still inflates, so only the name's hash tells
    copy.write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match="does not hash to the sha256 in its name"):
        load_artifact(copy)


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
        b'"abi_version": 1', b'"abi_version": 99'
    )
    with pytest.raises(ArtifactError, match="ABI version 99"):
        load_artifact(_repack(files, tmp_path / "future.tar.gz"))


def test_wrong_inputs_are_refused_naming_the_input(squeezenet: CompiledCase) -> None:
    ((name, value),) = squeezenet.inputs.items()
    expected = f"input {name!r}: expected shape {list(value.shape)} float32"
    with load_artifact(squeezenet.artifact.path) as model:
        with pytest.raises(ArtifactInputError, match=expected.replace("[", r"\[")):
            model.run({name: value[..., :-1]})
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
