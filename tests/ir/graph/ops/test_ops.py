"""The op table: type relations, numpy references against onnxruntime, table completeness."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

from ir.errors import TypeInferenceError
from ir.graph.ops import get_op
from ir.graph.types import TensorType, TupleType, Type

RTOL, ATOL = 1e-4, 1e-5
INT64_MAX, INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min

# --- helpers -------------------------------------------------------------------------------


def infer(op: str, arg_types: Sequence[Type], **attrs: object) -> Type:
    """The op's output type for `arg_types`."""
    op_def = get_op(op)
    op_def.check_arity(len(arg_types))
    return op_def.type_relation(arg_types, op_def.make_attrs(attrs))


def evaluate(op: str, inputs: Sequence[np.ndarray], **attrs: object) -> Any:
    """Run the op's reference, checking the result against its type relation."""
    op_def = get_op(op)
    op_attrs = op_def.make_attrs(attrs)
    arg_types = [TensorType(value.shape, str(value.dtype)) for value in inputs]
    out_type = op_def.type_relation(arg_types, op_attrs)
    result = op_def.reference(list(inputs), op_attrs)
    outputs, types = (
        (result, out_type.fields) if isinstance(out_type, TupleType) else ((result,), (out_type,))
    )
    assert len(outputs) == len(types)
    for value, ty in zip(outputs, types, strict=True):
        assert isinstance(ty, TensorType)
        assert isinstance(value, np.ndarray)
        assert (value.shape, str(value.dtype)) == (ty.shape, ty.dtype), (op, value.shape, ty)
    return result


