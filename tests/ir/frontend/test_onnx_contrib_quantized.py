"""ONNX Runtime's quantized contrib ops (com.microsoft, its QOperator form) against
onnxruntime: each op alone, and whole models quantized by onnxruntime in QOperator form,
which must compile to the same integer kernels as their QDQ form."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantFormat, QuantType

from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.errors import ModelImportError, UnsupportedOpError
from ir.frontend.onnx import import_model
from ir.graph.nodes import Call, Function
from ir.graph.ops.quantized import computes_on_integers
from ir.graph.traversal import post_order
from tests.ir.frontend.onnx_helpers import run_onnxruntime
from tests.support.quantized_models import (
    dense_block,
    model_inputs,
    onnxruntime_int8_is_exact,
    quantized_by_onnxruntime,
    residual_block,
)

RNG = np.random.default_rng(11)
U8, I8, F32 = np.uint8, np.int8, np.float32
_ELEMENT = {U8: TensorProto.UINT8, I8: TensorProto.INT8, F32: TensorProto.FLOAT}


def _u8(*shape: int) -> np.ndarray:
    return RNG.integers(0, 256, shape).astype(U8)


def _i8(*shape: int) -> np.ndarray:
    return RNG.integers(-128, 128, shape).astype(I8)


def _s(value: float | list[float]) -> np.ndarray:
    return np.asarray(value, F32)


def _contrib_model(
    op_type: str,
    inputs: list[str],
    feeds: Mapping[str, np.ndarray],
    consts: Mapping[str, np.ndarray],
    output: tuple[Any, tuple[int, ...]],
    **attrs: Any,
) -> onnx.ModelProto:
    """A one-node model of com.microsoft's `op_type` (opset 13), its output `y` of
    `output` (element type, shape)."""
    node = helper.make_node(op_type, inputs, ["y"], name="node0", domain="com.microsoft", **attrs)
    graph = helper.make_graph(
        [node],
        op_type,
        [
            helper.make_tensor_value_info(name, _ELEMENT[array.dtype.type], array.shape)
            for name, array in feeds.items()
        ],
        [helper.make_tensor_value_info("y", _ELEMENT[output[0]], output[1])],
        [numpy_helper.from_array(array, name) for name, array in consts.items()],
    )
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)],
    )


def _case(
    case_id: str,
    op_type: str,
    inputs: list[str],
    feeds: dict[str, np.ndarray],
    consts: dict[str, np.ndarray],
    output: tuple[Any, tuple[int, ...]],
    **attrs: Any,
) -> Any:
    model = _contrib_model(op_type, inputs, feeds, consts, output, **attrs)
    return pytest.param(model, feeds, id=case_id)


_BINARY_PARAMS = {"sa": _s(0.03), "za": np.array(120, U8), "sb": _s(0.05), "zb": np.array(9, U8)}
_OUT_U8 = {"sy": _s(0.06), "zy": np.array(100, U8)}
_UNARY = {"sx": _s(0.04), "zx": np.array(130, U8), **_OUT_U8}

CASES = [
    _case(
        "add_broadcast",
        "QLinearAdd",
        ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"],
        {"a": _u8(1, 6, 5, 5)},
        {"b": _u8(6, 1, 1), **_BINARY_PARAMS, **_OUT_U8},
        (U8, (1, 6, 5, 5)),
    ),
    _case(
        "add_int8",
        "QLinearAdd",
        ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"],
        {"a": _i8(4, 7), "b": _i8(4, 7)},
        {
            "sa": _s(0.02),
            "za": np.array(-3, I8),
            "sb": _s(0.03),
            "zb": np.array(5, I8),
            "sy": _s(0.04),
            "zy": np.array(-1, I8),
        },
        (I8, (4, 7)),
    ),
    _case(
        "mul",
        "QLinearMul",
        ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"],
        {"a": _u8(2, 3, 8), "b": _u8(2, 3, 8)},
        {**_BINARY_PARAMS, "sy": _s(0.1), "zy": np.array(3, U8)},
        (U8, (2, 3, 8)),
    ),
    _case(
        "sigmoid",
        "QLinearSigmoid",
        ["x", "sx", "zx", "sy", "zy"],
        {"x": _u8(3, 17)},
        _UNARY,
        (U8, (3, 17)),
    ),
    _case(
        "leaky_relu",
        "QLinearLeakyRelu",
        ["x", "sx", "zx", "sy", "zy"],
        {"x": _u8(3, 17)},
        _UNARY,
        (U8, (3, 17)),
        alpha=0.1,
    ),
    _case(
        "softmax",
        "QLinearSoftmax",
        ["x", "sx", "zx", "sy", "zy"],
        {"x": _u8(2, 4, 9)},
        {**_UNARY, "sy": _s(1 / 256), "zy": np.array(0, U8)},
        (U8, (2, 4, 9)),
        axis=-1,
        opset=13,
    ),
    _case(
        "global_average_pool",
        "QLinearGlobalAveragePool",
        ["x", "sx", "zx", "sy", "zy"],
        {"x": _u8(1, 5, 6, 7)},
        _UNARY,
        (U8, (1, 5, 1, 1)),
    ),
    _case(
        "global_average_pool_channels_last",
        "QLinearGlobalAveragePool",
        ["x", "sx", "zx", "sy", "zy"],
        {"x": _u8(1, 6, 7, 5)},
        _UNARY,
        (U8, (1, 1, 1, 5)),
        channels_last=1,
    ),
    _case(
        "average_pool",
        "QLinearAveragePool",
        ["x", "sx", "zx", "sy", "zy"],
        {"x": _u8(1, 3, 9, 9)},
        _UNARY,
        (U8, (1, 3, 5, 5)),
        kernel_shape=[3, 3],
        strides=[2, 2],
        pads=[1, 1, 1, 1],
    ),
    _case(
        "concat",
        "QLinearConcat",
        ["sy", "zy", "a", "sa", "za", "b", "sb", "zb"],
        {"a": _u8(1, 2, 4), "b": _u8(1, 3, 4)},
        {**_BINARY_PARAMS, **_OUT_U8},
        (U8, (1, 5, 4)),
        axis=1,
    ),
    _case(
        "gemm_per_channel_bias_trans_b",
        "QGemm",
        ["a", "sa", "za", "w", "sw", "zw", "bias", "sy", "zy"],
        {"a": _u8(5, 32)},
        {
            "sa": _s(0.02),
            "za": np.array(118, U8),
            "w": _i8(12, 32) // 2,
            "sw": _s(list(RNG.uniform(0.002, 0.01, 12))),
            "zw": np.zeros(12, I8),
            "bias": RNG.integers(-3000, 3000, 12).astype(np.int32),
            **_OUT_U8,
        },
        (U8, (5, 12)),
        transB=1,
    ),
    _case(
        "gemm_float_output",
        "QGemm",
        ["a", "sa", "za", "w", "sw", "zw"],
        {"a": _u8(3, 16)},
        {
            "sa": _s(0.02),
            "za": np.array(128, U8),
            "w": _i8(16, 8) // 2,
            "sw": _s(0.01),
            "zw": np.array(0, I8),
        },
        (F32, (3, 8)),
        alpha=0.5,
    ),
]


CASES += [
    _case(
        "matmul_integer_to_float",
        "MatMulIntegerToFloat",
        ["a", "w", "sa", "sw", "za", "zw", "bias"],
        {"a": _u8(4, 32)},
        {
            "w": _i8(32, 12),
            "sa": _s(0.02),
            "sw": _s(list(RNG.uniform(0.002, 0.01, 12))),
            "za": np.array(120, U8),
            "zw": np.array(0, I8),
            "bias": RNG.standard_normal(12).astype(F32),
        },
        (F32, (4, 12)),
    ),
    _case(
        "dynamic_quantize_matmul",
        "DynamicQuantizeMatMul",
        ["a", "w", "sw", "zw", "bias"],
        {"a": RNG.standard_normal((3, 32)).astype(F32)},
        {
            "w": _i8(32, 8),
            "sw": _s(0.01),
            "zw": np.array(0, I8),
            "bias": RNG.standard_normal(8).astype(F32),
        },
        (F32, (3, 8)),
    ),
]


def _exact_matmul(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> np.ndarray | None:
    """The exact result (float64 sums, then float32) of a one-node MatMulIntegerToFloat
    or DynamicQuantizeMatMul model on `feeds` (DynamicQuantizeLinear's uint8 quantization
    of the data first); None for other ops."""
    node = model.graph.node[0]
    values = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    values.update(feeds)
    operand = [values[name] for name in node.input]
    if node.op_type == "MatMulIntegerToFloat":
        data, weight, data_scale, weight_scale, data_zero, weight_zero, bias = operand
    elif node.op_type == "DynamicQuantizeMatMul":
        floats, weight, weight_scale, weight_zero, bias = operand
        low, high = min(0.0, float(floats.min())), max(0.0, float(floats.max()))
        data_scale = np.float32((high - low) / 255)
        data_zero = np.clip(np.round(-low / data_scale), 0, 255)
        data = np.clip(np.round(floats / data_scale) + data_zero, 0, 255)
    else:
        return None
    centred = data.astype(np.float64) - data_zero.astype(np.float64)
    product = centred @ (weight.astype(np.float64) - weight_zero.astype(np.float64))
    scaled = product * (np.float64(data_scale) * weight_scale.astype(np.float64))
    return (scaled + bias).astype(F32)


@pytest.mark.parametrize(("model", "feeds"), CASES)
def test_contrib_op_matches_onnxruntime_within_a_step(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray]
) -> None:
    """Compiled for this host, each op lies within one output quantization step of
    onnxruntime's (which computes some in fixed point, some through lookup tables); an
    8-bit matrix product also within float32 rounding of its exact value, which replaces
    onnxruntime's where its int8 products saturate (AVX2 without VNNI)."""
    (expected,) = run_onnxruntime(model, feeds)
    exact = _exact_matmul(model, feeds)
    if exact is not None and not onnxruntime_int8_is_exact():
        expected = exact
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    actual = np.asarray(compiled.run(dict(feeds)))
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if expected.dtype == F32:
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    else:
        assert np.abs(actual.astype(np.int32) - expected.astype(np.int32)).max() <= 1


