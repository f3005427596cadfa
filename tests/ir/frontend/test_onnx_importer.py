"""The importer's interface: sources, parameters, constants, output selection, spans."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ir.frontend import ImportedModel, from_onnx, import_model
from ir.graph.nodes import Call, Constant, Tuple, Var
from ir.graph.traversal import post_order
from ir.graph.types import TensorType, TupleType
from ir.reference import evaluate
from tests.ir.frontend.onnx_helpers import (
    assert_matches_onnxruntime,
    make_model,
    randn,
    run_onnxruntime,
)


def _classifier() -> onnx.ModelProto:
    """Gemm -> Relu -> Gemm -> Softmax, with weights as initializers."""
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["a"], name="act"),
        helper.make_node("Gemm", ["a", "w2", "b2"], ["logits"], name="fc2", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]
    weights = {"w1": randn(8, 6), "b1": randn(8), "w2": randn(4, 8), "b2": randn(4)}
    return make_model(nodes, {"x": (["batch", 6], np.float32)}, ["probs"], weights)


def test_params_are_inputs_without_initializers() -> None:
    function = from_onnx(_classifier(), shape={"x": (3, 6)})
    assert function.params == (Var("x", TensorType((3, 6), "float32")),)
    constants = [node for node in post_order(function.body) if isinstance(node, Constant)]
    assert {c.data.shape for c in constants} >= {(8, 6), (8,), (4, 8), (4,)}


def test_ir3_weights_listed_as_inputs_are_constants() -> None:
    model = _classifier()
    for tensor in model.graph.initializer:
        info = helper.make_tensor_value_info(tensor.name, tensor.data_type, list(tensor.dims))
        model.graph.input.append(info)
    model.ir_version = 3
    model.opset_import[0].version = 9
    imported = import_model(model, shape={"x": (2, 6)})
    assert imported.input_names == ("x",)
    assert imported.opset == 9


def test_sources_bytes_path_and_proto_agree(tmp_path: Path) -> None:
    model = _classifier()
    path = tmp_path / "classifier.onnx"
    onnx.save(model, path)
    shape = {"x": (2, 6)}
    from_proto = from_onnx(model, shape=shape)
    assert from_onnx(model.SerializeToString(), shape=shape) == from_proto
    assert from_onnx(path, shape=shape) == from_proto
    assert from_onnx(str(path), shape=shape) == from_proto


def test_import_model_metadata() -> None:
    model = _classifier()
    model.producer_name = "unit-test"
    imported = import_model(model, shape={"x": (2, 6)})
    assert isinstance(imported, ImportedModel)
    assert imported.input_names == ("x",)
    assert imported.input_types == (TensorType((2, 6), "float32"),)
    assert imported.output_names == ("probs",)
    assert imported.opset == 13
    assert imported.producer == "unit-test"
    assert imported.function.ret_type == TensorType((2, 4), "float32")


def test_outputs_select_intermediate_values() -> None:
    model = _classifier()
    x = randn(2, 6)
    logits = from_onnx(model, shape={"x": (2, 6)}, outputs=["logits"])
    assert logits.body.op_name == "add"  # type: ignore[union-attr]

    both = from_onnx(model, shape={"x": (2, 6)}, outputs=["logits", "probs"])
    assert isinstance(both.body, Tuple)
    assert both.ret_type == TupleType((TensorType((2, 4)), TensorType((2, 4))))
    got_logits, got_probs = evaluate(both, {"x": x})
    np.testing.assert_allclose(evaluate(logits, {"x": x}), got_logits)
    (expected,) = run_onnxruntime(model, {"x": x})
    np.testing.assert_allclose(got_probs, expected, rtol=1e-4, atol=1e-5)


def test_outputs_before_an_unsupported_op_import() -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu0"),
        helper.make_node("RandomUniformLike", ["r"], ["y"], name="random0"),
    ]
    model = make_model(nodes, {"x": ([2, 3], np.float32)})
    function = from_onnx(model, outputs=["r"])
    assert function.body.op_name == "nn.relu"  # type: ignore[union-attr]


def test_several_graph_outputs_make_a_tuple() -> None:
    nodes = [
        helper.make_node("Split", ["x"], ["a", "b"], name="split0", axis=1),
        helper.make_node("Relu", ["b"], ["c"], name="relu0"),
    ]
    model = make_model(nodes, {"x": ([2, 6], np.float32)}, ["a", "c"])
    function = from_onnx(model)
    assert function.ret_type == TupleType((TensorType((2, 3)), TensorType((2, 3))))
    assert_matches_onnxruntime(model, {"x": randn(2, 6)})


def test_calls_carry_onnx_node_names_as_spans() -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="named_relu"),
        helper.make_node("Sigmoid", ["r"], ["y"]),
    ]
    model = make_model(nodes, {"x": ([2], np.float32)})
    body = from_onnx(model).body
    spans = {node.op_name: node.span for node in post_order(body) if isinstance(node, Call)}
    assert spans == {"nn.relu": "named_relu", "sigmoid": "Sigmoid_1"}


def test_every_node_is_typed() -> None:
    body = from_onnx(_classifier(), shape={"x": (2, 6)}).body
    assert all(node.has_type for node in post_order(body))


def test_identity_and_graph_input_as_output() -> None:
    nodes = [helper.make_node("Identity", ["x"], ["y"])]
    model = make_model(nodes, {"x": ([2, 3], np.float32)})
    function = from_onnx(model)
    assert function.body is function.params[0]


def test_integer_and_bool_inputs_are_supported() -> None:
    nodes = [
        helper.make_node("Cast", ["i"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("Where", ["m", "f", "x"], ["y"]),
    ]
    model = make_model(nodes, {"i": ([3], np.int32), "m": ([3], np.bool_), "x": ([3], np.float32)})
    feeds = {
        "i": np.array([1, 2, 3], np.int32),
        "m": np.array([True, False, True]),
        "x": randn(3),
    }
    assert_matches_onnxruntime(model, feeds)


def test_unused_initializer_of_unsupported_dtype_is_ignored() -> None:
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], {"x": ([2], np.float32)})
    model.graph.initializer.append(numpy_helper.from_array(np.zeros(2, np.uint32), "unused"))
    assert from_onnx(model).ret_type == TensorType((2,), "float32")
