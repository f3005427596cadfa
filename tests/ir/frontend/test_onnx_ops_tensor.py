"""Single-node ONNX models of reductions and data-movement ops, imported and run vs onnxruntime.

Inputs that our ops take as attributes (shapes, axes, pads, ...) are initializers here; the
importer folds them into attributes.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from tests.ir.frontend.onnx_helpers import (
    OpCase,
    assert_matches_onnxruntime,
    ints,
    make_model,
    op_case,
    positive,
    randn,
    small_ints,
)

X = randn(2, 3, 4)
INT64 = {"y": np.int64}

REDUCE = [
    op_case("reduce_sum_11_attr", "ReduceSum", ["x"], {"x": X}, opset=11, axes=[1], keepdims=0),
    op_case(
        "reduce_sum_13_input", "ReduceSum", ["x", "a"], {"x": X}, consts={"a": ints(1)}, keepdims=0
    ),
    op_case("reduce_sum_13_all", "ReduceSum", ["x"], {"x": X}),
    op_case("reduce_sum_13_noop", "ReduceSum", ["x"], {"x": X}, noop_with_empty_axes=1),
    op_case("reduce_mean_13_attr", "ReduceMean", ["x"], {"x": X}, axes=[-1, 0]),
    op_case(
        "reduce_mean_18_input",
        "ReduceMean",
        ["x", "a"],
        {"x": X},
        consts={"a": ints(-1, 0)},
        opset=18,
    ),
    op_case("reduce_mean_18_noop", "ReduceMean", ["x"], {"x": X}, opset=18, noop_with_empty_axes=1),
    op_case(
        "reduce_mean_18_empty_axes",
        "ReduceMean",
        ["x", "a"],
        {"x": X},
        consts={"a": np.zeros(0, np.int64)},
        opset=18,
    ),
    op_case("reduce_max_13", "ReduceMax", ["x"], {"x": X}, axes=[2], keepdims=0),
    op_case("reduce_max_18", "ReduceMax", ["x", "a"], {"x": X}, consts={"a": ints(2)}, opset=18),
    op_case("reduce_min_13_all", "ReduceMin", ["x"], {"x": X}, keepdims=0),
    op_case("reduce_prod_13", "ReduceProd", ["x"], {"x": positive(2, 3, 4)}, axes=[1]),
    op_case("reduce_l1", "ReduceL1", ["x"], {"x": X}, axes=[1]),
    op_case("reduce_l2", "ReduceL2", ["x"], {"x": X}, axes=[1], keepdims=0),
    op_case("reduce_log_sum", "ReduceLogSum", ["x"], {"x": positive(2, 3, 4)}, axes=[2]),
    op_case("reduce_log_sum_exp", "ReduceLogSumExp", ["x"], {"x": X * 30}, axes=[0, 2], keepdims=0),
    op_case("reduce_sum_square", "ReduceSumSquare", ["x"], {"x": X}, axes=[1]),
    op_case("argmax", "ArgMax", ["x"], {"x": X}, axis=1, keepdims=0, outputs=INT64),
    op_case("argmin_keepdims", "ArgMin", ["x"], {"x": X}, axis=-1, outputs=INT64),
    op_case(
        "argmax_last_index",
        "ArgMax",
        ["x"],
        {"x": small_ints(3, 6, low=0, high=2)},
        axis=1,
        select_last_index=1,
        outputs=INT64,
    ),
]

SHAPES = [
    op_case("reshape_zero_minus_one", "Reshape", ["x", "s"], {"x": X}, consts={"s": ints(0, -1)}),
    op_case("reshape_9", "Reshape", ["x", "s"], {"x": X}, consts={"s": ints(4, 1, 6)}, opset=9),
    op_case("flatten_default", "Flatten", ["x"], {"x": X}),
    op_case("flatten_axis0", "Flatten", ["x"], {"x": X}, axis=0),
    op_case("flatten_axis_negative", "Flatten", ["x"], {"x": X}, axis=-1),
    op_case("transpose_perm", "Transpose", ["x"], {"x": X}, perm=[1, 2, 0]),
    op_case("transpose_default", "Transpose", ["x"], {"x": X}),
    op_case("squeeze_11_attr", "Squeeze", ["x"], {"x": randn(1, 3, 1, 2)}, axes=[0, -2], opset=11),
    op_case(
        "squeeze_13_input", "Squeeze", ["x", "a"], {"x": randn(1, 3, 1, 2)}, consts={"a": ints(2)}
    ),
    op_case("squeeze_13_all", "Squeeze", ["x"], {"x": randn(1, 3, 1, 2)}),
    op_case("unsqueeze_11_attr", "Unsqueeze", ["x"], {"x": X}, axes=[0, -1], opset=11),
    op_case("unsqueeze_13_input", "Unsqueeze", ["x", "a"], {"x": X}, consts={"a": ints(3, 1)}),
    op_case(
        "unsqueeze_13_negative",
        "Unsqueeze",
        ["x", "a"],
        {"x": randn(3)},
        consts={"a": ints(-1, 0, 2)},
    ),
    op_case(
        "squeeze_13_negative", "Squeeze", ["x", "a"], {"x": randn(1, 3, 1)}, consts={"a": ints(-1)}
    ),
    op_case("flatten_axis_rank", "Flatten", ["x"], {"x": X}, axis=3),
    op_case(
        "tile_bool",
        "Tile",
        ["x", "r"],
        {"x": np.array([True, False])},
        consts={"r": ints(3)},
        outputs={"y": np.bool_},
    ),
    op_case(
        "expand_bidirectional",
        "Expand",
        ["x", "s"],
        {"x": randn(3, 1)},
        consts={"s": ints(2, 1, 4)},
    ),
    op_case("tile", "Tile", ["x", "r"], {"x": X}, consts={"r": ints(2, 1, 3)}),
    op_case("shape", "Shape", ["x"], {"x": X}, outputs=INT64),
    op_case(
        "shape_15_start_end", "Shape", ["x"], {"x": X}, opset=15, start=1, end=-1, outputs=INT64
    ),
    op_case("shape_15_start", "Shape", ["x"], {"x": X}, opset=15, start=-2, outputs=INT64),
]

SLICES = [
    op_case(
        "slice_9_attrs",
        "Slice",
        ["x"],
        {"x": X},
        opset=9,
        starts=[0, 1],
        ends=[1, 1000],
        axes=[0, 2],
    ),
    op_case("slice_9_no_axes", "Slice", ["x"], {"x": X}, opset=9, starts=[1, 0], ends=[2, -1]),
    op_case(
        "slice_13_steps",
        "Slice",
        ["x", "s", "e", "a", "t"],
        {"x": X},
        consts={"s": ints(-1, 0), "e": ints(-1000, 4), "a": ints(2, 1), "t": ints(-2, 2)},
    ),
    op_case(
        "slice_13_no_axes",
        "Slice",
        ["x", "s", "e"],
        {"x": X},
        consts={"s": ints(1, 1), "e": ints(2, 3)},
    ),
    op_case(
        "slice_13_int64_max",
        "Slice",
        ["x", "s", "e", "a"],
        {"x": X},
        consts={"s": ints(1), "e": ints(np.iinfo(np.int64).max), "a": ints(-1)},
    ),
    op_case(
        "slice_11_clamped",
        "Slice",
        ["x", "s", "e"],
        {"x": randn(5, 6)},
        consts={"s": ints(-100, 2), "e": ints(100, -100)},
        opset=11,
    ),
    op_case(
        "slice_11_reverse_all",
        "Slice",
        ["x", "s", "e", "a", "t"],
        {"x": randn(5, 6)},
        consts={"s": ints(100), "e": ints(-100), "a": ints(0), "t": ints(-1)},
        opset=11,
    ),
    op_case("gather_axis0", "Gather", ["x", "i"], {"x": X}, consts={"i": ints(1, -2, 0)}),
    op_case(
        "gather_axis1_matrix",
        "Gather",
        ["x", "i"],
        {"x": X},
        consts={"i": np.array([[0, 2], [1, 1]], np.int64)},
        axis=1,
    ),
    op_case(
        "gather_scalar",
        "Gather",
        ["x", "i"],
        {"x": X},
        consts={"i": np.array(-1, np.int64)},
        axis=2,
    ),
    op_case(
        "gather_runtime_indices",
        "Gather",
        ["x", "i"],
        {"x": X, "i": np.array([2, 0], np.int32)},
        axis=1,
    ),
    op_case("concat", "Concat", ["a", "b", "c"], {"a": X, "b": randn(2, 1, 4), "c": X}, axis=1),
    op_case("concat_single", "Concat", ["a"], {"a": X}, axis=0),
    op_case("concat_negative_axis", "Concat", ["a", "b"], {"a": X, "b": X}, axis=-1),
]

PADS = (
    [
        op_case(
            f"pad_9_{mode}",
            "Pad",
            ["x"],
            {"x": X},
            opset=9,
            mode=mode,
            pads=[0, 1, 2, 0, 2, 1],
            **({"value": 1.5} if mode == "constant" else {}),
        )
        for mode in ("constant", "edge", "reflect")
    ]
    + [
        op_case(
            f"pad_13_{mode}",
            "Pad",
            ["x", "p", "v"],
            {"x": X},
            mode=mode,
            consts={"p": ints(1, 0, 2, 0, 2, 1), "v": np.array(-2.0, np.float32)},
        )
        for mode in ("constant", "edge", "reflect")
    ]
    + [
        op_case(
            "pad_19_wrap",
            "Pad",
            ["x", "p"],
            {"x": X},
            mode="wrap",
            opset=19,
            consts={"p": ints(1, 0, 3, 0, 2, -1)},
        ),
        op_case(
            "pad_13_default_value",
            "Pad",
            ["x", "p"],
            {"x": X},
            consts={"p": ints(1, 1, 1, 1, 1, 1)},
        ),
        op_case(
            "pad_13_negative", "Pad", ["x", "p"], {"x": X}, consts={"p": ints(0, -1, 2, 1, 0, -2)}
        ),
        op_case(
            "pad_13_int",
            "Pad",
            ["x", "p", "v"],
            {"x": np.arange(12, dtype=np.int64).reshape(3, 4)},
            consts={"p": ints(1, 1, 1, 1), "v": np.array(7, np.int64)},
            outputs=INT64,
        ),
        op_case(
            "pad_18_axes",
            "Pad",
            ["x", "p", "", "a"],
            {"x": X},
            consts={"p": ints(1, 2, 3, 0), "a": ints(-1, 0)},
            opset=18,
        ),
    ]
)


def _split(case_id: str, count: int, opset: int, **kwargs: object) -> object:
    outputs = {f"y{i}": np.float32 for i in range(count)}
    node_inputs = kwargs.pop("node_inputs", ["x"])
    return op_case(
        case_id, "Split", node_inputs, {"x": randn(2, 7, 3)}, opset=opset, outputs=outputs, **kwargs
    )  # type: ignore[arg-type]


SPLITS = [
    _split("split_11_attr", 3, 11, axis=1, split=[2, 4, 1]),
    _split("split_13_input", 2, 13, axis=1, node_inputs=["x", "s"], consts={"s": ints(3, 4)}),
    _split("split_13_even", 2, 13, axis=0),
    _split("split_9_negative_axis", 2, 9, axis=-1, split=[1, 2]),
    _split("split_18_num_outputs_uneven", 3, 18, axis=1, num_outputs=3),
    _split("split_18_num_outputs_even", 3, 18, axis=2, num_outputs=3),
]


@pytest.mark.parametrize("case", REDUCE + SHAPES + SLICES + PADS + SPLITS)
def test_tensor_op_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds)


def test_constant_of_shape_of_a_shape_folds_into_full() -> None:
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node(
            "ConstantOfShape",
            ["s"],
            ["c"],
            value=helper.make_tensor("v", 1, [1], [2.5]),
        ),
        helper.make_node("Add", ["x", "c"], ["y"]),
    ]
    model = make_model(nodes, {"x": X})
    assert_matches_onnxruntime(model, {"x": X})


def test_constant_of_shape_default_and_int_values() -> None:
    nodes = [
        helper.make_node("ConstantOfShape", ["s"], ["zeros"]),
        helper.make_node(
            "ConstantOfShape", ["s"], ["sevens"], value=helper.make_tensor("v", 7, [1], [7])
        ),
        helper.make_node("Cast", ["sevens"], ["sevens_f"], to=1),
        helper.make_node("Add", ["zeros", "sevens_f"], ["z"]),
        helper.make_node("Add", ["x", "z"], ["y"]),
    ]
    model = make_model(nodes, {"x": X}, initializers={"s": ints(3, 4)})
    assert_matches_onnxruntime(model, {"x": X})


def test_constant_node_forms() -> None:
    nodes = [
        helper.make_node(
            "Constant", [], ["t"], value=helper.make_tensor("t", 1, [4], [1, 2, 3, 4])
        ),
        helper.make_node("Constant", [], ["f"], value_float=0.5),
        helper.make_node("Constant", [], ["fs"], value_floats=[1.0, -1.0, 2.0, 0.0]),
        helper.make_node("Constant", [], ["i"], value_int=3),
        helper.make_node("Constant", [], ["is"], value_ints=[0, 2, 1]),
        helper.make_node("Cast", ["i"], ["i_f"], to=1),
        helper.make_node("Add", ["x", "t"], ["a"]),
        helper.make_node("Mul", ["a", "f"], ["b"]),
        helper.make_node("Sub", ["b", "fs"], ["c"]),
        helper.make_node("Add", ["c", "i_f"], ["d"]),
        helper.make_node("Transpose", ["d"], ["e"], perm=[2, 0, 1]),
        helper.make_node("Gather", ["e", "is"], ["y"], axis=2),
    ]
    model = make_model(nodes, {"x": X})
    assert_matches_onnxruntime(model, {"x": X})


@pytest.mark.parametrize(
    ("start", "limit", "delta", "dtype"),
    [(0, 7, 2, np.int64), (1.5, -2.0, -0.5, np.float32), (3, 10, 3, np.int32)],
)
def test_range(start: float, limit: float, delta: float, dtype: type) -> None:
    consts = {
        name: np.array(value, dtype)
        for name, value in {"start": start, "limit": limit, "delta": delta}.items()
    }
    nodes = [
        helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
        helper.make_node("Cast", ["r"], ["rf"], to=1),
        helper.make_node("Add", ["x", "rf"], ["y"]),
    ]
    size = len(np.arange(start, limit, delta))
    x = randn(2, size)
    model = make_model(nodes, {"x": x}, initializers=consts, opset=11)
    assert_matches_onnxruntime(model, {"x": x})


def test_empty_split_parts_fold_away_and_compile() -> None:
    """A split part of size 0 (RotaryEmbedding's pass-through part when every channel
    rotates) is an empty constant: ops on it fold, Concat drops it, and an empty graph
    output still compiles and runs."""
    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target

    nodes = [
        helper.make_node("Split", ["x", "sizes"], ["a", "b"], axis=2),
        helper.make_node("Neg", ["b"], ["negated"]),
        helper.make_node("Concat", ["a", "negated"], ["y"], axis=2),
    ]
    x = np.random.default_rng(5).standard_normal((2, 3, 4)).astype(np.float32)
    model = make_model(
        nodes,
        {"x": x},
        {"y": np.float32, "negated": np.float32},
        initializers={"sizes": np.array([4, 0], np.int64)},
    )
    target = host_target()
    prepared = prepare_for_target(model, target)
    y, negated = compile_model(prepared.function, target).run({"x": x})
    np.testing.assert_array_equal(y, x)
    assert negated.shape == (2, 3, 0)


@pytest.mark.parametrize(
    ("op_type", "expected"),
    [
        ("ReduceSum", 0.0),
        ("ReduceSumSquare", 0.0),
        ("ReduceL1", 0.0),
        ("ReduceL2", 0.0),
        ("ReduceProd", 1.0),
        ("ReduceMax", -np.inf),
        ("ReduceMin", np.inf),
        ("ReduceLogSum", -np.inf),
        ("ReduceLogSumExp", -np.inf),
        ("ReduceMean", np.nan),
    ],
)
def test_a_reduction_of_no_elements_is_its_empty_set_value(op_type: str, expected: float) -> None:
    """Reducing a zero-length axis gives ONNX's value of the empty set in the output's
    shape (and an empty input reduced along another axis an empty output), compiled."""
    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target

    x = np.zeros((2, 0, 4), np.float32)
    for axes, keepdims, shape in (([1], 1, (2, 1, 4)), ([2], 0, (2, 0))):
        node = helper.make_node(op_type, ["x", "axes"], ["y"], keepdims=keepdims)
        model = make_model(
            [node], {"x": x}, initializers={"axes": np.array(axes, np.int64)}, opset=18
        )
        target = host_target()
        y = compile_model(prepare_for_target(model, target).function, target).run({"x": x})
        np.testing.assert_array_equal(y, np.full(shape, expected, np.float32))
