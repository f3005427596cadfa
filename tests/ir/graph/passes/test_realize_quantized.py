"""RealizeQuantized: QDQ convolutions (as onnxruntime's quantize_static writes them) run
as integer kernels whose results match onnxruntime's own int8 run, and convolutions the
integer kernel cannot take stay in float."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.graph.nodes import Call, Constant, Function
from ir.graph.traversal import post_order
from tests.support.onnx_models import run_onnxruntime

SHAPE = (1, 8, 10, 10)


def _residual_block(in_channels: int) -> onnx.ModelProto:
    """conv-relu, conv-relu, 1x1 conv, a residual add, pooling and a classifier."""
    rng = np.random.default_rng(0)

    def init(name: str, *shape: int, scale: float) -> onnx.TensorProto:
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name
        )

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"]),
        helper.make_node("Add", ["c3", "r2"], ["a"]),
        helper.make_node("GlobalAveragePool", ["a"], ["p"]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "w4", "b4"], ["y"], transB=1),
    ]
    initializers = [
        init("w1", 24, in_channels, 3, 3, scale=0.3),
        init("b1", 24, scale=0.1),
        init("w2", 32, 24, 3, 3, scale=0.1),
        init("b2", 32, scale=0.1),
        init("w3", 32, 32, 1, 1, scale=0.2),
        init("b3", 32, scale=0.1),
        init("w4", 10, 32, scale=0.3),
        init("b4", 10, scale=0.1),
    ]
    graph = helper.make_graph(
        nodes,
        "block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, in_channels, *SHAPE[2:]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _inputs(count: int, seed: int, channels: int) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    shape = (1, channels, *SHAPE[2:])
    return [{"x": rng.uniform(-1, 1, shape).astype(np.float32)} for _ in range(count)]


def _quantized(
    tmp_path: Path, model: onnx.ModelProto, activations: QuantType, weights: QuantType
) -> onnx.ModelProto:
    channels = model.graph.input[0].type.tensor_type.shape.dim[1].dim_value

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.batches = iter(_inputs(8, 1, channels))

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    onnx.save(model, str(tmp_path / "float.onnx"))
    quantize_static(
        str(tmp_path / "float.onnx"),
        str(tmp_path / "int8.onnx"),
        Reader(),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=activations,
        weight_type=weights,
    )
    return onnx.load(str(tmp_path / "int8.onnx"))


def _kernel_ops(fn: Function) -> list[str]:
    return [
        node.op
        for kernel in post_order(fn.body)
        if isinstance(kernel, Call) and isinstance(kernel.op, Function)
        for node in post_order(kernel.op.body)
        if isinstance(node, Call) and isinstance(node.op, str)
    ]


@pytest.mark.parametrize("activations", [QuantType.QUInt8, QuantType.QInt8])
def test_qdq_convs_run_as_integer_kernels_and_match_onnxruntime(
    tmp_path: Path, activations: QuantType
) -> None:
    model = _quantized(tmp_path, _residual_block(8), activations, QuantType.QInt8)
    target = host_target()
    prepared = prepare_for_target(model, target).function
    ops = _kernel_ops(prepared)
    assert ops.count("qnn.conv2d_nchwc") == 3 and "nn.conv2d" not in ops
    compiled = compile_model(prepared, target)
    scale = _output_step(model)
    for inputs in _inputs(4, 7, 8):
        ours = np.asarray(compiled.run(inputs))
        theirs = run_onnxruntime(model, inputs, "y")
        assert np.abs(ours - theirs).max() <= scale * 1.001  # within one output step


def test_convs_without_a_dot_product_form_sum_exactly_in_float_or_stay_as_they_are(
    tmp_path: Path,
) -> None:
    """Three input channels (not a multiple of the dot-product width): the float kernel
    sums the centred 8-bit values and int8 weights, exact below 2**24, and the model
    still lands within one output step of onnxruntime's. uint8 weights with zero points:
    the dequantized float conv, as before, close to onnxruntime's."""
    for channels, weights, integer in ((3, QuantType.QInt8, 2), (8, QuantType.QUInt8, 0)):
        model = _quantized(tmp_path, _residual_block(channels), QuantType.QUInt8, weights)
        target = host_target()
        prepared = prepare_for_target(model, target).function
        ops = _kernel_ops(prepared)
        assert ops.count("qnn.conv2d_nchwc") == integer
        assert ops.count("nn.conv2d_nchwc") + ops.count("nn.conv2d") == 3 - integer
        assert _float_conv_weights_are_int8_values(prepared) == bool(integer)
        compiled = compile_model(prepared, target)
        inputs = _inputs(1, 3, channels)[0]
        theirs = run_onnxruntime(model, inputs, "y")
        ours = np.asarray(compiled.run(inputs))
        tolerance = _output_step(model) * 1.001 if integer else 0.05 * np.ptp(theirs)
        assert np.abs(ours - theirs).max() <= tolerance


def test_a_depthwise_conv_between_quantized_values_sums_in_float_exactly(tmp_path: Path) -> None:
    """A depthwise conv (MobileNet's) keeps its float kernel, now fed the centred 8-bit
    values and int8 weights (no dequantizing multiply before it) and requantized with
    onnxruntime's multiplier: within one output step of onnxruntime's run."""
    rng = np.random.default_rng(2)
    weight = numpy_helper.from_array(rng.standard_normal((8, 1, 3, 3)).astype(np.float32), "w")
    bias = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32) * 0.1, "b")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["y"], group=8, pads=[1, 1, 1, 1])],
        "depthwise",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(SHAPE))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, *SHAPE[2:]])],
        [weight, bias],
    )
    model = onnx.helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model = _quantized(tmp_path, model, QuantType.QUInt8, QuantType.QInt8)
    target = host_target()
    prepared = prepare_for_target(model, target).function
    plain = _kernel_ops(prepared)
    assert "nn.conv2d" in plain and "qnn.conv2d_nchwc" not in plain  # (alone: not blocked)
    assert _float_conv_weights_are_int8_values(prepared)
    compiled = compile_model(prepared, target)
    for inputs in _inputs(3, 5, 8):
        ours = np.asarray(compiled.run(inputs))
        theirs = run_onnxruntime(model, inputs, "y")
        assert np.abs(ours - theirs).max() <= _output_step(model) * 1.001


def _float_conv_weights_are_int8_values(fn: Function) -> bool:
    """Whether every float conv kernel of `fn` has an integer-valued weight in int8's
    range (the exact-sum form) rather than a dequantized one."""
    float_convs = {"nn.conv2d", "nn.conv2d_nchwc", "nn.depthwise_conv2d_nchwc"}
    weights = []
    for kernel in post_order(fn.body):
        if not (isinstance(kernel, Call) and isinstance(kernel.op, Function)):
            continue
        for node in post_order(kernel.op.body):
            if isinstance(node, Call) and node.op in float_convs:
                weight = kernel.args[kernel.op.params.index(node.args[1])]
                assert isinstance(weight, Constant)
                weights.append(weight.data)
    assert weights
    return all(np.array_equal(w, np.rint(w)) and np.abs(w).max() <= 127 for w in weights)


def _ops_of(fn: Function) -> list[str]:
    return [n.op for n in post_order(fn.body) if isinstance(n, Call) and isinstance(n.op, str)]


def _output_step(model: onnx.ModelProto) -> float:
    """The scale of the DequantizeLinear that makes the model's output."""
    output = model.graph.output[0].name
    node = next(n for n in model.graph.node if n.output[0] == output)
    return next(
        float(numpy_helper.to_array(init))
        for init in model.graph.initializer
        if init.name == node.input[1]
    )
