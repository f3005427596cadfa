"""ONNX functions: schema ops defined as functions (fixed bodies, and bodies built from the
node's attributes and input types) and model-local functions import as their nodes, and
compute what onnx's reference evaluator computes, through the compiler too."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.errors import ModelImportError, UnsupportedOpError
from ir.frontend.onnx import CONVERTERS, import_model
from ir.frontend.onnx.functions import defined_as_function, expand_functions
from tests.ir.frontend.onnx_helpers import IR_VERSION, run_imported

RNG = np.random.default_rng(3)


def _model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, np.ndarray],
    outputs: list[str],
    opset: int,
    functions: list[onnx.FunctionProto] | None = None,
    domains: tuple[str, ...] = (),
) -> onnx.ModelProto:
    infos = [
        helper.make_tensor_value_info(
            name, helper.np_dtype_to_tensor_dtype(value.dtype), value.shape
        )
        for name, value in inputs.items()
    ]
    outs = [
        helper.make_tensor_value_info(name, onnx.TensorProto.UNDEFINED, None) for name in outputs
    ]
    graph = helper.make_graph(nodes, "functions", infos, outs)
    opsets = [helper.make_opsetid("", opset), *(helper.make_opsetid(d, 1) for d in domains)]
    model = helper.make_model(graph, opset_imports=opsets, functions=functions or [])
    model.ir_version = IR_VERSION if opset <= 21 else 11 if opset <= 24 else 14
    # The checker wants output types: ONNX shape inference writes them.
    return onnx.shape_inference.infer_shapes(model)


def _check(model: onnx.ModelProto, feeds: dict[str, np.ndarray], rtol: float = 1e-5) -> None:
    expected = ReferenceEvaluator(model).run(None, feeds)
    np.testing.assert_allclose(run_imported(model, feeds)[0], expected[0], rtol=rtol, atol=1e-6)
    target = host_target()
    shapes = {name: value.shape for name, value in feeds.items()}
    prepared = prepare_for_target(model, target, example_shapes=shapes)
    compiled = compile_model(prepared.function, target).run(feeds)
    first = compiled[0] if isinstance(compiled, tuple) else compiled
    np.testing.assert_allclose(first, expected[0], rtol=rtol, atol=1e-6)


def test_a_fixed_schema_function_expands_and_computes() -> None:
    assert "Swish" not in CONVERTERS and defined_as_function("Swish", 24)
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    node = helper.make_node("Swish", ["x"], ["y"], alpha=1.5)
    _check(_model([node], {"x": x}, ["y"], opset=24), {"x": x})


def test_a_function_whose_body_uses_an_older_function_op() -> None:
    """SwiGLU (opset 28) is Swish (written for opset 24) times its second input: the inner
    body is declared at the model's opset, as its ops did not change in between."""
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal((3, 4)).astype(np.float32)
    node = helper.make_node("SwiGLU", ["a", "b"], ["y"], alpha=1.2)
    model = _model([node], {"a": a, "b": b}, ["y"], opset=28)
    expected = a / (1.0 + np.exp(-1.2 * a)) * b
    np.testing.assert_allclose(run_imported(model, {"a": a, "b": b})[0], expected, rtol=1e-5)


def test_a_context_dependent_function_with_a_missing_optional_input() -> None:
    """Attention's body is built for its attributes and input types; the mask (input 3) is
    left out while the past key and value are given."""
    assert "Attention" not in CONVERTERS
    batch, heads, query_len, past_len, head = 2, 3, 4, 5, 8
    feeds = {
        "q": RNG.standard_normal((batch, heads, query_len, head)).astype(np.float32),
        "k": RNG.standard_normal((batch, heads, query_len, head)).astype(np.float32),
        "v": RNG.standard_normal((batch, heads, query_len, head)).astype(np.float32),
        "past_k": RNG.standard_normal((batch, heads, past_len, head)).astype(np.float32),
        "past_v": RNG.standard_normal((batch, heads, past_len, head)).astype(np.float32),
    }
    node = helper.make_node(
        "Attention",
        ["q", "k", "v", "", "past_k", "past_v"],
        ["y", "present_k", "present_v"],
        is_causal=1,
    )
    model = _model([node], feeds, ["y", "present_k", "present_v"], opset=23)
    _check(model, feeds, rtol=1e-4)
    imported = import_model(model)
    assert imported.output_names == ("y", "present_k", "present_v")


