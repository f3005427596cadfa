"""RealizeQuantized: QDQ convolutions (as onnxruntime's quantize_static writes them) run
as integer kernels whose results match onnxruntime's own int8 run, and convolutions the
integer kernel cannot take stay in float."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType

from codegen.executor import compile_model
from codegen.llvm.target import host_target, parse_cpu_target
from codegen.prepare import prepare_for_target
from ir.frontend.onnx import import_model
from ir.graph.nodes import Call, Constant, Function
from ir.graph.ops.quantized import PAIR, QUAD, WORD
from ir.graph.passes.pipeline import optimize
from ir.graph.passes.realize_quantized import DOT4, NONE, PAIRS
from ir.graph.traversal import post_order
from ir.reference import evaluate
from tests.support.onnx_models import run_onnxruntime
from tests.support.quantized_models import (
    SHAPE,
    dense_block,
    kernel_calls,
    light_model_for_quantizing,
    model_inputs,
    output_step,
    quantized_by_onnxruntime,
    residual_block,
    seeded_inputs,
)


def _optimized(model: onnx.ModelProto, products: str = DOT4) -> Function:
    """The model's optimised graph as for a CPU whose int32 convs pay as `products`
    says; its kernels run on any host (without the instructions, widened to int32)."""
    return optimize(import_model(model).function, integer_products=products)


def _kernel_ops(fn: Function) -> list[str]:
    return [str(node.op) for node in kernel_calls(fn)]


@pytest.mark.parametrize("activations", [QuantType.QUInt8, QuantType.QInt8])
def test_qdq_convs_run_as_integer_kernels_and_match_onnxruntime(
    tmp_path: Path, activations: QuantType
) -> None:
    model = quantized_by_onnxruntime(tmp_path, residual_block(8), activations, QuantType.QInt8)
    target = host_target()
    prepared = _optimized(model)
    ops = _kernel_ops(prepared)
    # three convs and the Gemm classifier (as a 1x1 conv over its rows)
    assert ops.count("qnn.conv2d_nchwc") == 4 and "nn.conv2d" not in ops and "nn.dense" not in ops
    compiled = compile_model(prepared, target)
    scale = output_step(model)
    for inputs in seeded_inputs(4, 7, 8):
        ours = np.asarray(compiled.run(inputs))
        theirs = run_onnxruntime(model, inputs, "y")
        assert np.abs(ours - theirs).max() <= scale * 1.001  # within one output step


def test_few_channel_convs_pad_to_the_dot_product_width_and_uint8_weights_stay_float(
    tmp_path: Path,
) -> None:
    """Three input channels (an image's, not a multiple of the dot-product width): the
    data is padded to four channels and the weights with a zero channel, so every conv
    is an integer kernel, within one output step of onnxruntime's run. uint8 weights
    with zero points: the dequantized float conv, as before, close to onnxruntime's."""
    for channels, weights, integer in ((3, QuantType.QInt8, 3), (8, QuantType.QUInt8, 0)):
        model = quantized_by_onnxruntime(
            tmp_path, residual_block(channels), QuantType.QUInt8, weights
        )
        target = host_target()
        prepared = _optimized(model)
        ops = _kernel_ops(prepared)
        # (+1: the Gemm, with int8 weights)
        assert ops.count("qnn.conv2d_nchwc") == integer + (weights == QuantType.QInt8)
        assert ops.count("nn.conv2d_nchwc") + ops.count("nn.conv2d") == 3 - integer
        assert ("nn.pad" in ops) == (channels % 4 != 0 and bool(integer))
        compiled = compile_model(prepared, target)
        inputs = seeded_inputs(1, 3, channels)[0]
        theirs = run_onnxruntime(model, inputs, "y")
        ours = np.asarray(compiled.run(inputs))
        tolerance = output_step(model) * 1.001 if integer else 0.05 * np.ptp(theirs)
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
    model = quantized_by_onnxruntime(tmp_path, model, QuantType.QUInt8, QuantType.QInt8)
    target = host_target()
    prepared = _optimized(model)
    plain = _kernel_ops(prepared)
    assert "nn.conv2d" in plain and "qnn.conv2d_nchwc" not in plain  # (alone: not blocked)
    assert _float_conv_weights_are_int8_values(prepared)
    compiled = compile_model(prepared, target)
    for inputs in seeded_inputs(3, 5, 8):
        ours = np.asarray(compiled.run(inputs))
        theirs = run_onnxruntime(model, inputs, "y")
        assert np.abs(ours - theirs).max() <= output_step(model) * 1.001


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


def test_without_dot_products_only_the_exact_float_sums_are_realized(tmp_path: Path) -> None:
    """A CPU without 8-bit dot-product instructions (AVX2: int32 kernels there run slower
    than float ones) gets no int32 convs: the convs whose sums float32 holds exactly
    (windows below 2**24 / (255 * 128) products) run their float kernels on the 8-bit
    values, within one output step of onnxruntime's. prepare_for_target decides by the
    target's features."""
    model = quantized_by_onnxruntime(tmp_path, residual_block(8), QuantType.QUInt8, QuantType.QInt8)
    prepared = _optimized(model, products=NONE)
    assert "qnn.conv2d_nchwc" not in _kernel_ops(prepared)
    assert _float_conv_weights_are_int8_values(prepared)
    compiled = compile_model(prepared, host_target())
    for inputs in seeded_inputs(3, 4, 8):
        ours = np.asarray(compiled.run(inputs))
        theirs = run_onnxruntime(model, inputs, "y")
        assert np.abs(ours - theirs).max() <= output_step(model) * 1.001
    for cpu, integer in (("znver4", True), ("alderlake", True), ("x86-64", False)):
        target = parse_cpu_target(f"llvm -mcpu={cpu}")
        ops = _kernel_ops(prepare_for_target(model, target).function)
        assert ("qnn.conv2d_nchwc" in ops) == integer, cpu


@pytest.mark.parametrize("reduce_range", [True, False])
def test_on_avx2_every_conv_is_an_integer_kernel_pair_sums_where_the_weights_allow(
    tmp_path: Path, reduce_range: bool
) -> None:
    """PAIRS (AVX2): 7-bit weights (onnxruntime's reduce_range) make every conv a pair-sum
    integer kernel (vpmaddubsw); full-range weights, whose pairs can leave int16, one on
    weights widened to int16 (vpmaddwd). Either way within one output step of the
    reference, and of onnxruntime's run where it is exact, on code compiled for an
    AVX2 CPU."""
    model = quantized_by_onnxruntime(
        tmp_path, residual_block(8), QuantType.QUInt8, QuantType.QInt8, reduce_range
    )
    prepared = _optimized(model, products=PAIRS)
    convs = [node for node in kernel_calls(prepared) if node.op == "qnn.conv2d_nchwc"]
    assert len(convs) == 4  # (three convs and the Gemm)
    assert all(conv.attrs["dot_form"] == (PAIR if reduce_range else WORD) for conv in convs)
    # (onnxruntime's AVX2 kernels saturate full-range pair sums: no reference there)
    onnxruntime_exact = reduce_range or host_target().dot_product_lanes
    compiled = compile_model(prepared, parse_cpu_target("llvm -mcpu=znver3"))
    step = output_step(model) * 1.001
    for inputs in seeded_inputs(3, 8, 8):
        ours = np.asarray(compiled.run(inputs))
        assert np.abs(ours - np.asarray(evaluate(prepared, inputs))).max() <= step
        if onnxruntime_exact:
            assert np.abs(ours - run_onnxruntime(model, inputs, "y")).max() <= step


def test_with_4_byte_dot_products_7_bit_weights_take_them_too(tmp_path: Path) -> None:
    """DOT4 (VNNI): weights whose pair sums fit int16 still take the 4-byte form, which
    does twice a pair's multiply-adds per instruction (they took the pair form, 25%
    slower on a Zen 4 ResNet-50)."""
    model = quantized_by_onnxruntime(tmp_path, residual_block(8), QuantType.QUInt8, QuantType.QInt8)
    convs = [
        node
        for node in kernel_calls(_optimized(model, products=DOT4))
        if node.op == "qnn.conv2d_nchwc"
    ]
    assert len(convs) == 4 and all(conv.attrs["dot_form"] == QUAD for conv in convs)


def test_qdq_matmuls_and_gemms_run_on_the_dot_product_kernel(tmp_path: Path) -> None:
    """MatMul (3-D data, an output count padded to whole blocks) and Gemm between
    quantized values: 1x1 integer convs over their rows, requantized as onnxruntime
    does, within one output step of its run."""
    model = quantized_by_onnxruntime(tmp_path, dense_block(), QuantType.QUInt8, QuantType.QInt8)
    prepared = _optimized(model)
    ops = _kernel_ops(prepared)
    assert ops.count("qnn.conv2d_nchwc") == 3
    assert "nn.matmul" not in ops and "nn.dense" not in ops
    compiled = compile_model(prepared, host_target())
    for inputs in model_inputs(model, 3, 6):
        ours = np.asarray(compiled.run(inputs))
        theirs = run_onnxruntime(model, inputs, "y")
        assert np.abs(ours - theirs).max() <= output_step(model) * 1.001


def test_a_real_network_quantized_by_onnxruntime_matches_it_within_one_step(
    tmp_path: Path,
) -> None:
    """SqueezeNet (ONNX's light model, random weights), quantized by onnxruntime: every
    conv is an integer kernel (the 3-channel stem padded to 4), and the logits lie within
    one output step of onnxruntime's int8 run (bit for bit on the hosts measured)."""
    model = quantized_by_onnxruntime(
        tmp_path, light_model_for_quantizing("light_squeezenet"), QuantType.QUInt8, QuantType.QInt8
    )
    prepared = _optimized(model)
    ops = _kernel_ops(prepared)
    assert ops.count("qnn.conv2d_nchwc") == 26
    assert ops.count("nn.conv2d_nchwc") + ops.count("nn.conv2d") == 0
    compiled = compile_model(prepared, host_target())
    output = model.graph.output[0].name
    for inputs in model_inputs(model, 2, 4):
        ours = np.asarray(compiled.run(inputs))
        theirs = run_onnxruntime(model, inputs, output)
        assert np.abs(ours - theirs).max() <= output_step(model) * 1.001
