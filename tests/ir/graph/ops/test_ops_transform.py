"""The op table's transforms and dtypes: type relations and numpy references against
onnxruntime; and the table's completeness (nn ops, pooling and reductions: `test_ops.py`)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import numpy_helper

from ir.errors import TypeInferenceError
from ir.graph.ops import OP_TABLE, OpPattern, get_op
from ir.graph.types import TensorType
from tests.ir.graph.ops.test_ops import (
    INT64_MAX,
    INT64_MIN,
    assert_close,
    evaluate,
    f32,
    infer,
    randn,
    run_onnx,
)

# --- transforms ----------------------------------------------------------------------------


def test_concatenate_matches_onnxruntime_and_names_every_shape() -> None:
    parts = [randn(2, n, 3, seed=n) for n in (1, 4, 2)]
    ours = evaluate("concatenate", parts, axis=-2)
    assert_close(ours, run_onnx("Concat", parts, {"axis": -2})[0])
    with pytest.raises(TypeInferenceError) as error:
        infer("concatenate", [f32(2, 1, 3), f32(2, 4, 3), f32(3, 2, 3)], axis=1)
    assert all(shape in str(error.value) for shape in ("(2, 1, 3)", "(2, 4, 3)", "(3, 2, 3)"))


@pytest.mark.parametrize("sections", [3, (2, 5), (1, 1, 4)])
def test_split_matches_onnxruntime(sections: int | tuple[int, ...]) -> None:
    data = randn(2, 6, 3, seed=22)
    ours = evaluate("split", [data], indices_or_sections=sections, axis=1)
    if isinstance(sections, int):
        expected = run_onnx(
            "Split", [data], {"axis": 1, "num_outputs": sections}, num_outputs=sections
        )
    else:
        sizes = np.diff([0, *sections, 6])
        expected = run_onnx("Split", [data], {"axis": 1}, consts=[sizes], num_outputs=len(sizes))
    assert len(ours) == len(expected)
    for part, reference in zip(ours, expected, strict=True):
        assert_close(part, reference)
    with pytest.raises(TypeInferenceError, match=r"\(2, 6, 3\)"):
        infer("split", [f32(2, 6, 3)], indices_or_sections=4, axis=1)


def test_reshape_flatten_transpose_squeeze_expand_dims_match_onnxruntime() -> None:
    data = randn(2, 1, 3, 4, seed=23)
    shape = np.array([4, -1, 3], dtype=np.int64)
    assert_close(
        evaluate("reshape", [data], newshape=(4, -1, 3)),
        run_onnx("Reshape", [data], consts=[shape])[0],
    )
    for axis in (0, 2, -1, 4):
        assert_close(
            evaluate("flatten", [data], axis=axis), run_onnx("Flatten", [data], {"axis": axis})[0]
        )
    for axes in (None, (2, 0, 3, 1)):
        attrs = {} if axes is None else {"perm": axes}
        assert_close(
            evaluate("transpose", [data], axes=axes), run_onnx("Transpose", [data], attrs)[0]
        )
    assert_close(evaluate("squeeze", [data]), run_onnx("Squeeze", [data])[0])
    assert_close(
        evaluate("squeeze", [data], axis=(-3,)),
        run_onnx("Squeeze", [data], consts=[np.array([-3], dtype=np.int64)])[0],
    )
    axes = np.array([0, -1, 3], dtype=np.int64)
    assert_close(
        evaluate("expand_dims", [data], axes=(0, -1, 3)),
        run_onnx("Unsqueeze", [data], consts=[axes])[0],
    )


def test_reshaping_type_errors() -> None:
    assert infer("reshape", [f32(2, 3, 4)], newshape=(4, -1)) == f32(4, 6)
    assert infer("reshape", [f32(0, 3)], newshape=(0, 7)) == f32(0, 7)  # 0 is a literal size
    with pytest.raises(TypeInferenceError, match=r"\(2, 3, 4\).*\(5, -1\)|\(5, -1\).*\(2, 3, 4\)"):
        infer("reshape", [f32(2, 3, 4)], newshape=(5, -1))
    with pytest.raises(TypeInferenceError, match=r"\(2, 3, 4\).*\(6, 5\)"):
        infer("reshape", [f32(2, 3, 4)], newshape=(6, 5))
    with pytest.raises(TypeInferenceError, match=r"\(2, 3, 4\)"):
        infer("squeeze", [f32(2, 3, 4)], axis=(1,))
    with pytest.raises(TypeInferenceError, match=r"\(2, 3, 4\)"):
        infer("transpose", [f32(2, 3, 4)], axes=(0, 0, 1))
    assert infer("expand_dims", [f32(2, 3)], axes=(-1, 1)) == f32(2, 1, 3, 1)


@pytest.mark.parametrize(
    ("data_shape", "shape"), [((3, 1), (2, 1, 4)), ((1, 4), (3, 1)), ((2, 3), (3,))]
)
def test_broadcast_to_matches_onnx_expand(
    data_shape: tuple[int, ...], shape: tuple[int, ...]
) -> None:
    data = randn(*data_shape, seed=24)
    expected = run_onnx("Expand", [data], consts=[np.array(shape, dtype=np.int64)])[0]
    assert_close(evaluate("broadcast_to", [data], shape=shape), expected)
    with pytest.raises(TypeInferenceError, match=r"\(3, 2\).*\(4,\)"):
        infer("broadcast_to", [f32(3, 2)], shape=(4,))


SLICE_CASES = [
    # begin, end, strides, axes
    ((1,), (3,), None, None),
    ((-3,), (INT64_MAX,), None, (1,)),
    ((-1,), (INT64_MIN,), (-1,), (2,)),  # reverse an axis
    ((-100, 2), (100, 1000), None, None),  # clamped
    ((0, 1), (5, 7), (2, 3), (1, -1)),
    ((4,), (1,), None, (0,)),  # empty
    ((10, 5), (-100, 0), (-2, -3), (1, 2)),  # negative steps with clamping
    ((INT64_MIN,), (INT64_MAX,), (-3,), (-1,)),
    ((4, 2), (INT64_MAX, 2**31 - 1), (-1, -2), (0, 2)),  # INT_MAX end with a negative step
    ((INT64_MAX, 1), (INT64_MIN, 2**31 - 1), (-2, 1), (1, 0)),
]


@pytest.mark.parametrize(("begin", "end", "strides", "axes"), SLICE_CASES)
def test_strided_slice_matches_onnx_slice(
    begin: tuple[int, ...],
    end: tuple[int, ...],
    strides: tuple[int, ...] | None,
    axes: tuple[int, ...] | None,
) -> None:
    data = randn(5, 6, 7, seed=25)
    ours = evaluate("strided_slice", [data], begin=begin, end=end, strides=strides, axes=axes)
    consts: list[np.ndarray | None] = [
        np.array(begin, dtype=np.int64),
        np.array(end, dtype=np.int64),
    ]
    consts.append(None if axes is None else np.array(axes, dtype=np.int64))
    if strides is not None:
        consts.append(np.array(strides, dtype=np.int64))
    assert_close(ours, run_onnx("Slice", [data], consts=consts)[0])


def test_strided_slice_type_errors() -> None:
    with pytest.raises(TypeInferenceError, match=r"\(5, 6\)"):
        infer("strided_slice", [f32(5, 6)], begin=(0,), end=(1,), strides=(0,))
    with pytest.raises(TypeInferenceError, match=r"\(5, 6\)"):
        infer("strided_slice", [f32(5, 6)], begin=(0, 1), end=(1,))


@pytest.mark.parametrize(
    ("axis", "indices"),
    [
        (0, np.array([0, -1, 2, -4], dtype=np.int64)),
        (1, np.array([[1, -2], [0, 4]], dtype=np.int32)),
        (-1, np.array(-3, dtype=np.int64)),
    ],
)
def test_take_matches_onnx_gather(axis: int, indices: np.ndarray) -> None:
    data = randn(4, 5, 6, seed=26)
    ours = evaluate("take", [data, indices], axis=axis)
    assert_close(ours, run_onnx("Gather", [data, indices], {"axis": axis})[0])


def test_take_type_errors() -> None:
    with pytest.raises(TypeInferenceError, match="int32 or int64"):
        infer("take", [f32(4, 5), f32(2)])


def test_tile_shape_of_full_arange_match_onnxruntime() -> None:
    data = randn(2, 3, seed=27)
    repeats = np.array([2, 3], dtype=np.int64)
    assert_close(
        evaluate("tile", [data], repeats=(2, 3)), run_onnx("Tile", [data], consts=[repeats])[0]
    )
    with pytest.raises(TypeInferenceError, match=r"\(2, 3\)"):
        infer("tile", [f32(2, 3)], repeats=(2,))
    np.testing.assert_array_equal(evaluate("shape_of", [data]), run_onnx("Shape", [data])[0])
    value = numpy_helper.from_array(np.array([2.5], dtype=np.float32))
    expected = run_onnx("ConstantOfShape", [np.array([2, 3], dtype=np.int64)], {"value": value})[0]
    assert_close(evaluate("full", [], shape=(2, 3), fill_value=2.5), expected)
    for start, stop, step, dtype in [
        (0, 10, 3, "int64"),
        (5, -4, -2, "int32"),
        (0.5, 2.0, 0.25, "float32"),
    ]:
        scalars = [np.array(v, dtype=dtype) for v in (start, stop, step)]
        expected = run_onnx("Range", scalars)[0]
        assert_close(
            evaluate("arange", [], start=start, stop=stop, step=step, dtype=dtype), expected
        )


# --- dtypes --------------------------------------------------------------------------------

DTYPE_CASES = [
    # op, input shapes, dtype, attributes
    ("nn.conv2d", [(1, 2, 5, 5), (3, 2, 3, 3)], "float64", {"padding": (1, 1, 1, 1)}),
    ("nn.conv2d", [(1, 2, 5, 5), (2, 1, 3, 3)], "float16", {"groups": 2}),
    ("nn.dense", [(3, 4), (5, 4)], "int32", {}),
    ("nn.max_pool2d", [(1, 2, 5, 5)], "int32", {"pool_size": (2, 2), "padding": (1, 1, 1, 1)}),
    ("nn.avg_pool2d", [(1, 2, 5, 5)], "float16", {"pool_size": (3, 3), "ceil_mode": True}),
    ("nn.avg_pool2d", [(1, 2, 5, 5)], "int64", {"pool_size": (2, 2), "strides": (2, 2)}),
    ("nn.global_avg_pool2d", [(1, 2, 5, 5)], "float16", {}),
    ("nn.softmax", [(2, 5)], "float16", {}),
    ("nn.layer_norm", [(2, 5), (5,), (5,)], "float64", {}),
    ("nn.pad", [(3, 4)], "int32", {"pad_width": ((1, 0), (2, 2)), "mode": "edge"}),
    ("nn.pad", [(3, 4)], "uint8", {"pad_width": ((1, 0), (0, 2)), "pad_value": 7.0}),
    ("sum", [(3, 4)], "int8", {"axis": (0,)}),
    ("mean", [(3, 4)], "float16", {}),
    ("prod", [(3, 4)], "int32", {"axis": (-1,), "keepdims": True}),
    ("argmin", [(3, 4)], "float16", {"axis": 1}),
    ("concatenate", [(2, 3), (1, 3)], "int64", {"axis": 0}),
    ("strided_slice", [(5, 4)], "bool", {"begin": (1,), "end": (4,), "axes": (0,)}),
    ("tile", [(2, 3)], "uint8", {"repeats": (1, 2)}),
    ("broadcast_to", [(3, 1)], "int16", {"shape": (2, 3, 4)}),
]


@pytest.mark.parametrize(("op", "shapes", "dtype", "attrs"), DTYPE_CASES)
def test_references_return_the_promised_dtype(
    op: str, shapes: list[tuple[int, ...]], dtype: str, attrs: dict[str, object]
) -> None:
    rng = np.random.default_rng(28)
    inputs = [(rng.standard_normal(shape) * 4).astype(dtype) for shape in shapes]
    evaluate(op, inputs, **attrs)  # checks shape and dtype against the type relation


def test_constants_split_and_take_details() -> None:
    assert evaluate("full", [], shape=(2,), fill_value=3, dtype="int32").tolist() == [3, 3]
    assert evaluate("arange", [], start=5, stop=5).shape == (0,)
    assert infer("shape_of", [f32(2, 3, 4)], dtype="int32") == TensorType((3,), "int32")
    data = np.arange(10, dtype=np.float32)
    for indices in ((3, 20), (-3, 2), (7, 4)):
        parts = evaluate("split", [data], indices_or_sections=indices)
        expected = np.split(data, list(indices))
        assert [part.tolist() for part in parts] == [part.tolist() for part in expected]
    with pytest.raises(IndexError, match=r"\(10,\)"):
        evaluate("take", [data, np.array([10])])
    assert get_op("full").num_inputs == 0 and get_op("concatenate").num_inputs is None


# --- the table -----------------------------------------------------------------------------

EXPECTED_OPS = (
    "nn.conv2d",
    "nn.dense",
    "nn.matmul",
    "nn.batch_matmul",
    "nn.batch_norm",
    "nn.dropout",
    "nn.max_pool2d",
    "nn.avg_pool2d",
    "nn.global_avg_pool2d",
    "nn.global_max_pool2d",
    "nn.softmax",
    "nn.log_softmax",
    "nn.lrn",
    "nn.layer_norm",
    "nn.pad",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "argmax",
    "argmin",
    "concatenate",
    "split",
    "reshape",
    "flatten",
    "transpose",
    "squeeze",
    "expand_dims",
    "broadcast_to",
    "strided_slice",
    "take",
    "tile",
    "shape_of",
    "full",
    "arange",
)


def test_every_op_has_all_rules() -> None:
    assert set(EXPECTED_OPS) <= set(OP_TABLE)
    for name, op_def in OP_TABLE.items():
        assert op_def.name == name
        assert isinstance(op_def.pattern, OpPattern), name
        assert callable(op_def.type_relation), name
        assert callable(op_def.reference), name
        assert callable(op_def.flops), name
        assert op_def.doc, name


def test_flop_counts() -> None:
    conv = get_op("nn.conv2d")
    attrs = conv.make_attrs({"padding": (1, 1, 1, 1), "groups": 2})
    args = [f32(1, 64, 56, 56), f32(128, 32, 3, 3)]
    out = conv.type_relation(args, attrs)
    assert conv.flops(args, out, attrs) == 2 * 128 * 56 * 56 * 32 * 3 * 3
    dense = get_op("nn.dense")
    args = [f32(8, 512), f32(1000, 512)]
    out = dense.type_relation(args, dense.make_attrs({}))
    assert dense.flops(args, out, dense.make_attrs({})) == 2 * 8 * 1000 * 512
    reshape = get_op("reshape")
    attrs = reshape.make_attrs({"newshape": (-1,)})
    assert reshape.flops([f32(2, 3)], reshape.type_relation([f32(2, 3)], attrs), attrs) == 0