def test_attributes_the_node_leaves_out_take_the_schema_default() -> None:
    """HannWindow's body reads `periodic` (default 1) and `output_datatype`: a node that
    sets neither gets the defaults, not a Constant with no value."""
    node = helper.make_node("HannWindow", ["size"], ["y"])
    graph = helper.make_graph(
        [node],
        "window",
        [],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [10])],
        [onnx.numpy_helper.from_array(np.array(10, np.int64), "size")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = IR_VERSION
    periodic = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(10) / 10)
    np.testing.assert_allclose(run_imported(model, {})[0], periodic, atol=1e-6)


def test_model_local_functions_are_inlined() -> None:
    scaled_tanh = helper.make_function(
        "custom",
        "ScaledTanh",
        ["x"],
        ["y"],
        [
            helper.make_node("Tanh", ["x"], ["t"]),
            helper.make_node("Constant", [], ["two"], value_float=2.0),
            helper.make_node("Mul", ["t", "two"], ["y"]),
        ],
        [helper.make_opsetid("", 17)],
    )
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    nodes = [
        helper.make_node("ScaledTanh", ["x"], ["a"], domain="custom"),
        helper.make_node("ScaledTanh", ["a"], ["y"], domain="custom"),
    ]
    model = _model(nodes, {"x": x}, ["y"], 17, [scaled_tanh], ("custom",))
    _check(model, {"x": x})


def test_a_model_without_functions_is_left_as_it_is() -> None:
    x = RNG.standard_normal((2, 2)).astype(np.float32)
    model = _model([helper.make_node("Relu", ["x"], ["y"])], {"x": x}, ["y"], 17)
    assert expand_functions(model, 17, CONVERTERS) is model


def test_an_op_without_a_function_or_converter_is_still_named() -> None:
    x = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    node = helper.make_node("RandomUniformLike", ["x"], ["y"])
    assert not defined_as_function("RandomUniformLike", 17)
    with pytest.raises(UnsupportedOpError, match="RandomUniformLike"):
        import_model(_model([node], {"x": x}, ["y"], 17))


def test_a_broken_local_function_is_a_clear_import_error() -> None:
    broken = helper.make_function(
        "custom", "Broken", ["x"], ["y"], [helper.make_node("Relu", ["nowhere"], ["y"])],
        [helper.make_opsetid("", 17)],
    )  # fmt: skip
    x = RNG.standard_normal((2, 2)).astype(np.float32)
    node = helper.make_node("Broken", ["x"], ["y"], domain="custom")
    model = _model([node], {"x": x}, ["y"], 17, [broken], ("custom",))
    with pytest.raises(ModelImportError):
        import_model(model)


def test_expansion_keeps_the_weights_and_types_values_computed_from_them() -> None:
    """Attention's query comes from a MatMul with a weight: the body is built from types
    shape inference derives through the weight, and the weight survives the expansion
    (which keeps weights out of the inliner's serialised model)."""
    batch, heads, length, head = 1, 2, 3, 4
    x = RNG.standard_normal((batch, heads, length, head)).astype(np.float32)
    weight = RNG.standard_normal((head, head)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["q"]),
        helper.make_node("Attention", ["q", "x", "x"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "weighted",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, x.shape)],
        [onnx.numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    model.ir_version = 11
    expanded = expand_functions(model, 23, CONVERTERS)
    assert [tensor.name for tensor in expanded.graph.initializer] == ["w"]
    assert len(model.graph.node) == 2  # the caller's model is left as it was
    _check(model, {"x": x}, rtol=1e-4)
