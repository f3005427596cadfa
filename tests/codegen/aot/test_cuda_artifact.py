"""CUDA artifacts: PTX from nvcc and a launch plan consistent with it, built without a GPU
for light models; the CUDA loader's checks without pycuda; running only on a GPU."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import tarfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from codegen.aot.cuda_build import PTX_FILE, WEIGHTS_FILE
from codegen.runtime import cuda_loader
from codegen.runtime.cuda_loader import CudaArtifactError, is_cuda_artifact, load_cuda_artifact
from codegen.runtime.loader import ArtifactError, load_artifact
from ir.schedule.gpu import GpuParams
from tests.codegen.aot.conftest import small_conv_model
from tests.codegen.cuda.support import require_nvcc
from tests.support.gpu import needs_gpu
from tests.support.onnx_models import light_model_path, run_onnxruntime
from tuner.artifact_build import ArtifactBuild, build_artifact

TARGET = "cuda -arch=sm_90"
MODELS = ("light_squeezenet", "light_shufflenet", "small_conv")
LIMITS = GpuParams()


def _model_path(name: str, directory: Path) -> Path:
    if name != "small_conv":
        return light_model_path(name)
    path = directory / "small_conv.onnx"
    if not path.exists():
        onnx.save(small_conv_model(), str(path))
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ArtifactBuild]:
    require_nvcc()
    directory = tmp_path_factory.mktemp("cuda-artifacts")
    return {
        name: build_artifact(_model_path(name, directory), TARGET, [], directory) for name in MODELS
    }


def _members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]


def _check_argument(argument: dict[str, Any], manifest: dict[str, Any]) -> None:
    memory = manifest["memory"]
    if argument["kind"] in ("input", "output"):
        spec = manifest[f"{argument['kind']}s"][argument["index"]]
        nbytes = int(np.prod(spec["shape"])) * np.dtype(spec["dtype"]).itemsize
        assert argument["nbytes"] == nbytes
    elif argument["kind"] == "weight":
        assert (
            argument["offset"] >= 0
            and argument["offset"] + argument["nbytes"] <= (memory["weights_bytes"])
        )
    else:
        assert argument["kind"] == "workspace"
        assert argument["offset"] % 64 == 0
        assert argument["offset"] + argument["nbytes"] <= memory["workspace_bytes"]


@pytest.mark.parametrize("name", MODELS)
def test_the_launch_plan_matches_the_ptx(built: dict[str, ArtifactBuild], name: str) -> None:
    build = built[name]
    manifest = build.manifest
    members = _members(build.path)
    assert set(members) == {"manifest.json", PTX_FILE, WEIGHTS_FILE}
    assert json.loads(members["manifest.json"]) == manifest
    assert manifest["device"] == "cuda" and manifest["target"] == TARGET
    ptx = members[PTX_FILE].decode()
    assert re.search(r"^\.target sm_90\b", ptx, re.MULTILINE)
    assert hashlib.sha256(members[PTX_FILE]).hexdigest() == manifest["ptx"]["sha256"]
    assert len(members[WEIGHTS_FILE]) >= manifest["memory"]["weights_bytes"]
    # Every kernel of the plan is an entry of the PTX, and the other way round.
    entries = set(re.findall(r"\.entry\s+(\w+)", ptx))
    kernels = {kernel["name"]: kernel for kernel in manifest["launch"]["kernels"]}
    assert entries == set(kernels)
    for kernel in kernels.values():
        block, grid = kernel["block"], kernel["grid"]
        assert np.prod(block) <= LIMITS.max_threads_per_block
        assert all(0 < b <= m for b, m in zip(block, LIMITS.max_thread_extents, strict=True))
        assert all(0 < g <= m for g, m in zip(grid, LIMITS.max_grid_extents, strict=True))
        assert kernel["shared_bytes"] <= LIMITS.max_shared_memory_per_block
    # Every launch names a kernel of the plan and passes one buffer per parameter.
    written: set[int] = set()
    launched: set[str] = set()
    for launch in manifest["launch"]["launches"]:
        kernel = kernels[launch["kernel"]]
        launched.add(launch["kernel"])
        assert len(launch["args"]) == len(kernel["params"])
        for argument in launch["args"]:
            _check_argument(argument, manifest)
            if argument["kind"] == "output":
                written.add(argument["index"])
    assert launched == set(kernels)
    for copy in manifest["launch"]["copies"]:
        _check_argument(copy["source"], manifest)
        written.add(copy["output"])
    assert written == set(range(len(manifest["outputs"])))  # every output is produced
    assert manifest["coverage"]["misses"] == manifest["coverage"]["tasks"]  # no records


def test_the_cuda_artifact_is_deterministic(
    built: dict[str, ArtifactBuild], tmp_path: Path
) -> None:
    again = build_artifact(_model_path("small_conv", tmp_path), TARGET, [], tmp_path)
    assert again.sha256 == built["small_conv"].sha256


def test_the_runtime_folder_imports_nothing_else_from_autotune() -> None:
    """The loaders and their helpers import each other relatively, nothing else of ours: the
    folder is copied next to an artifact as it is."""
    folder = Path(cuda_loader.__file__).parent
    for path in folder.glob("*.py"):
        imports = re.findall(r"^\s*(?:from|import) (\w+)", path.read_text(), re.MULTILINE)
        assert not {"ir", "codegen", "tuner", "workers", "service"} & set(imports), path.name


def test_the_loader_tells_cuda_artifacts_apart(
    built: dict[str, ArtifactBuild], tmp_path: Path
) -> None:
    assert is_cuda_artifact(built["small_conv"].path)
    cpu = build_artifact(_model_path("small_conv", tmp_path), "llvm", [], tmp_path / "cpu")
    assert not is_cuda_artifact(cpu.path)
    with pytest.raises(CudaArtifactError, match="not a CUDA artifact"):
        load_cuda_artifact(cpu.path)
    with pytest.raises(ArtifactError, match="built for a 'cuda' device, not this CPU"):
        load_artifact(built["small_conv"].path)


def test_a_corrupt_cuda_artifact_is_refused_before_the_gpu(
    built: dict[str, ArtifactBuild], tmp_path: Path
) -> None:
    data = bytearray(built["small_conv"].path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged = tmp_path / built["small_conv"].path.name
    damaged.write_bytes(bytes(data))
    with pytest.raises(CudaArtifactError, match="corrupt or truncated"):
        load_cuda_artifact(damaged)


@pytest.mark.skipif(importlib.util.find_spec("pycuda") is not None, reason="pycuda is installed")
def test_loading_without_pycuda_says_how_to_install_it(built: dict[str, ArtifactBuild]) -> None:
    with pytest.raises(
        CudaArtifactError, match=r"pycuda is not installed: pip install autotune\[gpu\]"
    ):
        load_cuda_artifact(built["small_conv"].path)


@needs_gpu("sm_90")
def test_the_cuda_artifact_runs_and_matches_onnxruntime(
    built: dict[str, ArtifactBuild], tmp_path: Path
) -> None:
    x = np.random.default_rng(0).standard_normal((1, 4, 6, 6)).astype(np.float32)
    expected = run_onnxruntime(small_conv_model(), {"x": x}, "y")
    with load_cuda_artifact(built["small_conv"].path) as model:
        outputs = model.run({"x": x})
        again = model.run({"x": x})
    np.testing.assert_allclose(outputs["y"], expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(outputs["y"], again["y"])


@needs_gpu("sm_90")
def test_the_launches_are_timed_one_by_one_and_leave_the_results_right(
    built: dict[str, ArtifactBuild],
) -> None:
    x = np.random.default_rng(1).standard_normal((1, 4, 6, 6)).astype(np.float32)
    expected = run_onnxruntime(small_conv_model(), {"x": x}, "y")
    with load_cuda_artifact(built["small_conv"].path) as model:
        timings = model.time_launches({"x": x}, repeats=3)
        launches = model.manifest["launch"]["launches"]
        kernels = {kernel["name"]: kernel for kernel in model.manifest["launch"]["kernels"]}
        assert [timing["kernel"] for timing in timings] == [launch["kernel"] for launch in launches]
        for timing in timings:
            assert timing["grid"] == kernels[timing["kernel"]]["grid"]
            assert timing["block"] == kernels[timing["kernel"]]["block"]
            assert 0 < timing["ms"] < 1e3
        with pytest.raises(ValueError, match="repeats must be at least 1"):
            model.time_launches({"x": x}, repeats=0)
        outputs = model.run({"x": x})
    np.testing.assert_allclose(outputs["y"], expected, rtol=1e-4, atol=1e-5)
