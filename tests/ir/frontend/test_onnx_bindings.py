"""Input shape bindings: `NAME=DxD` parsing, binding written into a model, and example
shapes that bind only the dims a model leaves unknown; models with external tensor files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from ir.errors import ModelImportError, ShapeBindingError
from ir.frontend.onnx import from_onnx
from ir.frontend.onnx.bindings import (
    bind_input_shapes,
    parse_shape_bindings,
    self_contained_bytes,
)
from ir.graph.types import TensorType
from ir.reference import evaluate
from tests.codegen.aot.conftest import small_conv_model
from tests.ir.frontend.onnx_helpers import run_onnxruntime


def test_parse_shape_bindings() -> None:
    assert parse_shape_bindings(["x=1x3x224x224", "a=b=2X5", "s=7"]) == {
        "x": (1, 3, 224, 224),
        "a=b": (2, 5),
        "s": (7,),
    }
    for text, message in [
        ("x", "expected NAME=DxDxD"),
        ("=1x2", "expected NAME=DxDxD"),
        ("x=1xa", "must be integers"),
        ("x=1x-2", "must not be negative"),
    ]:
        with pytest.raises(ShapeBindingError, match=rf"shape '{text}': .*{message}"):
            parse_shape_bindings([text], what="shape")


def test_binding_writes_static_input_shapes_deterministically() -> None:
    dynamic = small_conv_model(batch="batch").SerializeToString()
    with pytest.raises(ShapeBindingError, match=r"'x' has shape \[batch, 4, 6, 6\].*--shape x="):
        from_onnx(dynamic)
    bound = bind_input_shapes(dynamic, {"x": (3, 4, 6, 6)})
    assert bound == bind_input_shapes(dynamic, {"x": (3, 4, 6, 6)})
    assert bind_input_shapes(bound, {"x": (3, 4, 6, 6)}) == bound  # binding again: same bytes
    (param,) = from_onnx(bound).params
    assert param.type_annotation == TensorType((3, 4, 6, 6), "float32")
    x = np.random.default_rng(0).standard_normal((3, 4, 6, 6)).astype(np.float32)
    model = onnx.load_from_string(bound)
    np.testing.assert_allclose(
        evaluate(from_onnx(model), {"x": x}), run_onnxruntime(model, {"x": x})[0], 1e-5, 1e-5
    )


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        ({"y": (1, 4, 6, 6)}, r"not an input of the model; inputs: \['x'\]"),
        ({"x": (1, 4, 6)}, "has rank 3, but the model declares rank 4"),
        ({"x": (2, 5, 6, 6)}, r"conflicts with the model's shape .* at dim 1 \(5 vs 4\)"),
    ],
)
def test_binding_refuses_unknown_inputs_and_conflicting_dims(
    shapes: dict[str, tuple[int, ...]], message: str
) -> None:
    with pytest.raises(ShapeBindingError, match=message):
        bind_input_shapes(small_conv_model(batch="batch").SerializeToString(), shapes)


def test_example_shapes_bind_only_unknown_dims() -> None:
    dynamic = small_conv_model(batch="n")
    fn = from_onnx(dynamic, example_shape={"x": (5, 4, 6, 6)})
    assert fn.params[0].type_annotation == TensorType((5, 4, 6, 6), "float32")
    # A static input keeps its declared shape: a wrong example is caught by the input
    # checks later, never bound over the model's shape.
    static = from_onnx(small_conv_model(), example_shape={"x": (5, 4, 6, 6)})
    assert static.params[0].type_annotation == TensorType((1, 4, 6, 6), "float32")
    # An explicit binding wins over the example.
    bound = from_onnx(dynamic, shape={"x": (2, 4, 6, 6)}, example_shape={"x": (5, 4, 6, 6)})
    assert bound.params[0].type_annotation == TensorType((2, 4, 6, 6), "float32")


def _saved_with_external_weights(directory: Path) -> Path:
    path = directory / "external.onnx"
    onnx.save(
        small_conv_model(),
        str(path),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="external.onnx.data",
        size_threshold=0,
    )
    return path


def test_external_tensors_load_by_path_and_are_refused_from_bytes(tmp_path: Path) -> None:
    path = _saved_with_external_weights(tmp_path)
    x = np.random.default_rng(2).standard_normal((1, 4, 6, 6)).astype(np.float32)
    expected = evaluate(from_onnx(small_conv_model()), {"x": x})
    np.testing.assert_array_equal(evaluate(from_onnx(path), {"x": x}), expected)
    with pytest.raises(ModelImportError, match=r"stored in an external file 'external.onnx.data'"):
        from_onnx(path.read_bytes())
    inside = self_contained_bytes(path)
    assert len(inside) > path.stat().st_size
    np.testing.assert_array_equal(evaluate(from_onnx(inside), {"x": x}), expected)
    plain = tmp_path / "plain.onnx"
    onnx.save(small_conv_model(), str(plain))
    assert self_contained_bytes(plain) == plain.read_bytes()


def _two_input_model(a_dims: list[int | str], b_dims: list[int | str]) -> bytes:
    """a + b, with the declared dims given (names for symbolic ones)."""
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Add", ["a", "b"], ["y"])],
        "shared",
        [
            onnx.helper.make_tensor_value_info("a", onnx.TensorProto.FLOAT, a_dims),
            onnx.helper.make_tensor_value_info("b", onnx.TensorProto.FLOAT, b_dims),
        ],
        [
            onnx.helper.make_tensor_value_info(
                "y", onnx.TensorProto.FLOAT, max(a_dims, b_dims, key=len)
            )
        ],
    )
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 13)])
    model.ir_version = 8
    return bytes(model.SerializeToString())


def test_binding_one_input_binds_the_named_dims_it_shares_with_others() -> None:
    data = _two_input_model(["batch", "seq"], ["batch", "seq"])
    shapes = [param.type_annotation for param in from_onnx(data, {"a": (2, 7)}).params]
    assert shapes == [TensorType((2, 7), "float32")] * 2
    bound = onnx.load_from_string(bind_input_shapes(data, {"b": (3, 5)}))
    for info in bound.graph.input:
        assert [dim.dim_value for dim in info.type.tensor_type.shape.dim] == [3, 5]
    # A dim the bound inputs leave unnamed ("?") or unbound still needs a binding.
    partly = _two_input_model(["batch", 4], ["batch", "other"])
    with pytest.raises(ShapeBindingError, match=r"input 'b' has shape \[batch, other\].*'other'"):
        from_onnx(partly, {"a": (2, 4)})


def test_a_named_dim_bound_two_ways_is_refused_naming_it_and_both_inputs() -> None:
    data = _two_input_model(["batch", 4], [1, "batch", 4])
    message = r"dim 'batch' is 2 in input 'a' \(dim 0\) but 3 in input 'b' \(dim 1\)"
    with pytest.raises(ShapeBindingError, match=message):
        from_onnx(data, {"a": (2, 4), "b": (1, 3, 4)})
    with pytest.raises(ShapeBindingError, match=message):
        bind_input_shapes(data, {"a": (2, 4), "b": (1, 3, 4)})
    # The arrays a run is given bind the dims the same way, and are checked alike.
    with pytest.raises(ShapeBindingError, match=message):
        from_onnx(data, example_shape={"a": (2, 4), "b": (1, 3, 4)})
