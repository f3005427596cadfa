"""Same model + same records -> byte-identical artifact, also from another process (with
another hash seed); the tarball is packed with fixed metadata."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import tarfile
from pathlib import Path

from codegen.aot.package import compression_level, pack_tarball
from tests.codegen.aot.conftest import CompiledCase, compile_onnx

BUILD_IN_CHILD = """
import sys
from pathlib import Path
from tests.codegen.aot.conftest import compile_onnx, logits_model
print(compile_onnx(logits_model("light_squeezenet"), Path(sys.argv[1])).sha256)
"""


def test_the_same_model_gives_the_same_artifact(squeezenet: CompiledCase, tmp_path: Path) -> None:
    again = compile_onnx(squeezenet.model, tmp_path / "again")
    assert again.sha256 == squeezenet.artifact.sha256
    assert again.path.name == f"{again.sha256}.tar.gz"
    assert again.path.read_bytes() == squeezenet.artifact.path.read_bytes()
    env = dict(os.environ, PYTHONHASHSEED="12345")
    child = subprocess.run(
        [sys.executable, "-c", BUILD_IN_CHILD, str(tmp_path / "child")],
        cwd=Path(__file__).resolve().parents[3],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    assert child.stdout.split()[-1] == squeezenet.artifact.sha256


def test_the_tarball_has_fixed_metadata(squeezenet: CompiledCase) -> None:
    data = squeezenet.artifact.path.read_bytes()
    assert data[4:8] == b"\0\0\0\0", "the gzip header must carry no timestamp"
    with tarfile.open(squeezenet.artifact.path) as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == ["manifest.json", "model.h", "model.so", "weights.bin"]
    assert all(m.mtime == 0 and m.uid == 0 and m.gid == 0 and m.uname == "" for m in members)


def test_packing_is_a_function_of_the_files() -> None:
    files = {"b.txt": b"second", "a.txt": b"first" * 100}
    assert pack_tarball(files) == pack_tarball(dict(reversed(files.items())))
    assert gzip.decompress(pack_tarball(files))[:5] == b"a.txt"


def test_incompressible_content_is_stored() -> None:
    noise = os.urandom(1 << 20)
    assert compression_level(noise) == 0
    assert compression_level(b"\0" * (1 << 20)) > 0
