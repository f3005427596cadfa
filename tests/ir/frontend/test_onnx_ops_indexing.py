"""Single-node ONNX models of indexing and normalisation ops that exports bring
(GatherElements, GatherND, ScatterND, OneHot, Size, CastLike, Round, IsNaN, IsInf, Hardmax,
LpNormalization, MeanVarianceNormalization, TensorScatter) against onnxruntime or the ONNX
spec."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from ir.errors import ModelImportError, UnsupportedOpError
from ir.frontend.onnx import from_onnx
from tests.ir.frontend.onnx_helpers import (
    OpCase,
    assert_matches_onnxruntime,
    make_model,
    op_case,
    randn,
)

BOOL = {"y": np.bool_}
I64 = {"y": np.int64}
SPECIAL = np.array([[1.0, np.nan, -np.inf], [np.inf, -2.5, 0.0]], np.float32)


def _ints(*values: object) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


INDEXING = [
    op_case(
        "gather_elements_axis1",
        "GatherElements",
        ["x", "i"],
        {"x": randn(3, 4), "i": _ints([0, 3, -1], [2, 2, 1], [1, 0, 0])},
        axis=1,
    ),
    op_case(
        "gather_elements_axis0_smaller",
        "GatherElements",
        ["x", "i"],
        {"x": randn(4, 3, 2)},
        consts={"i": _ints([[0, 1], [3, 2]], [[1, 1], [0, -4]])},
        axis=0,
    ),
    op_case(
        "gather_nd",
        "GatherND",
        ["x", "i"],
        {"x": randn(3, 4, 5)},
        consts={"i": _ints([[0, 1], [2, -1]], [[1, 3], [0, 0]])},
    ),
    op_case(
        "gather_nd_batch_dims",
        "GatherND",
        ["x", "i"],
        {"x": randn(2, 3, 4, 5)},
        consts={"i": _ints([[0, 1], [2, -1]], [[1, 3], [0, 0]])},
        batch_dims=1,
    ),
    op_case(
        "gather_nd_full", "GatherND", ["x", "i"], {"x": randn(3, 4)}, consts={"i": _ints([2, 1])}
    ),
    op_case(
        "scatter_nd",
        "ScatterND",
        ["x", "i", "u"],
        {"x": randn(4, 3, 2), "u": randn(2, 3, 2)},
        consts={"i": _ints([1], [3])},
    ),
    op_case(
        "scatter_nd_elements_add",
        "ScatterND",
        ["x", "i", "u"],
        {"x": randn(3, 4), "u": randn(3)},
        consts={"i": _ints([0, 1], [2, 3], [1, -1])},
        opset=16,
        reduction="add",
    ),
    op_case(
        "scatter_nd_max",
        "ScatterND",
        ["x", "i", "u"],
        {"x": randn(5, 2), "u": randn(2, 2)},
        consts={"i": _ints([4], [0])},
        opset=18,
        reduction="max",
    ),
    op_case(
        "scatter_nd_mul_repeated",
        "ScatterND",
        ["x", "i", "u"],
        {"x": randn(4, 3), "u": randn(4, 3)},
        consts={"i": _ints([1], [3], [1], [1])},
        opset=16,
        reduction="mul",
    ),
    op_case(
        "scatter_elements",
        "ScatterElements",
        ["x", "i", "u"],
        {"x": randn(3, 4), "u": randn(2, 4)},
        consts={"i": _ints([0, 2, 1, -1], [2, 0, 0, 1])},
    ),
    op_case(
        "scatter_elements_axis1_add_repeated",
        "ScatterElements",
        ["x", "i", "u"],
        {"x": randn(2, 5), "u": randn(2, 3)},
        consts={"i": _ints([1, 1, 4], [0, 0, 0])},
        opset=16,
        axis=1,
        reduction="add",
    ),
    op_case(
        "compress_axis",
        "Compress",
        ["x", "c"],
        {"x": randn(3, 4)},
        consts={"c": np.array([True, False, True])},
        axis=-1,
    ),
    op_case(
        "compress_flat",
        "Compress",
        ["x", "c"],
        {"x": randn(2, 3)},
        consts={"c": np.array([False, True, True, False, True])},
    ),
    op_case(
        "reverse_sequence_time_major",
        "ReverseSequence",
        ["x", "lengths"],
        {"x": randn(4, 3, 2)},
        consts={"lengths": _ints(4, 0, 2)},
    ),
    op_case(
        "reverse_sequence_batch_major",
        "ReverseSequence",
        ["x", "lengths"],
        {"x": randn(3, 5)},
        consts={"lengths": _ints(1, 5, 3)},
        batch_axis=0,
        time_axis=1,
    ),
    op_case(
        "one_hot",
        "OneHot",
        ["i", "d", "v"],
        {"i": _ints([0, 2, -1], [1, 4, 3])},
        consts={"d": _ints(5), "v": np.array([0.0, 3.0], np.float32)},
    ),
    op_case(
        "one_hot_axis0_float_indices",
        "OneHot",
        ["i", "d", "v"],
        {"i": np.array([1.0, -2.0, 0.0], np.float32)},
        consts={"d": _ints(4), "v": _ints(-1, 1)},
        outputs=I64,
        axis=0,
    ),
    op_case("size", "Size", ["x"], {"x": randn(3, 4, 2)}, outputs=I64),
    op_case(
        "cast_like",
        "CastLike",
        ["x", "t"],
        {"x": randn(3, 4) * 5},
        consts={"t": _ints(0)},
        opset=15,
        outputs=I64,
    ),
    op_case("round", "Round", ["x"], {"x": np.array([0.5, 1.5, -2.5, 2.4, -0.6], np.float32)}),
    op_case("is_nan", "IsNaN", ["x"], {"x": SPECIAL}, outputs=BOOL),
    *[
        op_case(
            f"is_inf_{positive}{negative}",
            "IsInf",
            ["x"],
            {"x": SPECIAL},
            outputs=BOOL,
            opset=10,
            detect_positive=positive,
            detect_negative=negative,
        )
        for positive, negative in ((1, 1), (1, 0), (0, 1), (0, 0))
    ],
    op_case("hardmax", "Hardmax", ["x"], {"x": randn(3, 4, 5)}, axis=1),
    op_case("hardmax_ties", "Hardmax", ["x"], {"x": np.array([[1, 3, 3], [2, 2, 0]], np.float32)}),
    op_case("hardmax_11_coerced", "Hardmax", ["x"], {"x": randn(2, 3, 4)}, opset=11, axis=1),
    op_case("lp_norm_2", "LpNormalization", ["x"], {"x": randn(3, 4, 5)}, axis=1),
    op_case("lp_norm_1", "LpNormalization", ["x"], {"x": randn(3, 4)}, p=1),
    op_case(
        "lp_norm_zero_slice",
        "LpNormalization",
        ["x"],
        {"x": np.concatenate([randn(2, 4), np.zeros((1, 4), np.float32)])},
        axis=1,
    ),
    # (ONNX's shape inference fails on the function body when axes is left out, so the
    # default axes are spelled out.)
    op_case(
        "mean_variance_norm",
        "MeanVarianceNormalization",
        ["x"],
        {"x": randn(2, 3, 4, 5)},
        opset=18,
        axes=[0, 2, 3],
    ),
    op_case(
        "mean_variance_norm_axes",
        "MeanVarianceNormalization",
        ["x"],
        {"x": randn(2, 3, 4)},
        opset=18,
        axes=[2],
    ),
]


CONSTANT_LIKE = [
    op_case("eye_like", "EyeLike", ["x"], {"x": randn(3, 5)}, k=1),
    op_case("eye_like_dtype", "EyeLike", ["x"], {"x": randn(4, 2)}, outputs=I64, k=-1, dtype=7),
    op_case("shrink", "Shrink", ["x"], {"x": randn(3, 6) * 2}, opset=9, lambd=0.7, bias=0.2),
    op_case("shrink_default", "Shrink", ["x"], {"x": randn(3, 6)}, opset=9),
]


@pytest.mark.parametrize("case", CONSTANT_LIKE)
def test_constant_like_and_shrink_match_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds, rtol=1e-6, atol=1e-7)


def test_non_zero_of_constants_folds_and_of_data_is_refused_by_name() -> None:
    table = np.array([[0, 2, 0], [1, 0, 3]], np.float32)
    folded = make_model(
        [
            helper.make_node("NonZero", ["t"], ["n"], name="nz0"),
            helper.make_node("Cast", ["n"], ["c"], to=1),
            helper.make_node("ReduceSum", ["c"], ["s"], keepdims=0),
            helper.make_node("Add", ["x", "s"], ["y"]),
        ],
        {"x": randn(2)},
        initializers={"t": table},
    )
    x = randn(2)
    assert_matches_onnxruntime(folded, {"x": x})
    runtime = make_model(
        [helper.make_node("NonZero", ["x"], ["y"], name="nz1")],
        {"x": randn(2, 3)},
        outputs={"y": np.int64},
    )
    with pytest.raises(UnsupportedOpError, match=r"nz1.*output shape depends on the data"):
        from_onnx(runtime)


@pytest.mark.parametrize("case", INDEXING)
def test_op_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds, rtol=1e-4, atol=1e-5)


def test_static_indices_out_of_range_and_double_writes_are_refused_by_name() -> None:
    gather = make_model(
        [helper.make_node("GatherND", ["x", "i"], ["y"], name="g0")],
        {"x": randn(3, 4)},
        initializers={"i": _ints([3, 0])},
    )
    with pytest.raises(ModelImportError, match=r"g0.*out of range"):
        from_onnx(gather)
    many = make_model(
        [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="s0", reduction="add")],
        {"x": randn(3), "u": randn(65)},
        initializers={"i": np.ones((65, 1), np.int64)},
        opset=16,
    )
    with pytest.raises(UnsupportedOpError, match=r"s0.*more than 64 times"):
        from_onnx(many)
    elements = make_model(
        [helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], name="e0", axis=1)],
        {"x": randn(2, 3), "u": randn(2, 2)},
        initializers={"i": _ints([0, 3], [1, 2])},
    )
    with pytest.raises(ModelImportError, match=r"e0.*out of range"):
        from_onnx(elements)


def _tensor_scatter(
    past: np.ndarray, update: np.ndarray, writes: np.ndarray | None, axis: int, mode: str
) -> np.ndarray:
    """TensorScatter's pseudocode from the ONNX spec, in numpy."""
    present = past.copy()
    axis %= past.ndim
    capacity, length = past.shape[axis], update.shape[axis]
    for prefix in np.ndindex(past.shape[:axis]):
        start = 0 if writes is None else int(writes[prefix[0]])
        for step in range(length):
            row = start + step
            if mode == "circular":
                row %= capacity
            present[(*prefix, row)] = update[(*prefix, step)]
    return present


