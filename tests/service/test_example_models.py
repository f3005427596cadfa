"""Example models: random weights and the cut at the pre-softmax logits."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

from service.example_models import cut_at_logits, logits_name, randomize_weights, runtime_inputs
from tests.support.onnx_models import load_light_model, run_onnxruntime


def _gemm_softmax_model() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    weight = helper.make_tensor(
        "w", TensorProto.FLOAT, [8, 5], rng.standard_normal((8, 5)).astype(np.float32).ravel()
    )
    graph = helper.make_graph(
        [
            helper.make_node("Gemm", ["x", "w"], ["logits"]),
            helper.make_node("Relu", ["x"], ["unused"]),
            helper.make_node("Softmax", ["logits"], ["probs"]),
        ],
        "gemm_softmax",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [2, 5])],
        [weight],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_the_cut_model_ends_at_the_logits_and_keeps_only_what_they_need() -> None:
    model = _gemm_softmax_model()
    cut = cut_at_logits(model)
    onnx.checker.check_model(cut)
    assert [node.op_type for node in cut.graph.node] == ["Gemm"]
    (output,) = cut.graph.output
    assert output.name == "logits"
    assert [d.dim_value for d in output.type.tensor_type.shape.dim] == [2, 5]
    x = np.random.default_rng(1).standard_normal((2, 8)).astype(np.float32)
    weight = onnx.numpy_helper.to_array(model.graph.initializer[0])
    np.testing.assert_allclose(run_onnxruntime(cut, {"x": x}, "logits"), x @ weight, rtol=1e-5)
    assert len(model.graph.node) == 3  # the original is untouched


def test_a_randomised_light_models_logits_tell_the_classes_apart_where_its_softmax_does_not() -> (
    None
):
    shipped = load_light_model("light_resnet50")
    model = randomize_weights(shipped, seed=3)
    inputs = runtime_inputs(model)
    probabilities = run_onnxruntime(model, inputs, model.graph.output[0].name)
    assert np.count_nonzero(probabilities > 1e-6) < 10  # saturated: about one class
    cut = cut_at_logits(model, shapes_from=shipped)
    assert cut.graph.output[0].name == logits_name(model)
    assert all(node.op_type != "Softmax" for node in cut.graph.node)
    logits = run_onnxruntime(cut, inputs, logits_name(model))
    assert logits.shape == (1, 1000) and len(np.unique(logits)) > 990
