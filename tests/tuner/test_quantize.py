"""Post-training quantization (`tuner.quantize`, `tuner.calibrate`): the QDQ model is valid
ONNX that onnxruntime runs, keeps the float model's top-1 on seeded random inputs, and
runs through autotune; weights are symmetric int8 per output channel within half a step
of the float ones; calibration by min-max and by percentile; the skip list; errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import TensorProto, helper, numpy_helper

from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.graph.nodes import Call, Function
from ir.graph.passes.realize_quantized import NONE
from ir.graph.traversal import post_order
from tests.support.quantized_models import exact_int8_run
from tuner.calibrate import CalibrationError, calibrate
from tuner.quantize import (
    QuantizeError,
    QuantizeOptions,
    quantize_model,
    quantize_weight,
)


def small_cnn(opset: int = 13, seed: int = 0) -> onnx.ModelProto:
    """conv-relu, strided conv-relu, global pooling, a Gemm classifier: random weights."""
    rng = np.random.default_rng(seed)

    def init(name: str, *shape: int, scale: float = 0.3) -> onnx.TensorProto:
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name
        )

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node(
            "Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2], name="conv2"
        ),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["p"], name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], transB=1, name="fc"),
    ]
    initializers = [
        init("w1", 16, 3, 3, 3),
        init("b1", 16, scale=0.1),
        init("w2", 32, 16, 3, 3, scale=0.1),
        init("b2", 32, scale=0.1),
        init("w3", 10, 32),
        init("b3", 10, scale=0.1),
    ]
    graph = helper.make_graph(
        nodes,
        "small_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def random_sets(
    count: int, seed: int, shape: tuple[int, ...] = (1, 3, 16, 16)
) -> Callable[[], Iterator[Mapping[str, np.ndarray]]]:
    """A callable giving `count` seeded input sets for input x, the same each call."""

    def batches() -> Iterator[Mapping[str, np.ndarray]]:
        rng = np.random.default_rng(seed)
        for _ in range(count):
            yield {"x": rng.uniform(-1, 1, shape).astype(np.float32)}

    return batches


def _session(model: onnx.ModelProto) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, ["CPUExecutionProvider"])


def _ops(model: onnx.ModelProto) -> list[str]:
    return [node.op_type for node in model.graph.node]


def test_the_qdq_model_keeps_the_float_top1_and_runs_through_onnxruntime_and_autotune() -> None:
    model = small_cnn()
    result = quantize_model(model, random_sets(32, 1))
    assert [(n.name, n.per_channel) for n in result.nodes] == [
        ("conv1", True),
        ("conv2", True),
        ("fc", True),
    ]
    quantized = result.model
    assert _ops(quantized).count("QuantizeLinear") == 3  # x, r1, f: one per activation
    assert _ops(quantized).count("DequantizeLinear") == 6
    assert {i.name for i in quantized.graph.initializer} >= {"b1", "b2", "b3"}  # float biases
    assert not {"w1", "w2", "w3"} & {i.name for i in quantized.graph.initializer}
    float_run, int8_run = _session(model), _session(quantized)
    agree, errors = 0, []
    for inputs in random_sets(256, 99)():
        expected, actual = float_run.run(None, inputs)[0], int8_run.run(None, inputs)[0]
        agree += int(expected.argmax() == actual.argmax())
        errors.append(np.abs(expected - actual).max() / np.ptp(expected))
    assert agree / 256 >= 0.98, agree
    assert max(errors) < 0.05, max(errors)
    # autotune runs the QDQ model's 16-channel conv and its Gemm as integer kernels where
    # the host has 8-bit products (AVX2 or VNNI) and agrees with onnxruntime's run of it
    # (with ONNX's reference evaluator's where onnxruntime's int8 products saturate).
    target = host_target()
    prepared = prepare_for_target(quantized, target).function
    kernel_ops = [
        node.op
        for kernel in post_order(prepared.body)
        if isinstance(kernel, Call) and isinstance(kernel.op, Function)
        for node in post_order(kernel.op.body)
        if isinstance(node, Call)
    ]
    # conv1 (3 channels, padded to 4), conv2 and the Gemm classifier.
    integer = kernel_ops.count("qnn.conv2d_nchwc")
    assert integer == (0 if target.integer_products == NONE else 3)
    compiled = compile_model(prepared, target)
    for inputs in random_sets(4, 7)():
        ours = compiled.run(inputs)
        theirs = exact_int8_run(quantized, inputs)
        assert np.abs(np.asarray(ours) - theirs).max() <= 0.02 * np.ptp(theirs)


@settings(max_examples=60, deadline=None)
@given(
    weight=hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=4, max_side=6),
        elements=st.floats(-8, 8, width=32),
    ),
    data=st.data(),
)
def test_weights_come_back_within_half_a_step_of_their_channel_scale(
    weight: np.ndarray, data: st.DataObject
) -> None:
    axis = data.draw(st.one_of(st.none(), st.integers(0, weight.ndim - 1)))
    values, scales, zeros = quantize_weight(weight, axis)
    assert values.dtype == np.int8 and values.shape == weight.shape
    assert values.min(initial=0) >= -127 and not np.any(zeros)
    shape = [1] * weight.ndim
    if axis is not None:
        assert scales.shape == (weight.shape[axis],)
        shape[axis] = -1
    restored = values.astype(np.float32) * scales.reshape(shape)
    assert np.all(np.abs(restored - weight) <= scales.reshape(shape) / 2 * (1 + 1e-5) + 1e-12)


def test_old_opsets_get_per_tensor_weights_and_too_old_ones_are_refused() -> None:
    result = quantize_model(small_cnn(opset=12), random_sets(4, 1))
    assert not any(node.per_channel for node in result.nodes)
    dequantize = [n for n in result.model.graph.node if n.op_type == "DequantizeLinear"]
    assert all(not n.attribute for n in dequantize)
    with pytest.raises(QuantizeError, match="opset 9 has no QuantizeLinear"):
        quantize_model(small_cnn(opset=9), random_sets(4, 1))


def test_the_skip_list_names_op_types_or_nodes() -> None:
    by_type = quantize_model(
        small_cnn(), random_sets(4, 1), QuantizeOptions(skip=frozenset({"Gemm"}))
    )
    assert [n.name for n in by_type.nodes] == ["conv1", "conv2"] and by_type.skipped == ("fc",)
    by_name = quantize_model(
        small_cnn(), random_sets(4, 1), QuantizeOptions(skip=frozenset({"conv1"}))
    )
    assert [n.name for n in by_name.nodes] == ["conv2", "fc"]
    conv1 = next(n for n in by_name.model.graph.node if n.name == "conv1")
    assert list(conv1.input) == ["x", "w1", "b1"]
    with pytest.raises(QuantizeError, match="outside the skip list"):
        quantize_model(
            small_cnn(), random_sets(4, 1), QuantizeOptions(skip=frozenset({"Conv", "Gemm"}))
        )


def _relu_model() -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"])],
        "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1000])],
        [helper.make_tensor_value_info("r", TensorProto.FLOAT, [1000])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def test_percentile_calibration_leaves_outliers_out_of_the_range() -> None:
    values = np.linspace(-1, 1, 1000).astype(np.float32)
    values[17] = 50.0  # one outlier in a thousand

    def batches() -> Iterator[Mapping[str, np.ndarray]]:
        yield {"x": values}

    minmax = calibrate(_relu_model(), ["x", "r"], batches, "minmax")
    assert minmax["x"].high == 50.0 and minmax["r"].low == 0.0
    kept = calibrate(_relu_model(), ["x", "r"], batches, "percentile", 99.0)
    assert kept["x"].high < 1.1 and kept["x"].low <= -0.97
    assert kept["r"].low >= 0.0 and kept["r"].high < 1.1


def test_calibration_errors_name_what_is_wrong() -> None:
    def none() -> Iterator[Mapping[str, np.ndarray]]:
        return iter(())

    with pytest.raises(CalibrationError, match="at least one set of inputs"):
        calibrate(_relu_model(), ["r"], none)
    with pytest.raises(CalibrationError, match=r"\['nope'\] are not computed"):
        calibrate(_relu_model(), ["nope"], none)
    with pytest.raises(CalibrationError, match="unknown calibration method"):
        calibrate(_relu_model(), ["r"], none, "entropy")
    with pytest.raises(QuantizeError, match="nothing to quantize"):
        quantize_model(_relu_model(), none)


@pytest.mark.parametrize("axis", [None, 0])
def test_subnormal_weights_get_a_nonzero_scale(axis: int | None) -> None:
    weight = np.array([[1e-40, -3e-41], [0.0, 0.0]], np.float32)
    values, scales, _ = quantize_weight(weight, axis)
    assert np.all(scales > 0) and np.all(np.isfinite(scales))
    shape = [-1, 1] if axis == 0 else []
    restored = values.astype(np.float32) * scales.reshape(shape)
    assert np.all(np.abs(restored - weight) <= scales.reshape(shape) / 2 + 1e-45)
