"""QuantizeLinear / DequantizeLinear against onnxruntime (per tensor and per axis) and
against numpy (blocked, which onnxruntime does not run)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from ir.errors import ModelImportError
from ir.frontend.onnx import import_model
from tests.ir.frontend.onnx_helpers import (
    OpCase,
    assert_matches_onnxruntime,
    op_case,
    randn,
    run_compiled,
)

RNG = np.random.default_rng(5)
F32 = np.float32

QDQ = [
    op_case(
        "dequantize_uint8",
        "DequantizeLinear",
        ["x", "s", "z"],
        {"x": RNG.integers(0, 256, (3, 4)).astype(np.uint8)},
        consts={"s": np.array(0.05, F32), "z": np.array(128, np.uint8)},
    ),
    op_case(
        "dequantize_int8_per_axis",
        "DequantizeLinear",
        ["x", "s", "z"],
        {"x": RNG.integers(-128, 128, (4, 3, 2)).astype(np.int8)},
        consts={"s": np.array([0.1, 0.2, 0.05, 1.0], F32), "z": np.array([0, 3, -2, 1], np.int8)},
        axis=0,
    ),
    op_case(
        "dequantize_int32_no_zero_point",
        "DequantizeLinear",
        ["x", "s"],
        {"x": RNG.integers(-1000, 1000, (5,)).astype(np.int32)},
        consts={"s": np.array(0.001, F32)},
    ),
    op_case(
        "quantize_uint8",
        "QuantizeLinear",
        ["x", "s", "z"],
        {"x": np.concatenate([randn(10) * 4, np.array([0.25, 0.75, -0.25, 100, -100], F32)])},
        consts={"s": np.array(0.5, F32), "z": np.array(10, np.uint8)},
        outputs={"y": np.uint8},
    ),
    op_case(
        "quantize_int8_per_axis",
        "QuantizeLinear",
        ["x", "s", "z"],
        {"x": randn(2, 3, 4) * 10},
        consts={"s": np.array([0.1, 0.3, 0.07], F32), "z": np.array([0, -5, 7], np.int8)},
        outputs={"y": np.int8},
        axis=1,
    ),
    op_case(
        "quantize_21_output_dtype",
        "QuantizeLinear",
        ["x", "s"],
        {"x": randn(3, 4) * 30},
        consts={"s": np.array(0.3, F32)},
        outputs={"y": np.int8},
        opset=21,
        output_dtype=3,  # INT8
    ),
    op_case(
        "quantize_without_zero_point",
        "QuantizeLinear",
        ["x", "s"],
        {"x": randn(3, 4) * 50},
        consts={"s": np.array(0.3, F32)},
        outputs={"y": np.uint8},
    ),
]


@pytest.mark.parametrize("case", QDQ)
def test_quantization_op_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds, rtol=0, atol=1e-6)


@pytest.mark.parametrize("opset", [11, 13, 18, 21])
def test_dynamic_quantize_linear_imports_at_every_opset(opset: int) -> None:
    """DynamicQuantizeLinear runs as its schema's function (written for opset 11): at
    later opsets its Constant gained attributes and its ReduceMin an optional axes input,
    neither of which changes what the body means (it was refused from opset 13 on, so
    were the models onnxruntime's quantize_dynamic writes)."""
    case = OpCase(
        "DynamicQuantizeLinear",
        ["x"],
        {"x": randn(4, 7) * 3},
        opset=opset,
        outputs={"y": np.uint8, "y_scale": np.float32, "y_zero_point": np.uint8},
    )
    assert_matches_onnxruntime(case.model(), case.feeds, rtol=0, atol=1e-6)


U8, I8 = np.uint8, np.int8


def _u8(*shape: int) -> np.ndarray:
    return RNG.integers(0, 256, shape).astype(U8)


def _i8(*shape: int) -> np.ndarray:
    # 7-bit weights: with full-range int8 weights and uint8 inputs, onnxruntime's AVX2
    # kernels saturate pairs of products at int16 (its quantizer's reduce_range avoids
    # that), and its results then differ from the exact integer ones we compute.
    return RNG.integers(-64, 64, shape).astype(I8)


QOPERATORS = [
    op_case(
        "matmul_integer_per_column_zero_point",
        "MatMulInteger",
        ["a", "b", "az", "bz"],
        {"a": _u8(3, 5)},
        consts={"b": _u8(5, 4), "az": np.array(120, U8), "bz": _u8(4)},
        outputs={"y": np.int32},
    ),
    op_case(
        "conv_integer",
        "ConvInteger",
        ["x", "w", "xz"],
        {"x": _u8(1, 3, 6, 6)},
        consts={"w": _u8(4, 3, 3, 3), "xz": np.array(128, U8)},
        outputs={"y": np.int32},
        pads=[1, 1, 1, 1],
    ),
    op_case(
        "qlinear_matmul_int8_per_column",
        "QLinearMatMul",
        ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
        {"a": _i8(2, 4, 6)},
        consts={
            "as": np.array(0.02, F32),
            "az": np.array(-3, I8),
            "b": _i8(6, 5),
            "bs": np.array([0.01, 0.03, 0.02, 0.005, 0.04], F32),
            "bz": np.zeros(5, I8),
            "ys": np.array(0.05, F32),
            "yz": np.array(4, I8),
        },
        outputs={"y": np.int8},
    ),
    op_case(
        "qlinear_conv_per_channel_with_bias",
        "QLinearConv",
        ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
        {"x": _u8(1, 3, 7, 7)},
        consts={
            "xs": np.array(0.02, F32),
            "xz": np.array(128, U8),
            "w": _i8(4, 3, 3, 3),
            "ws": np.array([0.01, 0.02, 0.005, 0.03], F32),
            "wz": np.zeros(4, I8),
            "ys": np.array(0.1, F32),
            "yz": np.array(100, U8),
            "b": RNG.integers(-500, 500, 4).astype(np.int32),
        },
        outputs={"y": np.uint8},
        strides=[2, 2],
    ),
    # Constant int8 weights, zero points 0, channels in fours: the dot-product kernel.
    op_case(
        "qlinear_conv_dot_product",
        "QLinearConv",
        ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
        {"x": _u8(1, 8, 7, 7)},
        consts={
            "xs": np.array(0.02, F32),
            "xz": np.array(131, U8),
            "w": _i8(16, 8, 3, 3),
            "ws": RNG.uniform(0.005, 0.03, 16).astype(F32),
            "wz": np.zeros(16, I8),
            "ys": np.array(0.1, F32),
            "yz": np.array(100, U8),
            "b": RNG.integers(-500, 500, 16).astype(np.int32),
        },
        outputs={"y": np.uint8},
        pads=[1, 1, 1, 1],
    ),
    op_case(
        "qlinear_matmul_dot_product",
        "QLinearMatMul",
        ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
        {"a": _u8(2, 5, 12)},
        consts={
            "as": np.array(0.02, F32),
            "az": np.array(129, U8),
            "b": _i8(12, 20),
            "bs": RNG.uniform(0.005, 0.03, 20).astype(F32),
            "bz": np.zeros(20, I8),
            "ys": np.array(0.2, F32),
            "yz": np.array(120, U8),
        },
        outputs={"y": np.uint8},
    ),
    op_case(
        "matmul_integer_dot_product",
        "MatMulInteger",
        ["a", "b", "az"],
        {"a": _u8(3, 8)},
        consts={"b": _i8(8, 16), "az": np.array(17, U8)},
        outputs={"y": np.int32},
    ),
    op_case(
        "conv_integer_dot_product",
        "ConvInteger",
        ["x", "w", "xz"],
        {"x": _u8(1, 4, 6, 5)},
        consts={"w": _i8(8, 4, 3, 1), "xz": np.array(7, U8)},
        outputs={"y": np.int32},
        pads=[1, 0, 1, 0],
        strides=[1, 2],
    ),
]


@pytest.mark.parametrize("case", QOPERATORS)
def test_quantized_operator_matches_onnxruntime_exactly(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds, rtol=0, atol=0)


@pytest.mark.parametrize("case", QOPERATORS)
def test_quantized_operator_compiles_to_onnxruntime_s_integers(
    case: OpCase, request: pytest.FixtureRequest
) -> None:
    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target
    from ir.graph.nodes import Call, Function
    from ir.graph.traversal import post_order
    from tests.ir.frontend.onnx_helpers import run_onnxruntime

    model = case.model()
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    (expected,) = run_onnxruntime(model, case.feeds)
    actual = compiled.run(dict(case.feeds))
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual, expected)
    if request.node.callspec.id.endswith("dot_product"):
        ops = {
            node.op
            for kernel in post_order(compiled.function.body)
            if isinstance(kernel, Call) and isinstance(kernel.op, Function)
            for node in post_order(kernel.op.body)
            if isinstance(node, Call)
        }
        assert "qnn.conv2d_nchwc" in ops or "qnn.conv2d" in ops


