"""Symbolic input dims at import: a dim bound to a range stays a size variable named after
its dim_param, shape computations on it become dim expressions, and bindings that
contradict the model or each other are refused by name."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from ir.errors import ShapeBindingError, TypeInferenceError, UnsupportedOpError
from ir.frontend.onnx.bindings import parse_shape_bindings
from ir.frontend.onnx.importer import import_model
from ir.frontend.onnx.symbolic_dims import DimRange
from ir.graph.nodes import Call
from ir.graph.passes.fold_constant import fold_expr
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from tests.ir.frontend.onnx_helpers import make_model, randn
from tests.ir.frontend.test_onnx_transformer import HIDDEN, transformer_block
from tests.support.onnx_models import batched_cnn


def _dense(declared: list[int | str], name: str = "x") -> bytes:
    weight = randn(8, 4)
    nodes = [helper.make_node("MatMul", [name, "w"], ["y"])]
    model = make_model(nodes, {name: (declared, np.float32)}, initializers={"w": weight})
    return model.SerializeToString()


def test_a_range_keeps_a_dim_symbolic_named_after_its_dim_param() -> None:
    imported = import_model(_dense(["batch", 8]), shape={"x": (DimRange(1, 16), 8)})
    (param_type,) = imported.input_types
    assert str(param_type) == "Tensor[(batch, 8), float32]"
    assert param_type.shape == (16, 8)  # the upper bounds
    assert str(imported.function.ret_type) == "Tensor[(batch, 4), float32]"
    assert imported.dim_ranges == {"batch": DimRange(1, 16)}


def test_an_unnamed_dim_is_named_after_its_input_and_axis() -> None:
    imported = import_model(_dense(["?", 8], name="in-put"), shape={"in-put": (DimRange(2, 4), 8)})
    assert str(imported.input_types[0]) == "Tensor[(in_put_dim0, 8), float32]"
    assert imported.dim_ranges == {"in_put_dim0": DimRange(2, 4)}


def test_a_range_on_a_static_dim_is_refused_naming_the_input_and_dim() -> None:
    with pytest.raises(ShapeBindingError, match=r"input 'x'.*at dim 1 \(1\.\.8 vs 8\)"):
        import_model(_dense(["batch", 8]), shape={"x": (2, DimRange(1, 8))})


def test_a_symbolic_dim_bound_two_ways_is_refused_naming_both_inputs() -> None:
    nodes = [helper.make_node("Add", ["a", "b"], ["y"])]
    model = make_model(nodes, {"a": (["n", 4], np.float32), "b": (["n", 4], np.float32)})
    shapes = {"a": (DimRange(1, 8), 4), "b": (DimRange(1, 16), 4)}
    message = r"'n' is 1\.\.8 in input 'a' \(dim 0\) but 1\.\.16"
    with pytest.raises(ShapeBindingError, match=message):
        import_model(model.SerializeToString(), shape=shapes)


def test_an_input_sharing_a_named_dim_takes_its_range() -> None:
    nodes = [helper.make_node("Add", ["a", "b"], ["y"])]
    model = make_model(nodes, {"a": (["n", 4], np.float32), "b": (["n", 4], np.float32)})
    imported = import_model(model.SerializeToString(), shape={"a": (DimRange(1, 8), 4)})
    assert [str(ty) for ty in imported.input_types] == ["Tensor[(n, 4), float32]"] * 2


def test_shape_bindings_parse_ranges_beside_sizes() -> None:
    parsed = parse_shape_bindings(["input_ids=1..8x1..512", "mask=1x4"])
    assert parsed == {"input_ids": (DimRange(1, 8), DimRange(1, 512)), "mask": (1, 4)}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x=8..1x4", "expected 1 <= low <= high"),
        ("x=0..4", "expected 1 <= low <= high"),
        ("x=1..ax4", "expected LOW..HIGH with integers"),
        ("x=1..", "expected LOW..HIGH with integers"),
    ],
)
def test_a_malformed_range_is_refused_naming_the_option(text: str, message: str) -> None:
    with pytest.raises(ShapeBindingError, match=rf"--shape '{text}': .*{message}"):
        parse_shape_bindings([text])


def test_head_split_reshapes_of_a_symbolic_block_become_symbolic_targets() -> None:
    ranges = {"x": (DimRange(1, 4), DimRange(1, 64), HIDDEN)}
    imported = import_model(transformer_block(), shape=ranges)
    body = fold_expr(imported.function.body)
    reshapes = [
        node.checked_type
        for node in post_order(body)
        if isinstance(node, Call) and node.op_name == "reshape"
    ]
    assert reshapes and all(isinstance(ty, TensorType) and ty.dims for ty in reshapes)
    assert {str(ty) for ty in reshapes} >= {
        "Tensor[(batch, seq, 4, 4), float32]",
        "Tensor[(batch, seq, 16), float32]",
    }
    assert str(imported.function.ret_type) == "Tensor[(batch, seq, 16), float32]"


def test_an_op_that_does_not_take_symbolic_dims_names_the_node() -> None:
    nodes = [helper.make_node("Det", ["x"], ["y"], name="det")]
    model = make_model(nodes, {"x": (["batch", 3, 3], np.float32)}, opset=17)
    with pytest.raises(UnsupportedOpError, match=r"'det' \(Det.*does not take symbolic dims"):
        import_model(model.SerializeToString(), shape={"x": (DimRange(1, 4), 3, 3)})


def test_a_batch_of_images_stays_symbolic_through_convs_pooling_and_the_head() -> None:
    imported = import_model(batched_cnn(), shape={"x": (DimRange(1, 8), 3, 32, 32)})
    (result,) = [imported.function.body.checked_type]
    assert str(result) == "Tensor[(batch, 10), float32]"
    kinds = {
        node.op: str(node.checked_type)
        for node in post_order(imported.function.body)
        if isinstance(node, Call) and isinstance(node.op, str)
    }
    assert kinds["nn.conv2d"] == "Tensor[(batch, 20, 8, 8), float32]"
    assert kinds["nn.max_pool2d"] == "Tensor[(batch, 16, 8, 8), float32]"
    assert kinds["nn.pad"] == "Tensor[(batch, 20, 10, 10), float32]"
    assert kinds["nn.global_avg_pool2d"] == "Tensor[(batch, 20, 1, 1), float32]"


def test_a_symbolic_image_size_is_refused_naming_the_node_and_the_axes() -> None:
    model = batched_cnn()
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[2].dim_param = "height"
    with pytest.raises(
        UnsupportedOpError,
        match=r"'Conv_0' \(Conv.*height.*takes a symbolic batch, but its axes from 2 on",
    ):
        import_model(model, shape={"x": (DimRange(1, 8), 3, DimRange(8, 32), 32)})


def test_padding_a_symbolic_axis_is_refused_naming_the_node() -> None:
    nodes = [helper.make_node("Pad", ["x", "pads"], ["y"], name="grow")]
    model = make_model(
        nodes,
        {"x": (["batch", 4], np.float32)},
        initializers={"pads": np.array([1, 0, 0, 0], np.int64)},
        opset=17,
    )
    with pytest.raises(UnsupportedOpError, match=r"'grow' \(Pad.*axis 0 .* is symbolic"):
        import_model(model.SerializeToString(), shape={"x": (DimRange(1, 4), 4)})


def test_a_fixed_reshape_of_a_symbolic_batch_says_the_target_is_fixed() -> None:
    nodes = [helper.make_node("Reshape", ["x", "target"], ["y"], name="flatten")]
    model = make_model(
        nodes,
        {"x": (["batch", 4, 2], np.float32)},
        initializers={"target": np.array([1, 8], np.int64)},
    )
    with pytest.raises(
        TypeInferenceError,
        match=r"'flatten'.*newshape \(1, 8\) is fixed, but the data .* is symbolic",
    ):
        import_model(model.SerializeToString(), shape={"x": (DimRange(1, 4), 4, 2)})
