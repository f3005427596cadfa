"""Where the loader keeps libraries: in its cache, a second load maps the kept, checked
library and a damaged entry is not used; without one, in-memory files, each load its own."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from codegen.runtime.loader import Artifact, ArtifactError, load_artifact
from tests.codegen.aot.conftest import CompiledCase, compile_onnx, small_conv_model
from tests.support.onnx_models import run_onnxruntime


def _logits(model: Artifact, case: CompiledCase) -> np.ndarray:
    return model.run(case.inputs)[model.outputs[0].name]


def test_a_cached_library_and_weights_are_reused(squeezenet: CompiledCase, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with load_artifact(squeezenet.artifact.path) as plain:
        expected = _logits(plain, squeezenet)
    with load_artifact(squeezenet.artifact.path, cache_dir=str(cache)) as first:
        np.testing.assert_array_equal(_logits(first, squeezenet), expected)
    manifest = squeezenet.artifact.manifest
    key = hashlib.sha256(
        f"{manifest['library']['sha256']}:{manifest['weights']['sha256']}".encode()
    ).hexdigest()
    assert [p.name for p in cache.iterdir()] == [key]
    assert sorted(p.name for p in (cache / key).iterdir()) == ["model.so", "weights.bin"]
    with load_artifact(squeezenet.artifact.path, cache_dir=str(cache)) as second:
        np.testing.assert_array_equal(_logits(second, squeezenet), expected)
    # A cache entry of the wrong size is ignored: the artifact is extracted and checked.
    # The damaged file replaces the entry by rename: truncating a mapped file in place
    # would make this process die of SIGBUS when it next touches its pages.
    for name in ("model.so", "weights.bin"):
        damaged = tmp_path / f"damaged-{name}"
        damaged.write_bytes(b"damaged")
        damaged.replace(cache / key / name)
        with load_artifact(squeezenet.artifact.path, cache_dir=str(cache)) as again:
            np.testing.assert_array_equal(_logits(again, squeezenet), expected)


def test_models_with_one_library_and_other_weights_are_kept_apart(tmp_path: Path) -> None:
    """Two models that differ only in their weights compile to the same library; the cache
    must not hand one model's weights to the other."""
    cache = str(tmp_path / "cache")
    x = np.random.default_rng(1).normal(size=(1, 4, 6, 6)).astype(np.float32)
    for seed in (0, 1):
        model = small_conv_model(seed=seed)
        artifact = compile_onnx(model, tmp_path / f"seed{seed}")
        for _ in range(2):  # the second load comes from the cache
            with load_artifact(artifact.path, cache_dir=cache) as loaded:
                np.testing.assert_allclose(
                    loaded.run({"x": x})["y"], run_onnxruntime(model, {"x": x}, "y"), 1e-4, 1e-5
                )
    assert len(os.listdir(cache)) == 2


def test_artifacts_loaded_one_after_another_each_run_their_own_library(
    squeezenet: CompiledCase, tmp_path: Path
) -> None:
    small_model = small_conv_model()
    small = compile_onnx(small_model, tmp_path)
    x = np.random.default_rng(0).normal(size=(1, 4, 6, 6)).astype(np.float32)
    expected_small = run_onnxruntime(small_model, {"x": x}, "y")
    with load_artifact(squeezenet.artifact.path) as first:
        expected = _logits(first, squeezenet)
    # Closed artifacts free nothing a later load could be handed (a library is known to
    # dlopen by its path, an in-memory file's descriptor number).
    for _ in range(2):
        with load_artifact(small.path) as model:
            np.testing.assert_allclose(model.run({"x": x})["y"], expected_small, 1e-4, 1e-5)
        with load_artifact(squeezenet.artifact.path) as again:
            np.testing.assert_array_equal(_logits(again, squeezenet), expected)


def test_a_failed_load_leaves_no_descriptor_open(squeezenet: CompiledCase, tmp_path: Path) -> None:
    data = squeezenet.artifact.path.read_bytes()
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(data[: len(data) // 2])
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        with pytest.raises(ArtifactError, match="truncated"):
            load_artifact(truncated)
    assert len(os.listdir("/proc/self/fd")) == before
