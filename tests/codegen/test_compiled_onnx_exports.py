"""Ops that PyTorch exports bring (ConvTranspose, 3-D conv and pooling, Resize,
Instance/GroupNormalization, DepthToSpace, Einsum, CumSum, Trilu, RNN/GRU/LSTM,
GatherElements, ScatterND, OneHot, Q/DQ, Mish, Softplus, Mod, ...), compiled and run
against onnxruntime (GridSample too).

The single-node cases of the frontend tests go through the pass pipeline, fusion and the
LLVM backend here (the frontend tests check the import with the numpy oracle only). A
small decoder network that chains them is compiled both by JIT and into an artifact run
through the loader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from codegen.executor import compile_model
from codegen.runtime.loader import load_artifact
from ir.frontend.onnx import from_onnx
from ir.graph.passes.pipeline import optimize
from ir.reference import check_close
from tests.codegen.aot.conftest import compile_onnx
from tests.ir.frontend.onnx_helpers import OpCase, run_onnxruntime
from tests.ir.frontend.test_onnx_ops_einsum import CUMSUM, EINSUM, TOP_K, TRILU
from tests.ir.frontend.test_onnx_ops_image import DEPTH_SPACE, GRID_SAMPLE, RESIZE
from tests.ir.frontend.test_onnx_ops_indexing import CONSTANT_LIKE, INDEXING
from tests.ir.frontend.test_onnx_ops_math import ACTIVATIONS, LOGICAL_AND_MOD
from tests.ir.frontend.test_onnx_ops_nn import CONV_TRANSPOSE, NORM_GROUPS, VOLUME_OPS
from tests.ir.frontend.test_onnx_ops_quantization import QDQ
from tests.ir.frontend.test_onnx_ops_rnn import CASES as RECURRENT
from tests.support.onnx_models import decoder_model

RTOL, ATOL = 1e-4, 1e-5

# One Resize case per mode and coordinate rule, and the special ones.
RESIZE_SAMPLE = {
    "nearest_asymmetric_up",
    "nearest_half_pixel_down",
    "linear_half_pixel_mixed",
    "linear_align_corners_up",
    "cubic_pytorch_half_pixel_mixed",
    "cubic_exclude_outside_down",
    "nearest_round_prefer_ceil_half_pixel",
    "nearest_int32",
    "axes_18",
    "upsample_9_linear",
}
# One GridSample case per mode and padding (each compiles four gathers).
GRID_SAMPLE_SAMPLE = {
    "grid_sample_bilinear_zeros_corners0",
    "grid_sample_nearest_border_corners1",
    "grid_sample_bilinear_reflection_corners1",
    "grid_sample_20_linear",
}
NEW_ACTIVATIONS = {
    "elu",
    "selu",
    "celu",
    "softplus",
    "softsign",
    "mish",
    "thresholded_relu",
    "sign",
    "sin",
    "cos",
    *("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"),
}


def _selected(params: list[Any], names: set[str] | None = None) -> list[Any]:
    return [param for param in params if names is None or param.id in names]


CASES = (
    _selected(CONV_TRANSPOSE)
    + _selected(VOLUME_OPS)
    + _selected(NORM_GROUPS)
    + _selected(RESIZE, RESIZE_SAMPLE)
    + _selected(DEPTH_SPACE)
    + _selected(GRID_SAMPLE, GRID_SAMPLE_SAMPLE)
    + _selected(ACTIVATIONS, NEW_ACTIVATIONS)
    + _selected(LOGICAL_AND_MOD)
    + _selected(EINSUM + CUMSUM + TRILU + TOP_K)
    + _selected(RECURRENT)
    + _selected(INDEXING + CONSTANT_LIKE)
    + _selected(QDQ)
)


def test_the_samples_exist() -> None:
    ids = {param.id for param in [*RESIZE, *ACTIVATIONS, *GRID_SAMPLE]}
    assert ids >= RESIZE_SAMPLE | NEW_ACTIVATIONS | GRID_SAMPLE_SAMPLE


@pytest.mark.parametrize("case", CASES)
def test_compiled_op_matches_onnxruntime(case: OpCase) -> None:
    model = case.model()
    expected = run_onnxruntime(model, case.feeds)
    compiled = compile_model(optimize(from_onnx(model)))
    actual = compiled.run(dict(case.feeds))
    actual = list(actual) if isinstance(actual, tuple) else [actual]
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        got = np.asarray(got)
        assert got.dtype == want.dtype, f"output {index}: {got.dtype} != {want.dtype}"
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"output {index}")


def test_decoder_network_compiles_to_onnxruntime_results(tmp_path: Path) -> None:
    model = decoder_model()
    x = np.random.default_rng(4).standard_normal((2, 4, 8, 8)).astype(np.float32)
    (expected,) = run_onnxruntime(model, {"x": x})
    assert np.std(expected) > 1e-2
    jit = compile_model(optimize(from_onnx(model))).run({"x": x})
    check_close(np.asarray(jit), expected, 1e-3, 1e-4, what="decoder (JIT)")
    artifact = compile_onnx(model, tmp_path)
    with load_artifact(artifact.path) as loaded:
        outputs = loaded.run({"x": x})
    check_close(outputs["y"], expected, 1e-3, 1e-4, what="decoder (artifact)")


QDQ_RNG = np.random.default_rng(5)


def _qdq_conv() -> onnx.ModelProto:
    """x -> Q -> DQ -> Conv(DQ(int8 weights per channel), bias) -> Relu -> Q -> DQ.

    The weights stay within 7 bits: onnxruntime's u8s8 kernels on AVX2 without VNNI add
    pairs of uint8 x int8 products in int16 and saturate at full-range weights (its
    documented "reduce range" case), which would make the reference wrong, not us."""
    weight = QDQ_RNG.integers(-64, 64, (8, 3, 3, 3)).astype(np.int8)
    inits = [
        numpy_helper.from_array(np.array(0.02, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "x_zero"),
        numpy_helper.from_array(weight, "w_q"),
        numpy_helper.from_array(QDQ_RNG.uniform(0.001, 0.004, 8).astype(np.float32), "w_scale"),
        numpy_helper.from_array(np.zeros(8, np.int8), "w_zero"),
        numpy_helper.from_array((QDQ_RNG.standard_normal(8) * 0.1).astype(np.float32), "bias"),
        numpy_helper.from_array(np.array(0.01, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(0, np.uint8), "y_zero"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zero"], ["wd"], axis=0),
        helper.make_node("Conv", ["xd", "wd", "bias"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "y_scale", "y_zero"], ["rq"]),
        helper.make_node("DequantizeLinear", ["rq", "y_scale", "y_zero"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "qdq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 12, 12])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def test_a_qdq_conv_compiles_to_onnxruntime_results_within_one_step() -> None:
    model = _qdq_conv()
    x = QDQ_RNG.uniform(-2.5, 2.5, (1, 3, 12, 12)).astype(np.float32)
    (expected,) = run_onnxruntime(model, {"x": x})
    actual = np.asarray(compile_model(optimize(from_onnx(model))).run({"x": x}))
    # onnxruntime runs the conv in integers and requantizes: a value on a rounding edge
    # may land one quantization step (0.01) away; nearly all must agree exactly.
    steps = np.abs(actual - expected) / 0.01
    assert steps.max() <= 1.0 + 1e-3
    assert np.mean(steps > 1e-3) < 0.01
    assert np.std(expected) > 0.05


def test_a_masked_tile_at_the_end_of_a_stack_buffer_writes_nothing_past_it() -> None:
    """A 1-D average pool: rows of 31 sums in one stack array, stored in vectors of 16,
    so the last row's second tile ends past the array. Its masked lanes must not be
    written back (they once were, corrupting the stack into NaNs)."""
    node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2])
    graph = helper.make_graph(
        [node],
        "pool",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 31])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    compiled = compile_model(optimize(from_onnx(model)))
    x = np.random.default_rng(3).standard_normal((1, 3, 32)).astype(np.float32)
    np.testing.assert_allclose(compiled.run({"x": x}), (x[..., :-1] + x[..., 1:]) / 2, rtol=1e-6)