@pytest.mark.parametrize("op_type", ["QLinearAdd", "QLinearMul", "QLinearSigmoid"])
def test_a_zero_scale_is_refused_naming_the_node(op_type: str) -> None:
    binary = op_type != "QLinearSigmoid"
    inputs = (
        ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"] if binary else ["a", "sa", "za", "sy", "zy"]
    )
    consts = {**_BINARY_PARAMS, "sy": _s(0.0), "zy": np.array(0, U8)}
    if binary:
        consts["b"] = _u8(3)
    model = _contrib_model(op_type, inputs, {"a": _u8(3)}, consts, (U8, (3,)))
    with pytest.raises(ModelImportError, match=r"'node0[^']*'.*scale \(input \d\) must be"):
        import_model(model)


def test_an_unknown_contrib_op_is_refused_by_name() -> None:
    model = _contrib_model("QLinearWhere", ["c", "x"], {"c": _u8(3), "x": _u8(3)}, {}, (U8, (3,)))
    with pytest.raises(UnsupportedOpError, match=r"'node0' \(QLinearWhere\): domain"):
        import_model(model)


@pytest.mark.parametrize("build", [residual_block, dense_block], ids=["residual", "dense"])
def test_a_qoperator_model_runs_the_integer_kernels_of_its_qdq_form(
    tmp_path: Path, build: Any
) -> None:
    """onnxruntime's QOperator form (QLinearConv, QLinearAdd, QLinearGlobalAveragePool,
    QGemm...) compiles to as many integer kernels as its QDQ form, and its output lies
    within one output step of onnxruntime's run of it."""
    float_model = build(8) if build is residual_block else build()
    forms = {}
    for quant_format in (QuantFormat.QDQ, QuantFormat.QOperator):
        folder = tmp_path / quant_format.name
        folder.mkdir()
        forms[quant_format] = quantized_by_onnxruntime(
            folder, float_model, QuantType.QUInt8, QuantType.QInt8, quant_format=quant_format
        )
    target = host_target()
    compiled = {
        form: compile_model(prepare_for_target(model, target).function, target)
        for form, model in forms.items()
    }
    integer = {
        form: sum(
            1
            for kernel in post_order(model.function.body)
            if isinstance(kernel, Call)
            and isinstance(kernel.op, Function)
            and computes_on_integers(kernel.op)
        )
        for form, model in compiled.items()
    }
    assert integer[QuantFormat.QOperator] == integer[QuantFormat.QDQ] > 0
    qoperator = forms[QuantFormat.QOperator]
    assert any(node.domain == "com.microsoft" for node in qoperator.graph.node)
    for feeds in model_inputs(float_model, 3, 4):
        (expected,) = run_onnxruntime(qoperator, feeds)
        actual = np.asarray(compiled[QuantFormat.QOperator].run(feeds))
        step = np.abs(expected).max() / 127  # (the output is dequantized: its scale bounds this)
        assert np.abs(actual - expected).max() <= step