@pytest.mark.parametrize(("mode", "axis"), [("linear", -2), ("circular", -2), ("linear", 1)])
def test_tensor_scatter_updates_a_kv_cache_at_run_time_write_indices(mode: str, axis: int) -> None:
    """A KV cache (batch 3, 2 heads, 8 positions, 4 wide) takes a 3-position update at each
    sample's own write index, a graph input: one compile serves every index; a circular
    cache wraps around."""
    from codegen.executor import compile_model
    from ir.graph.passes.pipeline import optimize

    shape = [3, 2, 8, 4] if axis == -2 else [3, 8, 2, 4]
    update_shape = list(shape)
    update_shape[axis] = 3
    node = helper.make_node(
        "TensorScatter", ["past", "update", "writes"], ["y"], axis=axis, mode=mode
    )
    model = make_model(
        [node],
        {"past": randn(*shape), "update": randn(*update_shape), "writes": _ints(0, 1, 2)},
        opset=24,
    )
    compiled = compile_model(optimize(from_onnx(model)))
    rng = np.random.default_rng(4)
    for writes in (_ints(0, 2, 5), _ints(6, 7, 3) if mode == "circular" else _ints(5, 0, 1)):
        past = rng.standard_normal(shape).astype(np.float32)
        update = rng.standard_normal(update_shape).astype(np.float32)
        got = compiled.run({"past": past, "update": update, "writes": writes})
        np.testing.assert_array_equal(got, _tensor_scatter(past, update, writes, axis, mode))