def _qdq_model(
    scale: list[float] | float, zero_point: list[int] | int, axis: int | None, op: str
) -> onnx.ModelProto:
    """x [2, 3] through one QuantizeLinear or QuantizeLinear + DequantizeLinear node."""
    inits = [
        numpy_helper.from_array(np.array(scale, F32), "s"),
        numpy_helper.from_array(np.array(zero_point, U8), "z"),
    ]
    attrs = {} if axis is None else {"axis": axis}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quant", **attrs)]
    out, out_type = "q", TensorProto.UINT8
    if op == "DequantizeLinear":
        nodes = [
            helper.make_node("Cast", ["x"], ["q"], to=TensorProto.UINT8, name="cast"),
            helper.make_node(op, ["q", "s", "z"], ["y"], name="dequant", **attrs),
        ]
        out, out_type = "y", TensorProto.FLOAT
    graph = helper.make_graph(
        nodes,
        "qdq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info(out, out_type, [2, 3])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("op", ["QuantizeLinear", "DequantizeLinear"])
@pytest.mark.parametrize(
    ("scale", "zero_point", "axis", "message"),
    [
        (0.0, 3, None, r"scale \(input 1\) must be positive and finite; got 0\.0"),
        (-0.5, 3, None, r"scale \(input 1\) must be positive and finite; got -0\.5"),
        ([0.1, float("nan"), 0.2], [0, 0, 0], 1, r"got nan at index 1"),
        ([0.1, 0.2], [1, 2], 1, r"per-axis scale \(input 1\) has 2 values, but axis 1 .* has 3"),
        ([0.1, 0.2, 0.3], [1, 2], 1, r"per-axis zero point \(input 2\) has 2 values"),
    ],
)
def test_bad_quantization_parameters_are_refused_naming_the_node(
    op: str, scale: list[float] | float, zero_point: list[int] | int, axis: int | None, message: str
) -> None:
    node = "quant" if op == "QuantizeLinear" else "dequant"
    with pytest.raises(ModelImportError, match=rf"node '{node}' \({op}.*{message}"):
        import_model(_qdq_model(scale, zero_point, axis, op))


def test_dynamically_quantized_matmul_runs_on_the_dot_product_kernel_exactly() -> None:
    """DynamicQuantizeLinear then MatMulInteger by a constant int8 weight (onnxruntime's
    quantize_dynamic): the zero point is computed at run time, and its share is taken off
    the dot-product kernel's sum then; the int32 product equals onnxruntime's."""
    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target
    from tests.ir.frontend.onnx_helpers import run_onnxruntime
    from tests.support.quantized_models import kernel_calls

    weight = numpy_helper.from_array(_i8(24, 40), "w")  # (7-bit: see _i8)
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        helper.make_node("MatMulInteger", ["xq", "w", "xz"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "dynamic",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 24])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [2, 3, 40])],
        [weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    target = host_target()
    prepared = prepare_for_target(model, target).function
    assert "qnn.conv2d_nchwc" in [node.op for node in kernel_calls(prepared)]
    compiled = compile_model(prepared, target)
    for seed in range(3):
        feeds = {"x": np.random.default_rng(seed).normal(0.3, 1.0, (2, 3, 24)).astype(F32)}
        (expected,) = run_onnxruntime(model, feeds)
        np.testing.assert_array_equal(compiled.run(feeds), expected)


def test_a_model_quantize_dynamic_writes_runs_on_integer_kernels(tmp_path: Path) -> None:
    """onnxruntime's quantize_dynamic of an opset-17 MLP (DynamicQuantizeLinear and
    MatMulInteger per layer): every MatMulInteger an integer kernel, the output within
    float32 rounding of onnxruntime's (of ONNX's reference evaluator's on hosts where
    onnxruntime's int8 products saturate)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target
    from ir.graph.nodes import Call, Function
    from ir.graph.ops.quantized import computes_on_integers
    from ir.graph.traversal import post_order
    from tests.support.quantized_models import dense_block, exact_int8_run, model_inputs

    source, quantized = tmp_path / "dense.onnx", tmp_path / "dense.dynamic.onnx"
    onnx.save(dense_block(), str(source))
    quantize_dynamic(str(source), str(quantized), weight_type=QuantType.QInt8)
    model = onnx.load(str(quantized))
    assert model.opset_import[0].version >= 13
    assert [n.op_type for n in model.graph.node].count("MatMulInteger") == 3
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    integer = [
        kernel
        for kernel in post_order(compiled.function.body)
        if isinstance(kernel, Call)
        and isinstance(kernel.op, Function)
        and computes_on_integers(kernel.op)
    ]
    assert len(integer) == 3
    for feeds in model_inputs(model, 2, 3):
        expected = exact_int8_run(model, feeds)
        np.testing.assert_allclose(np.asarray(compiled.run(feeds)), expected, rtol=1e-5, atol=1e-6)


def _blocked_model(
    op: str, x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None, axis: int, block: int
) -> onnx.ModelProto:
    """One blocked QuantizeLinear or DequantizeLinear node (opset 21) on input x."""
    inits = [numpy_helper.from_array(scale, "s")]
    names = ["x", "s"]
    if zero_point is not None:
        inits.append(numpy_helper.from_array(zero_point, "z"))
        names.append("z")
    out_type = TensorProto.FLOAT if op == "DequantizeLinear" else TensorProto.INT8
    node = helper.make_node(op, names, ["y"], name="blocked", axis=axis, block_size=block)
    graph = helper.make_graph(
        [node],
        "blocked",
        [helper.make_tensor_value_info("x", helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)],
        [helper.make_tensor_value_info("y", out_type, x.shape)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model


def _spread(values: np.ndarray, axis: int, block: int, extent: int) -> np.ndarray:
    """Each blocked value repeated over its block, cut to the input's extent."""
    return np.take(np.repeat(values, block, axis=axis), np.arange(extent), axis=axis)


@pytest.mark.parametrize(
    ("shape", "axis", "block"),
    [((4, 12), 1, 4), ((4, 10), 1, 4), ((9, 3), 0, 2), ((2, 5, 3), -2, 3)],
)
def test_blocked_dequantize_repeats_each_scale_over_its_block(
    shape: tuple[int, ...], axis: int, block: int
) -> None:
    x = RNG.integers(-128, 128, shape).astype(I8)
    blocks = list(shape)
    blocks[axis] = -(-shape[axis] // block)
    scale = RNG.uniform(0.01, 0.5, blocks).astype(F32)
    zero_point = RNG.integers(-10, 10, blocks).astype(I8)
    got = run_compiled(
        _blocked_model("DequantizeLinear", x, scale, zero_point, axis, block), {"x": x}
    )
    extent = shape[axis]
    want = (x.astype(F32) - _spread(zero_point, axis, block, extent)) * _spread(
        scale, axis, block, extent
    )
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_blocked_quantize_rounds_each_block_by_its_own_scale() -> None:
    x = randn(6, 5) * 20
    scale = RNG.uniform(0.1, 0.5, (2, 5)).astype(F32)
    zero_point = RNG.integers(-5, 5, (2, 5)).astype(I8)
    got = run_compiled(_blocked_model("QuantizeLinear", x, scale, zero_point, 0, 3), {"x": x})
    shifted = np.rint(x / np.repeat(scale, 3, axis=0)) + np.repeat(zero_point, 3, axis=0)
    want = np.clip(shifted, -128, 127).astype(I8)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", ["QuantizeLinear", "DequantizeLinear"])
def test_a_blocked_scale_of_the_wrong_shape_is_refused_naming_the_node(op: str) -> None:
    x = (randn(4, 10) * 10).astype(F32 if op == "QuantizeLinear" else I8)
    scale = np.full((4, 2), 0.1, F32)  # block 4 along axis 1 of 10 needs 3 blocks
    with pytest.raises(
        ModelImportError,
        match=r"node 'blocked' .*blocked scale \(input 1\) has shape \(4, 2\); with "
        r"block_size 4 along axis 1 .* must be \(4, 3\)",
    ):
        import_model(_blocked_model(op, x, scale, None, 1, 4))