def test_a_contrib_op_inside_a_branch_is_rewritten_too() -> None:
    """QLinearAdd in both branches of an If on a run-time condition (onnxruntime's
    quantizer leaves subgraphs' ops in its domain too): both branches run it as ours."""
    consts = {**_BINARY_PARAMS, **_OUT_U8}

    def branch(name: str, left: str) -> onnx.GraphProto:
        node = helper.make_node(
            "QLinearAdd",
            [left, "sa", "za", "b", "sb", "zb", "sy", "zy"],
            [f"{name}_y"],
            name=f"{name}_add",
            domain="com.microsoft",
        )
        output = helper.make_tensor_value_info(f"{name}_y", TensorProto.UINT8, [2, 5])
        return helper.make_graph([node], name, [], [output])

    node = helper.make_node(
        "If", ["c"], ["y"], then_branch=branch("then", "a"), else_branch=branch("else", "b")
    )
    feeds = {"c": np.array(True), "a": _u8(2, 5), "b": _u8(2, 5)}
    graph = helper.make_graph(
        [node],
        "branches",
        [
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("a", TensorProto.UINT8, [2, 5]),
            helper.make_tensor_value_info("b", TensorProto.UINT8, [2, 5]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [2, 5])],
        [numpy_helper.from_array(v, k) for k, v in consts.items()],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)]
    )
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    for condition in (True, False):
        inputs = {**feeds, "c": np.array(condition)}
        (expected,) = run_onnxruntime(model, inputs)
        actual = np.asarray(compiled.run(inputs))
        assert np.abs(actual.astype(np.int32) - expected.astype(np.int32)).max() <= 1