def test_tensor_scatter_without_write_indices_and_bad_updates() -> None:
    past, update = randn(2, 6, 3), randn(2, 4, 3)
    prefill = make_model(
        [helper.make_node("TensorScatter", ["past", "update"], ["y"], axis=1)],
        {"past": past, "update": update},
        opset=24,
    )
    from ir.reference import evaluate

    got = evaluate(from_onnx(prefill), {"past": past, "update": update})
    np.testing.assert_array_equal(got, _tensor_scatter(past, update, None, 1, "linear"))
    too_long = make_model(
        [helper.make_node("TensorScatter", ["past", "update"], ["y"], axis=1, name="kv0")],
        {"past": randn(2, 3, 3), "update": randn(2, 4, 3)},
        opset=24,
    )
    with pytest.raises(ModelImportError, match=r"kv0.*at most as long"):
        from_onnx(too_long)
    # ONNX's own shape inference refuses these too; an unchecked model reaches the importer.
    for writes, name, message in (
        (None, "kv1", r"kv1.*the caches must have a batch and a sequence axis"),
        (_ints(0, 1, 2), "kv2", r"kv2.*write_indices must have shape \(2,\)"),
    ):
        inputs = {"past": past if writes is not None else randn(6), "update": update}
        if writes is not None:
            inputs["w"] = writes
        infos = [
            helper.make_tensor_value_info(key, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
            for key, v in inputs.items()
        ]
        node = helper.make_node("TensorScatter", list(inputs), ["y"], axis=1, name=name)
        output = helper.make_tensor_value_info(
            "y", helper.np_dtype_to_tensor_dtype(past.dtype), inputs["past"].shape
        )
        graph = helper.make_graph([node], "g", infos, [output])
        unchecked = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)])
        with pytest.raises(ModelImportError, match=message):
            from_onnx(unchecked)
