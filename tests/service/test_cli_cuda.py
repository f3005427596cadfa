"""`autotune compile/run --target cuda...` as real subprocesses: compiling to PTX needs only
nvcc; running without pycuda or a GPU is one clear error line, never a traceback."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest

from codegen.runtime.cuda_loader import is_cuda_artifact
from tests.codegen.aot.conftest import small_conv_model
from tests.codegen.cuda.support import require_nvcc
from tests.support.cli import AUTOTUNE

needs_no_pycuda = pytest.mark.skipif(
    importlib.util.find_spec("pycuda") is not None, reason="pycuda is installed"
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AUTOTUNE, *args], capture_output=True, text=True, timeout=600, check=False
    )


def _one_clear_error(result: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert result.returncode == 1, result.stderr
    assert fragment in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("cuda-cli")
    path = directory / "small.onnx"
    onnx.save(small_conv_model(), str(path))
    np.save(directory / "x.npy", np.zeros((1, 4, 6, 6), np.float32))
    return path


def test_compile_for_cuda_writes_a_ptx_artifact(model: Path, tmp_path: Path) -> None:
    require_nvcc()
    out = tmp_path / "model.tar.gz"
    result = _run("compile", str(model), "--target", "cuda -arch=sm_90", "-o", str(out), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["target"] == "cuda -arch=sm_90" and report["misses"] == 3
    assert is_cuda_artifact(out)


@needs_no_pycuda
def test_running_a_cuda_artifact_without_pycuda_is_one_clear_error(
    model: Path, tmp_path: Path
) -> None:
    require_nvcc()
    out = tmp_path / "model.tar.gz"
    assert (
        _run("compile", str(model), "--target", "cuda -arch=sm_90", "-o", str(out)).returncode == 0
    )
    x = f"x={model.parent / 'x.npy'}"
    _one_clear_error(_run("run", str(out), "--input", x), "pip install autotune[gpu]")


@needs_no_pycuda
def test_running_a_model_on_cuda_without_pycuda_is_one_clear_error(model: Path) -> None:
    x = f"x={model.parent / 'x.npy'}"
    result = _run("run", str(model), "--target", "cuda -arch=sm_90", "--input", x)
    _one_clear_error(result, "pycuda is not installed: pip install autotune[gpu]")
    plain = _run("run", str(model), "--target", "cuda", "--input", x)
    _one_clear_error(plain, "names no architecture")
    _one_clear_error(_run("run", str(model), "--target", "opencl"), "expected llvm")
