"""`autotune run MODEL.onnx --profile`, as a real subprocess: the table and its JSON form,
and a clear error where there are no kernels to time one by one."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import onnx

from tests.codegen.aot.conftest import small_conv_model
from tests.support.cli import AUTOTUNE


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AUTOTUNE, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def test_run_with_a_profile(tmp_path: Path) -> None:
    onnx.save(small_conv_model(), str(tmp_path / "small.onnx"))
    np.save(tmp_path / "x.npy", np.ones((1, 4, 6, 6), np.float32))
    completed = _run(
        "run", "small.onnx", "--input", "x=x.npy", "--profile", "3", "--json", cwd=tmp_path
    )
    assert completed.returncode == 0, completed.stderr
    profile = json.loads(completed.stdout)["profile"]
    assert profile["runs"] == 3 and profile["latency_ms"] > 0
    assert sum(kernel["share"] for kernel in profile["kernels"]) > 0.999
    assert {"gflops", "gbs", "roofline_efficiency", "calls", "name"} <= set(profile["kernels"][0])
    text = _run("run", "small.onnx", "--input", "x=x.npy", "--profile", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "median of 20" in text.stdout and "GFLOPS" in text.stdout
    assert "share" in text.stdout and "fused_" in text.stdout


def test_profile_needs_an_onnx_model_run_here(tmp_path: Path) -> None:
    onnx.save(small_conv_model(), str(tmp_path / "small.onnx"))
    np.save(tmp_path / "x.npy", np.ones((1, 4, 6, 6), np.float32))
    artifact = _run("compile", "small.onnx", "-o", "small.tar.gz", cwd=tmp_path)
    assert artifact.returncode == 0, artifact.stderr
    refused = _run("run", "small.tar.gz", "--input", "x=x.npy", "--profile", cwd=tmp_path)
    assert refused.returncode != 0
    assert "--profile" in refused.stderr and "artifact" in refused.stderr
    assert "Traceback" not in refused.stderr
    none = _run("run", "small.onnx", "--input", "x=x.npy", "--profile", "0", cwd=tmp_path)
    assert none.returncode != 0 and "at least one run" in none.stderr
    assert "Traceback" not in none.stderr


def test_run_compiles_for_this_cpu_as_target_names_it_and_refuses_another(
    tmp_path: Path,
) -> None:
    """--target for `run` names this CPU (its core count may differ: the profile's copy
    roofs are measured with those cores); another CPU, or a feature added with -mattr,
    is refused by name, not ignored: its code might not run here."""
    from codegen.llvm import host_target

    onnx.save(small_conv_model(), str(tmp_path / "small.onnx"))
    np.save(tmp_path / "x.npy", np.ones((1, 4, 6, 6), np.float32))
    host = host_target()
    one_core = f"llvm -mcpu={host.mcpu} -num-cores=1"
    ran = _run("run", "small.onnx", "--input", "x=x.npy", "--target", one_core, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    other = "znver3" if host.mcpu != "znver3" else "skylake"
    for target in (f"llvm -mcpu={other}", f"llvm -mcpu={host.mcpu} -mattr=+avx512fp16"):
        refused = _run("run", "small.onnx", "--input", "x=x.npy", "--target", target, cwd=tmp_path)
        assert refused.returncode != 0 and "Traceback" not in refused.stderr
        assert "run executes the model here" in refused.stderr, refused.stderr
