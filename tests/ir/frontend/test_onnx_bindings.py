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
