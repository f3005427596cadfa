"""Quantized ONNX models for tests: a small residual CNN quantized by onnxruntime's
quantize_static (QDQ, per-channel weights), with seeded inputs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

from codegen.llvm.target import host_target
from ir.graph.nodes import Call, Function
from ir.graph.traversal import post_order

SHAPE = (1, 8, 10, 10)
REFERENCE_QDQ_OPSET = 19  # the first opset whose QDQ ops ONNX's reference evaluator runs


def residual_block(in_channels: int) -> onnx.ModelProto:
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


def seeded_inputs(count: int, seed: int, channels: int) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    shape = (1, channels, *SHAPE[2:])
    return [{"x": rng.uniform(-1, 1, shape).astype(np.float32)} for _ in range(count)]


def model_inputs(model: onnx.ModelProto, count: int, seed: int) -> list[dict[str, np.ndarray]]:
    """`count` seeded uniform [-1, 1) sets for the model's one input, of its declared shape."""
    rng = np.random.default_rng(seed)
    declared = model.graph.input[0]
    shape = tuple(dim.dim_value for dim in declared.type.tensor_type.shape.dim)
    return [{declared.name: rng.uniform(-1, 1, shape).astype(np.float32)} for _ in range(count)]


def quantized_by_onnxruntime(
    tmp_path: Path,
    model: onnx.ModelProto,
    activations: QuantType,
    weights: QuantType,
    reduce_range: bool = True,
    quant_format: QuantFormat = QuantFormat.QDQ,
) -> onnx.ModelProto:
    """`model` quantized by onnxruntime (QDQ unless `quant_format` says QOperator,
    per-channel weights of type `weights`, 7-bit with `reduce_range`), calibrated on 8
    seeded inputs. 7-bit weights by default: on a
    CPU without VNNI onnxruntime's own u8 x s8 kernels sum byte pairs in saturating int16
    (its quantizer's documented caveat), so only 7-bit weights give it exact results to
    compare with there."""

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.batches = iter(model_inputs(model, 8, 1))

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    onnx.save(model, str(tmp_path / "float.onnx"))
    quantize_static(
        str(tmp_path / "float.onnx"),
        str(tmp_path / "int8.onnx"),
        Reader(),
        quant_format=quant_format,
        per_channel=True,
        activation_type=activations,
        weight_type=weights,
        reduce_range=reduce_range,
    )
    return onnx.load(str(tmp_path / "int8.onnx"))


def output_step(model: onnx.ModelProto) -> float:
    """The scale of the DequantizeLinear that makes the model's (first) output."""
    output = model.graph.output[0].name
    node = next(n for n in model.graph.node if n.output[0] == output)
    return next(
        float(numpy_helper.to_array(init))
        for init in model.graph.initializer
        if init.name == node.input[1]
    )


def dense_block() -> onnx.ModelProto:
    """A transformer-style MLP on a [2, 6, 32] input: MatMul by a [32, 48] weight with a
    bias Add, Relu, Gemm-free MatMul to 40 outputs (not a multiple of 16: padded
    blocks), plus a Gemm classifier over the flattened rows."""
    rng = np.random.default_rng(3)

    def init(name: str, *shape: int, scale: float) -> onnx.TensorProto:
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name
        )

    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["m1"]),
        helper.make_node("Add", ["m1", "b1"], ["a1"]),
        helper.make_node("Relu", ["a1"], ["r1"]),
        helper.make_node("MatMul", ["r1", "w2"], ["m2"]),
        helper.make_node("Reshape", ["m2", "shape"], ["flat"]),
        helper.make_node("Gemm", ["flat", "w3", "b3"], ["y"], transB=1),
    ]
    initializers = [
        init("w1", 32, 48, scale=0.2),
        init("b1", 48, scale=0.1),
        init("w2", 48, 40, scale=0.15),
        init("w3", 10, 240, scale=0.1),
        init("b3", 10, scale=0.1),
        numpy_helper.from_array(np.array([2, 240], np.int64), "shape"),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def kernel_calls(fn: Function) -> list[Call]:
    """The op calls inside the fused kernels of the optimised function `fn`."""
    return [
        node
        for kernel in post_order(fn.body)
        if isinstance(kernel, Call) and isinstance(kernel.op, Function)
        for node in post_order(kernel.op.body)
        if isinstance(node, Call) and isinstance(node.op, str)
    ]


def light_model_for_quantizing(name: str) -> onnx.ModelProto:
    """ONNX's light model `name` (random weights, cut at its logits) as onnxruntime's
    quantizer wants it: its Constant-node weights made initializers (else it quantizes
    them as activations, at run time), IR version 8 and opset 13 (per-channel
    DequantizeLinear needs its `axis`)."""
    from onnx import version_converter

    from tests.support.onnx_models import cut_at_logits, load_light_model, randomize_weights

    shipped = load_light_model(name)
    model = cut_at_logits(randomize_weights(shipped, seed=sum(map(ord, name))), shapes_from=shipped)
    kept = []
    for node in model.graph.node:
        if node.op_type == "Constant" and [a.name for a in node.attribute] == ["value"]:
            tensor = onnx.TensorProto()
            tensor.CopyFrom(node.attribute[0].t)
            tensor.name = node.output[0]
            model.graph.initializer.append(tensor)
        else:
            kept.append(node)
    del model.graph.node[:]
    model.graph.node.extend(kept)
    initializers = {init.name for init in model.graph.initializer}
    inputs = [value for value in model.graph.input if value.name not in initializers]
    del model.graph.input[:]
    model.graph.input.extend(inputs)
    model.ir_version = 8
    return version_converter.convert_version(model, 13)


def onnxruntime_int8_is_exact() -> bool:
    """Whether onnxruntime's uint8 x int8 products are exact on this host: with VNNI they
    are; with AVX2 alone its kernels sum each pair of products in int16 (vpmaddubsw),
    which saturates where full-range weights meet large data (a result then lies off by
    up to the saturated amount)."""
    return host_target().dot_product_lanes > 0


def exact_int8_run(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> np.ndarray:
    """The standard-op `model`'s first output: onnxruntime's where its int8 products are
    exact on this host, else ONNX's reference evaluator's (numpy, exact)."""
    if onnxruntime_int8_is_exact():
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        return np.asarray(session.run(None, dict(feeds))[0])
    from onnx.reference import ReferenceEvaluator
    from onnx.version_converter import convert_version

    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if opset < REFERENCE_QDQ_OPSET:  # (the evaluator has no QuantizeLinear before it)
        model = convert_version(model, REFERENCE_QDQ_OPSET)
    return np.asarray(ReferenceEvaluator(model).run(None, dict(feeds))[0])
