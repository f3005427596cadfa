"""One artifact for a range of shapes: a model with symbolic batch and sequence dims
compiles once, and its numpy loader and its C ABI run it at any shape within the bounds
(matching onnxruntime), refusing shapes outside them by input and dim."""

from __future__ import annotations

import ctypes
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from codegen.aot import ArtifactResult, build_model_artifact
from codegen.llvm import host_target
from codegen.runtime.loader import ArtifactInputError, load_artifact
from ir.frontend.onnx.importer import import_model
from ir.frontend.onnx.symbolic_dims import DimRange
from ir.graph.passes.narrow_sizes import SMALL_SIZE
from ir.graph.passes.pipeline import optimize
from ir.schedule.rules.choices import SpaceError
from ir.schedule.trace import Trace
from ir.te.program import function_to_te
from tests.codegen.aot.conftest import build_c_example, run_c_example
from tests.ir.frontend.onnx_helpers import randn, run_onnxruntime
from tests.ir.frontend.test_onnx_transformer import HIDDEN, transformer_block
from tests.support.onnx_models import batched_cnn
from tuner.records import Record, records_chooser
from tuner.space.space import SearchSpace
from tuner.tasks import extract_tasks

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


def test_one_loaded_artifact_gives_each_call_outputs_of_its_own_sizes(
    block_model: onnx.ModelProto, artifact: ArtifactResult
) -> None:
    """Sizes met before and new ones, in turn: each call's output has its sizes' shape
    and onnxruntime's values."""
    with load_artifact(artifact.path) as model:
        for batch, seq in [(1, 1), (2, 17), (1, 1), (4, 64), (2, 17)]:
            x = randn(batch, seq, HIDDEN)
            (expected,) = run_onnxruntime(block_model, {"x": x})
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


def _dense_relu(rows: int = 3 * SMALL_SIZE) -> tuple[onnx.ModelProto, dict[str, tuple]]:
    """relu(x @ W + b) over x [batch, seq, 96], W [96, 80], and its shape ranges: seq up to
    `rows`."""
    rng = np.random.default_rng(5)
    weights = [
        numpy_helper.from_array(rng.standard_normal((96, 80)).astype(np.float32), "w"),
        numpy_helper.from_array(rng.standard_normal(80).astype(np.float32), "b"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Add", ["h", "b"], ["a"]),
        helper.make_node("Relu", ["a"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "dense_relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 96])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 80])],
        weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return model, {"x": (DimRange(1, 2), DimRange(1, rows), 96)}


def test_records_with_other_weight_layouts_over_a_wide_range_build_one_right_artifact(
    tmp_path: Path,
) -> None:
    """A range wider than twice `SMALL_SIZE` gives each kernel a body narrowed to small
    sizes beside the chosen one. Records of candidates that block the weight otherwise
    than the defaults do (as a tuning run's winners may) meet the narrow default in one
    kernel, which reads the weight as it is stored: the artifact is right below the
    dispatch's limit and above it. (Such records once gave wrong results at small sizes:
    the narrow body read the weight in its own blocks.)"""
    model, ranges = _dense_relu()
    imported = import_model(model, shape=ranges)
    fn = optimize(imported.function)
    target = host_target()
    records = []
    wide = [task for task in extract_tasks(fn, target) if task.layouts_of is None]
    for task in wide:
        space = SearchSpace(function_to_te(task.function), target.hardware, task.constant_params)
        default = _layout_steps(space.default_point().to_json())
        samples = (space.sample(random.Random(seed)).to_json() for seed in range(50))
        trace = next(trace for trace in samples if _layout_steps(trace) not in ([], default))
        records.append(Record(task.key, str(target), trace, (1e-6,), "ok"))
    built = build_model_artifact(
        fn,
        target,
        tmp_path,
        records_chooser(records, str(target)),
        output_names=imported.output_names,
    )
    hits = {task.workload_key for task in built.coverage if task.hit}
    assert hits == {task.key for task in wide}
    _check_dense_relu(model, built.path)


def _check_dense_relu(model: onnx.ModelProto, path: Path) -> None:
    """The artifact at `path` computes `_dense_relu`'s model below and above the small-size
    bucket's limit."""
    (w, b) = (numpy_helper.to_array(tensor) for tensor in model.graph.initializer)
    with load_artifact(path) as artifact:
        for batch, seq in [
            (1, 1),
            (2, 7),
            (1, SMALL_SIZE),
            (2, SMALL_SIZE + 1),
            (2, 3 * SMALL_SIZE),
        ]:
            x = randn(batch, seq, 96)
            (actual,) = artifact.run({"x": x}).values()
            np.testing.assert_allclose(actual, np.maximum(x @ w + b, 0), rtol=1e-4, atol=1e-4)


def test_a_small_size_bucket_takes_its_best_record_that_lays_the_weights_out_alike(
    tmp_path: Path,
) -> None:
    """A kernel over a wide range is two tasks: the whole range and its small-size bucket.
    The bucket's body shares the weights with the whole range's, so the compile takes
    the bucket's best record among those laying them out as the whole range's record
    does, and passes over a faster one that lays them out otherwise."""
    model, ranges = _dense_relu()
    fn = optimize(import_model(model, shape=ranges).function)
    target = host_target()
    tasks = extract_tasks(fn, target)
    (whole,) = [task for task in tasks if task.layouts_of is None]
    (bucket,) = [task for task in tasks if task.layouts_of == whole.key]
    assert bucket.name.endswith(f"[seq<={SMALL_SIZE}]")
    assert (whole.covers, bucket.covers) == ({"batch": 2, "seq": 96}, {"batch": 2, "seq": 32})
    whole_space = SearchSpace(function_to_te(whole.function), target.hardware, {"p1"})
    whole_trace = next(
        trace
        for seed in range(50)
        if _layout_steps((trace := whole_space.sample(random.Random(seed))).to_json())
    )
    program = function_to_te(whole.function)
    layouts = whole_trace.replay(program).input_layouts
    pinned = SearchSpace(function_to_te(bucket.function), target.hardware, {"p1"}, lambda: layouts)
    free = SearchSpace(function_to_te(bucket.function), target.hardware, {"p1"})
    alike = _sample_where(pinned, lambda trace: True)
    other = _sample_where(free, lambda trace: trace.replay(free.program).input_layouts != layouts)
    records = [
        Record(whole.key, str(target), whole_trace.to_json(), (1e-6,), "ok"),
        Record(bucket.key, str(target), other.to_json(), (1e-8,), "ok"),
        Record(bucket.key, str(target), alike.to_json(), (1e-7,), "ok"),
    ]
    built = build_model_artifact(fn, target, tmp_path, records_chooser(records, str(target)))
    chosen = {task.workload_key: task.record_id for task in built.coverage}
    assert chosen == {whole.key: records[0].candidate_id, bucket.key: records[2].candidate_id}
    _check_dense_relu(model, built.path)


def _sample_where(space: SearchSpace, accept: Callable[[Trace], bool]) -> Trace:
    """The first of the space's samples over seeds 0, 1, ... that `accept` takes (a
    sample the space refuses is skipped)."""
    for seed in range(200):
        try:
            trace = space.sample(random.Random(seed))
        except SpaceError:
            continue
        if accept(trace):
            return trace
    raise AssertionError("no sample found")


def _layout_steps(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for step in trace["steps"] if step["kind"] == "layout_rewrite"]