def run_onnx(
    op_type: str,
    inputs: Sequence[np.ndarray],
    attrs: dict[str, object] | None = None,
    *,
    consts: Sequence[np.ndarray | None] = (),
    num_outputs: int = 1,
    opset: int = 18,
) -> list[np.ndarray]:
    """Run one ONNX node in onnxruntime; `consts` follow `inputs` as initializers."""
    names = [f"input{i}" for i in range(len(inputs))]
    const_names = ["" if value is None else f"const{i}" for i, value in enumerate(consts)]
    outputs = [f"output{i}" for i in range(num_outputs)]
    node = helper.make_node(op_type, names + const_names, outputs, **(attrs or {}))
    graph = helper.make_graph(
        [node],
        "single_op",
        [
            helper.make_tensor_value_info(
                name, helper.np_dtype_to_tensor_dtype(value.dtype), value.shape
            )
            for name, value in zip(names, inputs, strict=True)
        ],
        [onnx.ValueInfoProto(name=name) for name in outputs],
        initializer=[
            numpy_helper.from_array(value, name)
            for name, value in zip(const_names, consts, strict=True)
            if value is not None
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset <= 18 else 9
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return list(session.run(None, dict(zip(names, inputs, strict=True))))


def assert_close(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL)


def randn(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def f32(*shape: int) -> TensorType:
    return TensorType(shape, "float32")


# --- nn: convolution and matrix products ---------------------------------------------------

CONV_CASES = [
    # data shape, weight shape, strides, padding (top, left, bottom, right), dilation, groups
    ((1, 3, 8, 8), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((2, 4, 9, 7), (6, 4, 3, 2), (2, 1), (1, 0, 2, 1), (1, 1), 1),
    ((1, 3, 12, 11), (5, 3, 3, 3), (1, 2), (2, 3, 2, 3), (2, 3), 1),
    ((1, 6, 10, 10), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 2),
    ((2, 8, 9, 9), (8, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 8),  # depthwise
    ((1, 4, 7, 7), (8, 1, 3, 3), (1, 1), (1, 2, 0, 1), (2, 2), 4),  # depthwise, multiplier 2
    ((1, 3, 23, 23), (8, 3, 7, 7), (2, 2), (3, 3, 3, 3), (1, 1), 1),
    ((1, 16, 8, 8), (12, 16, 1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),
    ((1, 32, 56, 56), (64, 32, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
]


@pytest.mark.parametrize(
    ("data_shape", "weight_shape", "strides", "pads", "dilation", "groups"), CONV_CASES
)
def test_conv2d_matches_onnxruntime(
    data_shape: tuple[int, ...],
    weight_shape: tuple[int, ...],
    strides: tuple[int, int],
    pads: tuple[int, ...],
    dilation: tuple[int, int],
    groups: int,
) -> None:
    data = randn(*data_shape, seed=1)
    # He-style weight scale keeps outputs near 1, so float32 rounding stays within tolerance.
    fan_in = int(np.prod(weight_shape[1:]))
    weight = randn(*weight_shape, seed=2) / np.float32(np.sqrt(fan_in))
    ours = evaluate(
        "nn.conv2d", [data, weight], strides=strides, padding=pads, dilation=dilation, groups=groups
    )
    attrs = dict(strides=strides, pads=pads, dilations=dilation, group=groups)
    assert_close(ours, run_onnx("Conv", [data, weight], attrs)[0])


def test_conv2d_type_errors_name_both_shapes() -> None:
    assert infer("nn.conv2d", [f32(1, 64, 56, 56), f32(128, 64, 3, 3)], padding=(1, 1, 1, 1)) == (
        f32(1, 128, 56, 56)
    )
    with pytest.raises(TypeInferenceError) as error:
        infer("nn.conv2d", [f32(1, 64, 56, 56), f32(128, 32, 3, 3)])
    message = str(error.value)
    assert "nn.conv2d" in message and "(1, 64, 56, 56)" in message and "(128, 32, 3, 3)" in message
    assert "groups=1" in message
    with pytest.raises(TypeInferenceError, match=r"\(8, 3, 7, 7\).*\(1, 3, 4, 4\)"):
        infer("nn.conv2d", [f32(1, 3, 4, 4), f32(8, 3, 7, 7)])
    with pytest.raises(TypeInferenceError, match="4-D"):
        infer("nn.conv2d", [f32(3, 4, 4), f32(8, 3, 3, 3)])
    with pytest.raises(TypeInferenceError, match="dtype"):
        infer("nn.conv2d", [f32(1, 3, 4, 4), TensorType((8, 3, 3, 3), "float16")])


def test_8_bit_conv_dot_forms_and_their_operand_types() -> None:
    """qnn.conv2d_nchwc's dot form fixes its operands' types: int16 weights (and data, if
    so widened) only in the word form; an unknown form is refused by name."""
    data, words = TensorType((1, 2, 5, 5, 8), "uint8"), TensorType((1, 2, 3, 3, 2, 32), "int16")
    wide = TensorType((1, 2, 5, 5, 8), "int16")
    out = TensorType((1, 1, 5, 5, 8), "int32")
    assert infer("qnn.conv2d_nchwc", [wide, words], padding=(1,) * 4, dot_form="word") == out
    with pytest.raises(TypeInferenceError, match="word form's weight must be int16"):
        infer("qnn.conv2d_nchwc", [data, TensorType(words.shape, "int8")], dot_form="word")
    with pytest.raises(TypeInferenceError, match="weight must be uint8 or int8, got int16"):
        infer("qnn.conv2d_nchwc", [data, words], dot_form="pair")
    with pytest.raises(TypeInferenceError, match=r"data must be one of \('uint8', 'int8'\)"):
        infer("qnn.conv2d_nchwc", [wide, TensorType(words.shape, "int8")], dot_form="quad")
    with pytest.raises(TypeInferenceError, match=r"dot_form must be one of .*'octet'"):
        infer("qnn.conv2d_nchwc", [data, words], dot_form="octet")


@pytest.mark.parametrize(
    ("lhs_shape", "rhs_shape"),
    [((3, 4), (4, 5)), ((4,), (4, 5)), ((2, 3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 6)), ((4,), (4,))],
)
def test_matmul_matches_onnxruntime(lhs_shape: tuple[int, ...], rhs_shape: tuple[int, ...]) -> None:
    lhs, rhs = randn(*lhs_shape, seed=3), randn(*rhs_shape, seed=4)
    assert_close(evaluate("nn.matmul", [lhs, rhs]), run_onnx("MatMul", [lhs, rhs])[0])


def test_matmul_type_errors() -> None:
    assert infer("nn.matmul", [f32(7, 1, 3, 4), f32(5, 4, 6)]) == f32(7, 5, 3, 6)
    with pytest.raises(TypeInferenceError, match=r"\(2, 3, 4\).*\(5, 6\)"):
        infer("nn.matmul", [f32(2, 3, 4), f32(5, 6)])
    with pytest.raises(TypeInferenceError, match=r"\(2, 3, 4\).*\(3, 4, 6\)"):
        infer("nn.matmul", [f32(2, 3, 4), f32(3, 4, 6)])


@pytest.mark.parametrize("data_shape", [(8, 16), (2, 3, 16)])
def test_dense_matches_onnxruntime(data_shape: tuple[int, ...]) -> None:
    data, weight = randn(*data_shape, seed=5), randn(10, 16, seed=6)
    expected = run_onnx("MatMul", [data], consts=[np.ascontiguousarray(weight.T)])[0]
    assert_close(evaluate("nn.dense", [data, weight]), expected)
    with pytest.raises(TypeInferenceError, match=r"nn.dense.*\(8, 15\).*\(10, 16\)"):
        infer("nn.dense", [f32(8, 15), f32(10, 16)])


@pytest.mark.parametrize(
    ("lhs_shape", "rhs_shape", "transpose_a", "transpose_b"),
    [
        ((3, 4, 5), (3, 5, 6), False, False),
        ((1, 4, 5), (3, 6, 5), False, True),
        ((3, 5, 4), (1, 5, 6), True, False),
        ((2, 5, 4), (2, 6, 5), True, True),
    ],
)
def test_batch_matmul_matches_onnxruntime(
    lhs_shape: tuple[int, ...], rhs_shape: tuple[int, ...], transpose_a: bool, transpose_b: bool
) -> None:
    lhs, rhs = randn(*lhs_shape, seed=7), randn(*rhs_shape, seed=8)
    ours = evaluate("nn.batch_matmul", [lhs, rhs], transpose_a=transpose_a, transpose_b=transpose_b)
    onnx_lhs = np.ascontiguousarray(lhs.transpose(0, 2, 1)) if transpose_a else lhs
    onnx_rhs = np.ascontiguousarray(rhs.transpose(0, 2, 1)) if transpose_b else rhs
    assert_close(ours, run_onnx("MatMul", [onnx_lhs, onnx_rhs])[0])


def test_batch_matmul_type_errors() -> None:
    with pytest.raises(TypeInferenceError, match=r"\(3, 4, 5\).*\(3, 6, 5\)"):
        infer("nn.batch_matmul", [f32(3, 4, 5), f32(3, 6, 5)])
    with pytest.raises(TypeInferenceError, match=r"\(3, 4, 5\).*\(2, 5, 6\)"):
        infer("nn.batch_matmul", [f32(3, 4, 5), f32(2, 5, 6)])


# --- nn: normalisation and softmax ---------------------------------------------------------


def test_batch_norm_matches_onnxruntime() -> None:
    data = randn(2, 4, 5, 5, seed=9)
    rng = np.random.default_rng(10)
    gamma, beta, mean = (rng.standard_normal(4).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.5, 2.0, 4).astype(np.float32)
    ours = evaluate("nn.batch_norm", [data, gamma, beta, mean, var], epsilon=1e-3)
    expected = run_onnx(
        "BatchNormalization", [data, gamma, beta, mean, var], {"epsilon": 1e-3}, opset=15
    )[0]
    assert_close(ours, expected)
    with pytest.raises(TypeInferenceError, match=r"moving_var.*\(3,\).*\(2, 4, 5, 5\)"):
        infer("nn.batch_norm", [f32(2, 4, 5, 5), f32(4), f32(4), f32(4), f32(3)])


def test_dropout_is_identity() -> None:
    data = randn(3, 4)
    assert_close(evaluate("nn.dropout", [data], rate=0.3), run_onnx("Dropout", [data])[0])


@pytest.mark.parametrize(
    ("op", "onnx_op"), [("nn.softmax", "Softmax"), ("nn.log_softmax", "LogSoftmax")]
)
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_matches_onnxruntime(op: str, onnx_op: str, axis: int) -> None:
    data = randn(3, 5, 7, seed=11) * 20.0
    assert_close(evaluate(op, [data], axis=axis), run_onnx(onnx_op, [data], {"axis": axis})[0])


@pytest.mark.parametrize(
    ("size", "alpha", "beta", "bias"),
    [(1, 0.5, 0.75, 1.0), (3, 1e-4, 0.75, 1.0), (5, 0.1, 0.5, 2.0), (9, 0.02, 1.0, 0.5)],
)
def test_lrn_matches_onnxruntime(size: int, alpha: float, beta: float, bias: float) -> None:
    data = randn(2, 7, 4, 5, seed=12)
    ours = evaluate("nn.lrn", [data], size=size, alpha=alpha, beta=beta, bias=bias)
    attrs = dict(size=size, alpha=alpha, beta=beta, bias=bias)
    assert_close(ours, run_onnx("LRN", [data], attrs)[0])


def test_lrn_even_size_follows_the_onnx_window() -> None:
    # onnxruntime rejects even sizes; the ONNX spec's window is [c - 1, c + 2] for size 4.
    data = randn(1, 6, 2, 3, seed=12)
    squares = data.astype(np.float64) ** 2
    window_sums = np.stack(
        [squares[:, max(c - 1, 0) : c + 3].sum(axis=1) for c in range(6)], axis=1
    )
    expected = (data / (2.0 + 0.1 / 4 * window_sums) ** 0.5).astype(np.float32)
    assert_close(evaluate("nn.lrn", [data], size=4, alpha=0.1, beta=0.5, bias=2.0), expected)


@pytest.mark.parametrize("axis", [-1, 1, 2])
def test_layer_norm_matches_onnxruntime(axis: int) -> None:
    data = randn(2, 3, 4, 5, seed=13) * 3.0 + 1.0
    tail = data.shape[axis:]
    gamma, beta = randn(*tail, seed=14), randn(*tail, seed=15)
    ours = evaluate("nn.layer_norm", [data, gamma, beta], axis=axis, epsilon=1e-4)
    attrs = {"axis": axis, "epsilon": 1e-4}
    assert_close(ours, run_onnx("LayerNormalization", [data, gamma, beta], attrs, opset=17)[0])


def test_layer_norm_broadcasts_gamma_and_names_bad_shapes() -> None:
    data, gamma, beta = randn(2, 3, 4), randn(4), randn(1, 4)
    ours = evaluate("nn.layer_norm", [data, gamma, beta], axis=1)
    mean = data.mean(axis=(1, 2), keepdims=True)
    var = data.var(axis=(1, 2), keepdims=True)
    assert_close(ours, ((data - mean) / np.sqrt(var + 1e-5) * gamma + beta).astype(np.float32))
    with pytest.raises(TypeInferenceError, match=r"gamma.*\(3,\).*\(2, 3, 4\)"):
        infer("nn.layer_norm", [f32(2, 3, 4), f32(3), f32(4)])


# --- pooling and padding -------------------------------------------------------------------

POOL_CASES = [
    # data shape, kernel, strides, pads, dilation, ceil_mode
    ((1, 2, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), False),
    ((2, 3, 7, 9), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False),
    ((1, 2, 6, 6), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True),  # last window reads past pads
    ((1, 2, 5, 7), (2, 3), (2, 2), (1, 0, 1, 1), (1, 1), True),  # the ceil drop rule fires
    ((1, 2, 9, 8), (3, 2), (2, 3), (0, 1, 2, 0), (1, 1), True),
    ((1, 2, 9, 9), (2, 2), (2, 2), (1, 1, 1, 1), (2, 2), True),
    ((1, 3, 112, 112), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False),
]


@pytest.mark.parametrize(
    ("shape", "kernel", "strides", "pads", "dilation", "ceil_mode"), POOL_CASES
)
def test_max_pool2d_matches_onnxruntime(
    shape: tuple[int, ...],
    kernel: tuple[int, int],
    strides: tuple[int, int],
    pads: tuple[int, ...],
    dilation: tuple[int, int],
    ceil_mode: bool,
) -> None:
    data = randn(*shape, seed=16)
    ours = evaluate(
        "nn.max_pool2d",
        [data],
        pool_size=kernel,
        strides=strides,
        padding=pads,
        dilation=dilation,
        ceil_mode=ceil_mode,
    )
    attrs = dict(
        kernel_shape=kernel,
        strides=strides,
        pads=pads,
        dilations=dilation,
        ceil_mode=int(ceil_mode),
    )
    assert_close(ours, run_onnx("MaxPool", [data], attrs)[0])


@pytest.mark.parametrize("count_include_pad", [False, True])
@pytest.mark.parametrize(
    ("shape", "kernel", "strides", "pads", "dilation", "ceil_mode"), POOL_CASES
)
def test_avg_pool2d_matches_onnxruntime(
    shape: tuple[int, ...],
    kernel: tuple[int, int],
    strides: tuple[int, int],
    pads: tuple[int, ...],
    dilation: tuple[int, int],
    ceil_mode: bool,
    count_include_pad: bool,
) -> None:
    data = randn(*shape, seed=17)
    ours = evaluate(
        "nn.avg_pool2d",
        [data],
        pool_size=kernel,
        strides=strides,
        padding=pads,
        dilation=dilation,
        ceil_mode=ceil_mode,
        count_include_pad=count_include_pad,
    )
    attrs = dict(
        kernel_shape=kernel,
        strides=strides,
        pads=pads,
        dilations=dilation,
        ceil_mode=int(ceil_mode),
        count_include_pad=int(count_include_pad),
    )
    assert_close(ours, run_onnx("AveragePool", [data], attrs, opset=19)[0])


def test_pool_output_shapes_and_errors() -> None:
    # ceil_mode: ceil((5 + 2 - 2) / 2) + 1 = 4 windows, but the last would start in padding.
    out = infer(
        "nn.max_pool2d",
        [f32(1, 1, 5, 5)],
        pool_size=(2, 2),
        strides=(2, 2),
        padding=(1, 1, 1, 1),
        ceil_mode=True,
    )
    assert out == f32(1, 1, 3, 3)
    with pytest.raises(TypeInferenceError, match=r"nn.avg_pool2d.*\(1, 1, 2, 2\)"):
        infer("nn.avg_pool2d", [f32(1, 1, 2, 2)], pool_size=(3, 3))
    with pytest.raises(TypeInferenceError, match=r"\(2, 2\)"):
        infer("nn.max_pool2d", [f32(2, 2)], pool_size=(1, 1))


@pytest.mark.parametrize(
    ("op", "onnx_op"),
    [("nn.global_avg_pool2d", "GlobalAveragePool"), ("nn.global_max_pool2d", "GlobalMaxPool")],
)
def test_global_pools_match_onnxruntime(op: str, onnx_op: str) -> None:
    data = randn(2, 3, 7, 5, seed=18)
    assert_close(evaluate(op, [data]), run_onnx(onnx_op, [data])[0])


PAD_CASES = [
    ("constant", ((0, 0), (1, 2), (3, 0)), 1.5),
    ("constant", ((1, -1), (-2, 1), (0, -3)), -2.0),  # negative widths crop
    ("edge", ((0, 1), (2, 2), (1, 3)), 0.0),
    ("reflect", ((1, 1), (2, 0), (0, 4)), 0.0),
    ("reflect", ((0, 0), (-1, 2), (2, -1)), 0.0),
]


@pytest.mark.parametrize(("mode", "pad_width", "value"), PAD_CASES)
def test_pad_matches_onnxruntime(
    mode: str, pad_width: tuple[tuple[int, int], ...], value: float
) -> None:
    data = randn(2, 4, 6, seed=19)
    ours = evaluate("nn.pad", [data], pad_width=pad_width, pad_value=value, mode=mode)
    pads = np.array([before for before, _ in pad_width] + [after for _, after in pad_width])
    consts = [pads, np.array(value, dtype=np.float32)]
    assert_close(ours, run_onnx("Pad", [data], {"mode": mode}, consts=consts)[0])


def test_pad_type_errors() -> None:
    with pytest.raises(TypeInferenceError, match=r"\(2, 3\)"):
        infer("nn.pad", [f32(2, 3)], pad_width=((0, 0),))
    with pytest.raises(TypeInferenceError, match=r"\(2, 3\)"):
        infer("nn.pad", [f32(2, 3)], pad_width=((-2, -1), (0, 0)))
    with pytest.raises(TypeInferenceError, match=r"reflect.*\(2, 3\)"):
        infer("nn.pad", [f32(2, 3)], pad_width=((0, 0), (3, 0)), mode="reflect")


# --- reductions ----------------------------------------------------------------------------

REDUCE_OPS = [
    ("sum", "ReduceSum"),
    ("mean", "ReduceMean"),
    ("max", "ReduceMax"),
    ("min", "ReduceMin"),
    ("prod", "ReduceProd"),
]


@pytest.mark.parametrize(("op", "onnx_op"), REDUCE_OPS)
@pytest.mark.parametrize(
    ("axis", "keepdims"), [(None, False), (None, True), ((1,), False), ((0, -1), True)]
)
def test_reductions_match_onnxruntime(
    op: str, onnx_op: str, axis: tuple[int, ...] | None, keepdims: bool
) -> None:
    data = np.random.default_rng(20).uniform(0.5, 1.5, (3, 4, 5)).astype(np.float32)
    ours = evaluate(op, [data], axis=axis, keepdims=keepdims)
    consts = [] if axis is None else [np.array(axis, dtype=np.int64)]
    expected = run_onnx(onnx_op, [data], {"keepdims": int(keepdims)}, consts=consts)[0]
    assert_close(ours, expected)


def test_reduction_types_and_errors() -> None:
    assert infer("sum", [f32(2, 3, 4)], axis=(-1, 0)) == f32(3)
    assert infer("mean", [f32(2, 3, 4)], keepdims=True) == f32(1, 1, 1)
    assert infer("argmax", [f32(2, 3, 4)], axis=1) == TensorType((2, 4), "int64")
    assert evaluate("mean", [np.array([[1, 2], [4, 4]], dtype=np.int32)], axis=(1,)).tolist() == [
        1,
        4,
    ]
    with pytest.raises(TypeInferenceError, match="rank 3"):
        infer("max", [f32(2, 3, 4)], axis=(3,))


@pytest.mark.parametrize(("op", "onnx_op"), [("argmax", "ArgMax"), ("argmin", "ArgMin")])
@pytest.mark.parametrize(
    ("axis", "keepdims", "last"), [(0, False, False), (-1, True, True), (1, False, True)]
)
def test_arg_reductions_match_onnxruntime(
    op: str, onnx_op: str, axis: int, keepdims: bool, last: bool
) -> None:
    data = np.random.default_rng(21).integers(0, 3, (4, 5, 6)).astype(np.float32)  # many ties
    ours = evaluate(op, [data], axis=axis, keepdims=keepdims, select_last_index=last)
    attrs = {"axis": axis, "keepdims": int(keepdims), "select_last_index": int(last)}
    np.testing.assert_array_equal(ours, run_onnx(onnx_op, [data], attrs)[0])
