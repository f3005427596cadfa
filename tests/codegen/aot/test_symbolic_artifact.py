"""One artifact for a range of shapes: a model with symbolic batch and sequence dims
compiles once, and its numpy loader and its C ABI run it at any shape within the bounds
(matching onnxruntime), refusing shapes outside them by input and dim."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import onnx
import pytest

from codegen.aot import ArtifactResult, build_model_artifact
from codegen.llvm import host_target
from codegen.runtime.loader import ArtifactInputError, load_artifact
from ir.frontend.onnx.importer import import_model
from ir.frontend.onnx.symbolic_dims import DimRange
from ir.graph.passes.pipeline import optimize
from tests.codegen.aot.conftest import build_c_example, run_c_example
from tests.ir.frontend.onnx_helpers import randn, run_onnxruntime
from tests.ir.frontend.test_onnx_transformer import HIDDEN, transformer_block
from tests.support.onnx_models import batched_cnn

SHAPES = [(1, 1), (2, 17), (4, 64), (3, 5)]


@pytest.fixture(scope="module")
def block_model() -> onnx.ModelProto:
    return transformer_block()


@pytest.fixture(scope="module")
def artifact(
    block_model: onnx.ModelProto, tmp_path_factory: pytest.TempPathFactory
) -> ArtifactResult:
    ranges = {"x": (DimRange(1, 4), DimRange(1, 64), HIDDEN)}
    imported = import_model(block_model, shape=ranges)
    out_dir = tmp_path_factory.mktemp("symbolic_artifact")
    return build_model_artifact(
        optimize(imported.function), host_target(), out_dir, output_names=imported.output_names
    )


def test_the_manifest_lists_the_size_variables_and_the_symbolic_dims(
    artifact: ArtifactResult,
) -> None:
    manifest = artifact.manifest
    assert manifest["sizes"] == [{"name": "batch", "upper": 4}, {"name": "seq", "upper": 64}]
    (entry,) = manifest["inputs"]
    assert entry["dims"] == ["batch", "seq", str(HIDDEN)] and entry["shape"] == [4, 64, HIDDEN]
    assert manifest["outputs"][0]["dims"] == ["batch", "seq", str(HIDDEN)]


@pytest.mark.parametrize(("batch", "seq"), SHAPES)
def test_the_loader_runs_every_shape_in_range_like_onnxruntime(
    block_model: onnx.ModelProto, artifact: ArtifactResult, batch: int, seq: int
) -> None:
    x = randn(batch, seq, HIDDEN)
    (expected,) = run_onnxruntime(block_model, {"x": x})
    with load_artifact(artifact.path) as model:
        (actual,) = model.run({"x": x}).values()
    assert actual.shape == (batch, seq, HIDDEN)
    np.testing.assert_allclose(actual, expected, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ((1, 65, HIDDEN), r"input 'x' dim 1 \(seq\) is 65, outside \[1, 64\]"),
        ((5, 1, HIDDEN), r"input 'x' dim 0 \(batch\) is 5, outside \[1, 4\]"),
        ((1, 2, HIDDEN + 1), rf"input 'x' dim 2 must be {HIDDEN}; got {HIDDEN + 1}"),
        ((2, HIDDEN), r"expected shape \[batch, seq, 16\] float32 \(batch <= 4, seq <= 64\)"),
    ],
)
def test_the_loader_refuses_a_shape_outside_the_bounds_by_input_and_dim(
    artifact: ArtifactResult, shape: tuple[int, ...], message: str
) -> None:
    with load_artifact(artifact.path) as model, pytest.raises(ArtifactInputError, match=message):
        model.run({"x": np.zeros(shape, np.float32)})


def test_the_c_abi_checks_sizes_and_needs_them(artifact: ArtifactResult, tmp_path: Path) -> None:
    build_c_example(artifact.path, tmp_path)
    lib = ctypes.CDLL(str(tmp_path / "model.so"))
    lib.autotune_output_shape_at.argtypes = [ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p]
    lib.autotune_run.argtypes = [ctypes.c_void_p] * 3
    lib.autotune_run_sized.argtypes = [ctypes.c_void_p] * 4
    lib.autotune_create.restype = ctypes.c_void_p
    lib.autotune_create.argtypes = [ctypes.c_void_p]
    lib.autotune_destroy.argtypes = [ctypes.c_void_p]
    shape = (ctypes.c_int64 * 3)()
    assert lib.autotune_output_shape_at(0, (ctypes.c_int64 * 2)(2, 17), shape) == 0
    assert list(shape) == [2, 17, HIDDEN]
    assert lib.autotune_output_shape_at(0, (ctypes.c_int64 * 2)(2, 65), shape) == -2
    assert lib.autotune_output_shape_at(1, (ctypes.c_int64 * 2)(2, 17), shape) == -4
    weights = np.zeros(max(1, (tmp_path / "weights.bin").stat().st_size) + 64, np.uint8)
    aligned = weights.ctypes.data + (-weights.ctypes.data) % 64
    ctypes.memmove(aligned, (tmp_path / "weights.bin").read_bytes(), weights.size - 64)
    handle = lib.autotune_create(aligned)
    data = np.zeros((4, 64, HIDDEN), np.float32)
    pointers = (ctypes.c_void_p * 1)(data.ctypes.data)
    result = np.zeros_like(data)
    out = (ctypes.c_void_p * 1)(result.ctypes.data)
    try:
        assert lib.autotune_run(handle, pointers, out) == -3  # sizes required
        assert lib.autotune_run_sized(handle, (ctypes.c_int64 * 2)(0, 3), pointers, out) == -2
        assert lib.autotune_run_sized(handle, (ctypes.c_int64 * 2)(4, 64), pointers, out) == 0
    finally:
        lib.autotune_destroy(handle)


def test_the_c_example_runs_the_artifact_at_the_sizes_it_is_given(
    artifact: ArtifactResult, tmp_path: Path
) -> None:
    build_c_example(artifact.path, tmp_path)
    for batch, seq in SHAPES[:2]:
        run = run_c_example(tmp_path, batch, seq)
        assert run.returncode == 0, run.stderr
        lines = run.stdout.splitlines()
        count = batch * seq * HIDDEN
        assert lines[0] == f"input x float32 {count} elements"
        assert lines[1] == f"output y float32 {batch}x{seq}x{HIDDEN}"
        # The C program fills its input with element i of n set to i / n.
        x = (np.arange(count, dtype=np.float32) / np.float32(count)).reshape(batch, seq, HIDDEN)
        with load_artifact(artifact.path) as model:
            (expected,) = model.run({"x": x}).values()
        actual = np.array([float(text) for text in lines[2:]], np.float32)
        np.testing.assert_allclose(actual.reshape(expected.shape), expected, rtol=1e-6, atol=1e-7)
    refused = run_c_example(tmp_path, 2)
    assert refused.returncode == 2 and "batch (1..4) seq (1..64)" in refused.stderr


@pytest.fixture(scope="module")
def cnn_artifact(tmp_path_factory: pytest.TempPathFactory) -> ArtifactResult:
    imported = import_model(batched_cnn(), shape={"x": (DimRange(1, 8), 3, 32, 32)})
    return build_model_artifact(
        optimize(imported.function),
        host_target(),
        tmp_path_factory.mktemp("cnn_artifact"),
        output_names=imported.output_names,
    )


def test_one_cnn_artifact_runs_any_batch_in_range_like_onnxruntime(
    cnn_artifact: ArtifactResult,
) -> None:
    assert cnn_artifact.manifest["sizes"] == [{"name": "batch", "upper": 8}]
    with load_artifact(cnn_artifact.path) as model:
        for batch in (1, 6, 8):
            x = randn(batch, 3, 32, 32)
            (expected,) = run_onnxruntime(batched_cnn(), {"x": x})
            (actual,) = model.run({"x": x}).values()
            np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)
        with pytest.raises(ArtifactInputError, match=r"input 'x' dim 0 \(batch\) is 9"):
            model.run({"x": np.zeros((9, 3, 32, 32), np.float32)})
