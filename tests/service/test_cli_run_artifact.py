"""`autotune run ARTIFACT.tar.gz`, as a real subprocess: outputs match onnxruntime, --bench
and --json work, and bad inputs or artifacts give one clear line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest

from ir.reference import check_close
from tests.codegen.aot.conftest import small_conv_model
from tests.support.cli import AUTOTUNE
from tests.support.onnx_models import run_onnxruntime
from tuner.artifact_build import ArtifactBuild, build_artifact

INPUT = np.random.default_rng(5).normal(0, 1, (1, 4, 6, 6)).astype(np.float32)


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AUTOTUNE, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[onnx.ModelProto, ArtifactBuild]:
    directory = tmp_path_factory.mktemp("artifact")
    model = small_conv_model()
    onnx.save(model, str(directory / "small.onnx"))
    return model, build_artifact(directory / "small.onnx", "llvm", [], directory)


def test_run_an_artifact(built: tuple[onnx.ModelProto, ArtifactBuild], tmp_path: Path) -> None:
    model, build = built
    np.save(tmp_path / "x.npy", INPUT)
    completed = _run(
        "run", str(build.path), "--input", "x=x.npy", "--output", "out.npz", "--bench", "3",
        "--json", cwd=tmp_path,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["outputs"] == [{"shape": [1, 10], "dtype": "float32"}]
    assert report["latency_ms"]["runs"] == 3 and report["load_ms"] > 0
    with np.load(tmp_path / "out.npz") as outputs:
        actual = outputs["output_0"]
    check_close(actual, run_onnxruntime(model, {"x": INPUT}, "y"), 1e-4, 1e-5, what="run")
    text = _run("run", str(build.path), "--input", "x=x.npy", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "output 0: 1x10 float32" in text.stdout and "loaded the artifact" in text.stdout


def test_bad_inputs_and_artifacts(
    built: tuple[onnx.ModelProto, ArtifactBuild], tmp_path: Path
) -> None:
    _, build = built
    np.save(tmp_path / "wrong.npy", INPUT[..., :5])
    shape = _run("run", str(build.path), "--input", "x=wrong.npy", cwd=tmp_path)
    assert shape.returncode == 1
    assert shape.stderr.strip() == (
        "autotune run: error: input 'x': expected shape [1, 4, 6, 6] float32, "
        "got shape [1, 4, 6, 5] float32 (dim 3 is 5, not 6)"
    )
    np.save(tmp_path / "double.npy", INPUT.astype(np.float64))
    dtype = _run("run", str(build.path), "--input", "x=double.npy", cwd=tmp_path)
    assert dtype.returncode == 1 and "expected shape [1, 4, 6, 6] float32" in dtype.stderr
    truncated = tmp_path / "cut.tar.gz"
    truncated.write_bytes(build.path.read_bytes()[:200])
    np.save(tmp_path / "x.npy", INPUT)
    cut = _run("run", str(truncated), "--input", "x=x.npy", cwd=tmp_path)
    assert cut.returncode == 1 and "Traceback" not in cut.stderr
    assert "corrupt or truncated" in cut.stderr
    records = _run(
        "run", str(build.path), "--input", "x=x.npy", "--records", "r.jsonl", cwd=tmp_path
    )
    assert records.returncode == 1 and "apply to ONNX models" in records.stderr
    twice = _run("run", str(build.path), "--input", "x=x.npy", "--input", "x=wrong.npy",
                 cwd=tmp_path)  # fmt: skip
    assert twice.returncode == 1
    assert twice.stderr.strip() == "autotune run: error: --input x is given twice"
    (tmp_path / "x.txt").write_text("1 2 3\n")
    text_input = _run("run", str(build.path), "--input", "x=x.txt", cwd=tmp_path)
    assert text_input.returncode == 1 and "Traceback" not in text_input.stderr
    assert text_input.stderr.strip() == (
        "autotune run: error: --input x: x.txt is not a .npy file (numpy.save's format)"
    )
